import { workerData } from 'node:worker_threads';
import pg from 'pg';
import { SIGNAL_NOTIFY_EPOCH, SIGNAL_REPLY } from './sync-pg-protocol.js';
import type { StatementResult, SyncPgError, SyncPgReply, SyncPgRequest, SyncPgStatement, SyncPgWorkerData } from './sync-pg-protocol.js';

/*
 * The thread that owns the catalog's PostgreSQL connection. Each request runs to its end
 * here, its reply is posted, and only then is the caller (blocked in Atomics.wait) woken:
 * the caller reads the reply with receiveMessageOnPort, so it never needs its event loop.
 */

const { url, signal, port } = workerData as SyncPgWorkerData;
const slots = new Int32Array(signal);
// int8 as bigint, as the SQLite catalog reads it; every other type as pg parses it.
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 20 ? (v: string) => BigInt(v) : pg.types.getTypeParser(oid, format)),
};
const client = new pg.Client({ connectionString: url, types });
let broken: SyncPgError | undefined;
const connected = client.connect().catch((e: unknown) => { broken = lostConnection(errorOf(e).message); });
client.on('error', (e) => { broken ??= lostConnection(errorOf(e).message); });
client.on('end', () => { broken ??= lostConnection('the catalog connection was closed'); });
client.on('notification', () => {
  Atomics.add(slots, SIGNAL_NOTIFY_EPOCH, 1);
});

port.on('message', (request: SyncPgRequest) => {
  void run(request).then((reply) => {
    port.postMessage(reply);
    Atomics.store(slots, SIGNAL_REPLY, 1);
    Atomics.notify(slots, SIGNAL_REPLY);
    if (request.kind === 'close') port.close();
  });
});

async function run(request: SyncPgRequest): Promise<SyncPgReply> {
  await connected;
  if (request.kind === 'close') {
    await client.end().catch(() => undefined);
    return { ok: true, results: [] };
  }
  if (broken !== undefined) return { ok: false, error: broken };
  try {
    switch (request.kind) {
      case 'query': {
        const results: StatementResult[] = [];
        try {
          for (const s of request.statements) results.push(await execute(s));
        } catch (e) {
          const failure = classify(errorOf(e));
          return failure.lost === true ? { ok: false, error: failure } : { ok: true, results, failure };
        }
        return { ok: true, results };
      }
      case 'listen':
        await client.query(`LISTEN ${client.escapeIdentifier(request.channel)}`);
        return { ok: true, results: [] };
      case 'transaction': {
        const results: StatementResult[] = [];
        await client.query(request.isolation === undefined ? 'BEGIN' : `BEGIN ISOLATION LEVEL ${request.isolation.toUpperCase()}`);
        try {
          for (const s of request.statements) results.push(await execute(s));
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw e;
        }
        return { ok: true, results };
      }
    }
  } catch (e) {
    return { ok: false, error: classify(errorOf(e)) };
  }
}

/** The server ended the session (class 08, or 57P01–57P03: terminated, crash, not accepting): the connection is lost. */
function classify(error: SyncPgError): SyncPgError {
  return /^08|^57P0[123]$/.test(error.code ?? '') ? lostConnection(error.message) : error;
}

function lostConnection(message: string): SyncPgError {
  return { message, code: '08006', lost: true };
}

/** Without parameters a text may hold several statements (the simple protocol): the last one's result counts. */
async function execute(s: SyncPgStatement): Promise<StatementResult> {
  const out = await client.query({ text: s.sql, values: s.params === undefined ? [] : [...s.params], ...(s.name === undefined ? {} : { name: s.name }) }) as pg.QueryResult | pg.QueryResult[];
  const last = Array.isArray(out) ? out[out.length - 1]! : out;
  return { rows: last.rows as StatementResult['rows'], rowCount: last.rowCount ?? 0 };
}

function errorOf(e: unknown): SyncPgError {
  const err = e as { message?: string; code?: string; detail?: string; hint?: string };
  const pgCode = typeof err.code === 'string' && /^[0-9A-Z]{5}$/.test(err.code) ? err.code : undefined;
  return {
    message: err.message ?? String(e),
    // A socket error's code (ECONNREFUSED) is not a SQLSTATE: the connection failed.
    code: pgCode ?? '08006',
    ...(err.detail === undefined ? {} : { detail: err.detail }),
    ...(err.hint === undefined ? {} : { hint: err.hint }),
  };
}
