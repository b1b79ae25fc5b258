import { FloeError } from '../../src/common/floe-error.js';
import type {
  BoundPortal, ColumnDescription, PreparedStatement, RowBatch, SessionEvents, SessionHandler,
  StartupInfo, StatementResult, TransactionStatus,
} from '../../src/wire/session-handler.js';
import { md5StoredPassword } from '../../src/common/md5-password.js';
import { formatScramVerifier, makeScramVerifier } from '../../src/common/scram-secret.js';
import type { AuthProvider, LoginRole } from '../../src/wire/auth/auth-provider.js';
import { parseHbaFile } from '../../src/wire/auth/hba-rules.js';

/**
 * A SessionHandler that knows a handful of canned statements, enough to drive
 * every protocol path without SQL:
 *   series N          one int4 column n = 1..N, in batches of 7
 *   echo $1 $2 …      one row echoing the parameters, typed as resolved
 *   types             one row holding a value of every supported type
 *   begin / commit / rollback / fail        transaction status bookkeeping
 *   error / crash     a FloeError (42601, position 3) / a plain Error
 *   sleep             waits until the statement is cancelled
 *   wait N            finishes after N ms with tag WAITED
 *   copy in           COPY FROM STDIN; the data lands in `copied`
 *   copy out N        COPY TO STDOUT of N text lines
 *   set tz X          ParameterStatus TimeZone, then "SET"
 *   notice            a NoticeResponse, then "DO"
 *   (blank)           EmptyQueryResponse
 * Several statements may be joined with ';' in a simple query.
 */
export interface FakeState {
  readonly copied: Buffer[];
  readonly copyFailures: string[];
  closed: number;
  started: number;
  /** Row batches the fake produced, to show backpressure stops production. */
  batchesProduced: number;
  /** Statements that have begun: tests wait on these instead of on the clock. */
  sleepsStarted: number;
  waitsStarted: number;
  copyInsStarted: number;
  syncs: number;
  readonly startups: StartupInfo[];
}

export function newFakeState(): FakeState {
  return { copied: [], copyFailures: [], closed: 0, started: 0, syncs: 0, startups: [], batchesProduced: 0, sleepsStarted: 0, waitsStarted: 0, copyInsStarted: 0 };
}

function col(name: string, typeOid: number, typeSize = -1): ColumnDescription {
  return { name, tableOid: 0, columnNumber: 0, typeOid, typeSize, typeModifier: -1 };
}

function batchOf(rows: unknown[][]): RowBatch {
  const width = rows[0]?.length ?? 0;
  return {
    numRows: rows.length,
    columns: Array.from({ length: width }, (_, c) => ({ get: (r: number) => rows[r]![c] })),
  };
}

export const typesRow: readonly { name: string; oid: number; value: unknown }[] = [
  { name: 'b', oid: 16, value: true },
  { name: 'i2', oid: 21, value: -12 },
  { name: 'i4', oid: 23, value: 123456 },
  { name: 'i8', oid: 20, value: 9007199254740993n },
  { name: 'f4', oid: 700, value: 1.5 },
  { name: 'f8', oid: 701, value: 0.1 },
  { name: 'num', oid: 1700, value: '-12345.6789' },
  { name: 't', oid: 25, value: 'hé "x"' },
  { name: 'vc', oid: 1043, value: 'varchar' },
  { name: 'bytes', oid: 17, value: new Uint8Array([0, 1, 254, 255]) },
  { name: 'd', oid: 1082, value: 19792 },
  { name: 'tm', oid: 1083, value: 45296789000n },
  { name: 'ts', oid: 1114, value: 1710074096789000n },
  { name: 'tstz', oid: 1184, value: 1710074096789000n },
  { name: 'iv', oid: 1186, value: { months: 14, days: 3, micros: 14706789000n } },
  { name: 'u', oid: 2950, value: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' },
  { name: 'j', oid: 114, value: '{"a":1}' },
  { name: 'jb', oid: 3802, value: '{"a": 1}' },
  { name: 'o', oid: 26, value: 1259 },
  { name: 'ia', oid: 1007, value: [1, null, 3] },
  { name: 'ta', oid: 1009, value: ['a', 'b c', null, ''] },
];

async function* batches(n: number, signal: AbortSignal, state: FakeState): AsyncIterable<RowBatch> {
  for (let start = 1; start <= n; start += 7) {
    if (signal.aborted) throw new FloeError('57014', 'canceling statement due to user request');
    state.batchesProduced++;
    const rows: unknown[][] = [];
    for (let i = start; i < Math.min(start + 7, n + 1); i++) rows.push([i]);
    yield batchOf(rows);
  }
}

export class FakeSession implements SessionHandler {
  readonly #state: FakeState;
  #events: SessionEvents | undefined;
  #tx: TransactionStatus = 'I';
  readonly #initial: Record<string, string>;

  constructor(state: FakeState, info: StartupInfo, initial: Record<string, string> = {}) {
    this.#state = state;
    state.startups.push(info);
    this.#initial = {
      server_version: '15.18', client_encoding: 'UTF8', DateStyle: 'ISO, MDY', TimeZone: 'UTC',
      integer_datetimes: 'on', standard_conforming_strings: 'on', ...initial,
    };
  }

  async start(events: SessionEvents): Promise<Readonly<Record<string, string>>> {
    this.#events = events;
    this.#state.started++;
    return this.#initial;
  }

  async *simpleQuery(sql: string, signal: AbortSignal): AsyncIterable<StatementResult> {
    const parts = sql.split(';');
    for (const [i, part] of parts.entries()) {
      if (part.trim() === '' && i > 0) continue;
      try {
        yield await this.#run(part.trim(), [], signal);
      } catch (e) {
        if (this.#tx === 'T') this.#tx = 'E';
        throw e;
      }
    }
  }

  async prepare(sql: string, paramTypeOids: readonly number[]): Promise<PreparedStatement> {
    const s = sql.trim();
    if (s === 'error') throw new FloeError('42601', 'syntax error at or near "error"', { position: 1 });
    const n = (s.match(/\$\d+/g) ?? []).length;
    const oids = Array.from({ length: Math.max(n, paramTypeOids.length) }, (_, i) => {
      const given = paramTypeOids[i] ?? 0;
      return given === 0 ? 25 : given;
    });
    // The contract keeps SQL out of PreparedStatement; the fake tags it on for bind().
    return Object.assign({ paramTypeOids: oids, columns: this.#columnsFor(s, oids) }, { sql: s });
  }

  async bind(statement: PreparedStatement, params: readonly unknown[]): Promise<BoundPortal> {
    const sql = (statement as PreparedStatement & { sql?: string }).sql;
    const self = this;
    const prepared = statement;
    return {
      columns: prepared.columns,
      async execute(signal: AbortSignal) {
        return self.#run(sql ?? '', params, signal, prepared.paramTypeOids);
      },
      close() {},
    };
  }

  async sync(): Promise<void> {
    this.#state.syncs++;
  }

  transactionStatus(): TransactionStatus {
    return this.#tx;
  }

  async close(): Promise<void> {
    this.#state.closed++;
  }

  #columnsFor(sql: string, oids: readonly number[]): ColumnDescription[] | null {
    if (sql.startsWith('series')) return [col('n', 23, 4)];
    if (sql.startsWith('echo')) return oids.map((o, i) => col(`p${i + 1}`, o));
    if (sql === 'types') return typesRow.map((t) => col(t.name, t.oid));
    if (sql === 'sleep') return [col('x', 23, 4)];
    return null;
  }

  async #run(sql: string, params: readonly unknown[], signal: AbortSignal, oids: readonly number[] = []): Promise<StatementResult> {
    const words = sql.split(/\s+/);
    switch (words[0]) {
      case '':
        return { kind: 'empty' };
      case 'series': {
        const arg = words[1] ?? '0';
        const n = Number(arg.startsWith('$') ? params[Number(arg.slice(1)) - 1] : arg);
        return { kind: 'rows', columns: [col('n', 23, 4)], batches: batches(n, signal, this.#state), commandTag: (c) => `SELECT ${c}` };
      }
      case 'echo':
        return {
          kind: 'rows',
          columns: oids.map((o, i) => col(`p${i + 1}`, o)),
          batches: (async function* () { yield batchOf([[...params]]); })(),
          commandTag: (c) => `SELECT ${c}`,
        };
      case 'types':
        return {
          kind: 'rows',
          columns: typesRow.map((t) => col(t.name, t.oid)),
          batches: (async function* () { yield batchOf([typesRow.map((t) => t.value)]); })(),
          commandTag: (c) => `SELECT ${c}`,
        };
      case 'begin':
        this.#tx = 'T';
        return { kind: 'command', tag: 'BEGIN' };
      case 'commit': {
        const tag = this.#tx === 'E' ? 'ROLLBACK' : 'COMMIT';
        this.#tx = 'I';
        return { kind: 'command', tag };
      }
      case 'rollback':
        this.#tx = 'I';
        return { kind: 'command', tag: 'ROLLBACK' };
      case 'error':
        throw new FloeError('42601', 'syntax error at or near "error"', { position: 3, hint: 'a hint', detail: 'a detail' });
      case 'crash':
        throw new Error('boom');
      case 'sleep':
        this.#state.sleepsStarted++;
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        // The wire puts the error to raise in signal.reason: 57014 for a cancel, FATAL 57P01 at shutdown.
        throw signal.reason instanceof FloeError ? signal.reason : new FloeError('57014', 'canceling statement due to user request');
      case 'wait':
        this.#state.waitsStarted++;
        await new Promise((r) => setTimeout(r, Number(words[1] ?? 100)));
        return { kind: 'command', tag: 'WAITED' };
      case 'copy':
        if (words[1] === 'in') {
          const state = this.#state;
          state.copyInsStarted++;
          const got: Buffer[] = [];
          return {
            kind: 'copyIn',
            format: 'text',
            columnCount: 2,
            sink: {
              async write(chunk) { got.push(Buffer.from(chunk)); },
              async finish() {
                state.copied.push(Buffer.concat(got));
                return `COPY ${Buffer.concat(got).toString().split('\n').filter((l) => l !== '').length}`;
              },
              async fail(reason) { state.copyFailures.push(reason); },
            },
          };
        }
        return {
          kind: 'copyOut',
          format: 'text',
          columnCount: 2,
          chunks: (async function* () {
            for (let i = 1; i <= Number(words[2] ?? 3); i++) yield Buffer.from(`${i}\trow ${i}\n`);
          })(),
          commandTag: (n) => `COPY ${n}`,
        };
      case 'set':
        this.#events?.parameterStatus('TimeZone', words[2] ?? 'UTC');
        return { kind: 'command', tag: 'SET' };
      case 'notice':
        this.#events?.notice({ severity: 'NOTICE', sqlstate: '00000', message: 'hello', detail: 'there' });
        return { kind: 'command', tag: 'DO' };
      default:
        throw new FloeError('42601', `unknown fake statement "${sql}"`);
    }
  }
}

export interface FakeUsers {
  readonly scram: Record<string, string>;
  readonly md5: Record<string, string>;
  readonly password: Record<string, string>;
}

/**
 * Listed users log in with their method (SCRAM, md5 or cleartext, each by a rule of its own);
 * anyone else is trusted and exists as a login role.
 */
export function fakeAuth(users: FakeUsers = { scram: {}, md5: {}, password: {} }): AuthProvider {
  const roles = new Map<string, LoginRole>();
  const role = (name: string, password: string | null): LoginRole => ({ name, superuser: false, canLogin: true, replication: true, connectionLimit: -1, password, validUntilMicros: null });
  for (const [u, p] of Object.entries(users.scram)) roles.set(u, role(u, formatScramVerifier(makeScramVerifier(p))));
  for (const [u, p] of Object.entries(users.md5)) roles.set(u, role(u, md5StoredPassword(u, p)));
  for (const [u, p] of Object.entries(users.password)) roles.set(u, role(u, formatScramVerifier(makeScramVerifier(p))));
  const line = (method: string, names: Record<string, string>) => Object.keys(names).map((u) => `host all "${u}" all ${method}`);
  const hba = parseHbaFile([...line('scram-sha-256', users.scram), ...line('md5', users.md5), ...line('password', users.password), 'host all all all trust'].join('\n'), 'fake');
  return {
    hba: () => hba,
    role: (name) => roles.get(name) ?? role(name, null),
    isMemberOf: () => false,
  };
}

/** Polls until the condition holds (bounded), so tests never depend on timing. */
export async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}
