import type { CatalogDatabase, CatalogDurability, CatalogStatement, CatalogTransactionKind } from '../catalog-database.js';
import { migratePostgresCatalog, quoteIdentifier } from './postgres-migrations.js';
import { isWriteStatement, toPostgresSql } from './postgres-sql.js';
import { SyncPgClient } from './sync-pg-client.js';
import type { StatementResult, SyncPgStatement } from './sync-pg-protocol.js';

export interface PostgresCatalogOptions {
  /** postgres://… of the catalog database. */
  readonly url: string;
  /** The schema that holds the catalog's tables (default floe_catalog); several warehouses may share a database. */
  readonly schema?: string;
  /** How long one catalog statement may take before the connection is given up (default 60 s). */
  readonly callTimeoutMs?: number;
}

/** pg_advisory_xact_lock's first key for every Floe catalog lock ("FLOE"); the second names the schema. */
const LOCK_CLASS = 0x464c4f45 | 0;

/** A 32-bit FNV-1a hash of the schema name: two catalogs in one database do not share a lock. */
function schemaLockId(schema: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(schema, 'utf8')) h = Math.imul(h ^ byte, 0x01000193);
  return h | 0;
}

/**
 * The catalog's database in a shared PostgreSQL, through a synchronous bridge
 * (sync-pg-client.ts). The rules that keep SQLite's meaning:
 * - A write transaction takes the catalog's advisory lock first, so writers of every
 *   gateway queue as BEGIN IMMEDIATE makes them, and each sees every commit before it.
 *   A write outside a transaction is one of its own.
 * - Inside a transaction, statements whose rows nobody reads wait and go with the next one
 *   that is read (or the COMMIT): one round trip for several. A statement that fails then
 *   fails the later call that sent it, still inside the transaction (or savepoint) that
 *   issued it, which rolls it back as if it had failed at once. BEGIN waits too.
 * - Every write transaction that wrote (or may have) moves catalog_version at its commit. The
 *   data version a caller sees is that counter less this connection's own moves, so it
 *   moves only for other connections' commits, as SQLite's data_version does. It is read
 *   with a round trip, once per synchronous run (SqlCatalog); inside a write transaction,
 *   with its BEGIN (under the lock it cannot move).
 * - `normal` durability is synchronous_commit = off for that transaction.
 * - A read transaction is REPEATABLE READ: its reads see one moment.
 * - A lost connection (the server restarted, the session was terminated) fails what was
 *   running on it with 08006, and the next call outside a transaction opens a new one. A
 *   read outside a transaction, and a transaction's BEGIN, are sent again on the new
 *   connection at once; a transaction lost after its BEGIN is not, since it may have
 *   committed.
 */
/** A statement sent with the next round trip, and what to do with its result then. */
interface Deferred {
  readonly statement: SyncPgStatement;
  readonly write: boolean;
  readonly onResult?: (r: StatementResult) => void;
}

const VERSION: SyncPgStatement = { name: 'floe_catalog_version', sql: 'SELECT version FROM catalog_version' };

export class PostgresDatabase implements CatalogDatabase {
  readonly dialect = 'postgres';
  readonly key: string;
  readonly #opts: PostgresCatalogOptions;
  readonly #schema: string;
  #client: SyncPgClient;
  /** Takes the catalog's write lock for the transaction: the same statement for every writer and for migrations. */
  readonly #lock: string;
  #depth = 0;
  #changes = 0n;
  /** catalog_version moves committed by this connection. */
  #ownMoves = 0n;
  #statementCount = 0;
  /** Statements of the open transaction not sent yet. */
  #pending: Deferred[] = [];
  /** catalog_version as the open write transaction's BEGIN read it. */
  #txnVersion: bigint | undefined;

  constructor(opts: PostgresCatalogOptions) {
    const schema = opts.schema ?? 'floe_catalog';
    this.key = `${opts.url}#${schema}`;
    this.#opts = opts;
    this.#schema = schema;
    this.#lock = `SELECT pg_advisory_xact_lock(${LOCK_CLASS}, ${schemaLockId(schema)})`;
    this.#client = this.#connect(true);
  }

  #connect(migrate: boolean): SyncPgClient {
    const client = new SyncPgClient({ url: this.#opts.url, ...(this.#opts.callTimeoutMs === undefined ? {} : { callTimeoutMs: this.#opts.callTimeoutMs }) });
    try {
      if (migrate) migratePostgresCatalog(client, this.#schema, this.#lock);
      client.execute(`SET search_path TO ${quoteIdentifier(this.#schema)}; SET application_name TO 'floe catalog'`);
      return client;
    } catch (e) {
      client.close();
      throw e;
    }
  }

  /** The connection, opened anew if the last one was lost and no transaction was on it (a transaction's calls fail with it). */
  #live(): SyncPgClient {
    if (this.#client.closed && this.#depth === 0) this.#client = this.#connect(false);
    return this.#client;
  }

  /**
   * The pending statements and then `also`, in one round trip; `also`'s results. The
   * statements that ran before a failure get their results (a savepoint among them exists),
   * then the failure is thrown. A batch that begins the transaction has done nothing yet if
   * the connection is found lost, and is sent again on a new one.
   */
  #send(also: readonly Deferred[]): StatementResult[] {
    const batch = [...this.#pending, ...also];
    this.#pending = [];
    if (batch.length === 0) return [];
    const run = () => this.#client.executeAll(batch.map((d) => d.statement));
    let sent: ReturnType<SyncPgClient['executeAll']>;
    try {
      sent = run();
    } catch (e) {
      if (!this.#client.lost || !batch[0]!.statement.sql.startsWith('BEGIN')) throw e;
      this.#client = this.#connect(false);
      sent = run();
    }
    for (const [i, r] of sent.results.entries()) {
      const d = batch[i]!;
      if (d.write) this.#changes += BigInt(r.rowCount);
      d.onResult?.(r);
    }
    if (sent.failure !== undefined) {
      // Rows the failing statement touched before it failed are rolled back with it; the count moves anyway.
      if (batch[sent.results.length]!.write) this.#changes++;
      throw sent.failure;
    }
    return sent.results.slice(batch.length - also.length);
  }

  prepare(sql: string): CatalogStatement {
    const text = toPostgresSql(sql);
    // Named, so PostgreSQL parses and plans it once per connection.
    const name = `floe_catalog_${++this.#statementCount}`;
    const statement = (params: unknown[]): SyncPgStatement => ({ name, sql: text, params });
    const write = isWriteStatement(sql);
    /** Rows are read: sent now, with whatever waits. */
    const read = (params: unknown[]): StatementResult => {
      if (this.#depth > 0) return this.#send([{ statement: statement(params), write }])[0]!;
      if (write) return this.transaction('write', 'full', () => this.#send([{ statement: statement(params), write }])[0]!);
      return this.#readingAgainIfLost(() => this.#live().execute(statement(params)));
    };
    return {
      get: (...params) => read(params).rows[0],
      all: (...params) => read(params).rows,
      run: (...params) => {
        if (!write) return { changes: read(params).rowCount };
        // Waits for the next round trip; asking for its count sends it.
        let result: StatementResult | undefined;
        const deferred: Deferred = { statement: statement(params), write, onResult: (r) => { result = r; } };
        if (this.#depth > 0) this.#pending.push(deferred);
        else this.transaction('write', 'full', () => { this.#pending.push(deferred); });
        const send = () => this.#send([]);
        return { get changes() { if (result === undefined) send(); return result!.rowCount; } };
      },
    };
  }

  /** `read()`, and once more on a new connection if the connection was lost under it. */
  #readingAgainIfLost<T>(read: () => T): T {
    try {
      return read();
    } catch (e) {
      // Not after a timeout: the server may be slow, not gone, and a retry would wait as long again.
      if (!this.#client.lost) throw e;
      return read();
    }
  }

  get inTransaction(): boolean {
    return this.#depth > 0;
  }

  transaction<T>(kind: CatalogTransactionKind, durability: CatalogDurability, fn: () => T): T {
    if (this.#depth > 0) return this.#savepoint(fn);
    // BEGIN waits for the transaction's first round trip.
    this.#live();
    const begin: Deferred = kind === 'read'
      ? { statement: { sql: 'BEGIN ISOLATION LEVEL REPEATABLE READ' }, write: false }
      : { statement: { sql: `BEGIN; ${this.#lock}${durability === 'normal' ? '; SET LOCAL synchronous_commit = off' : ''}` }, write: false };
    this.#pending = kind === 'read' ? [begin] : [begin, { statement: VERSION, write: false, onResult: (r) => { this.#txnVersion = r.rows[0]!['version'] as bigint; } }];
    /** Whether BEGIN went out (even if it failed there: the connection may be in a transaction). */
    const sent = () => this.#pending[0] !== begin;
    this.#depth = 1;
    const changesBefore = this.#changes;
    try {
      const out = fn();
      const wrote = this.#changes !== changesBefore || this.#pending.some((d) => d.write);
      if (!sent() && !wrote) {
        // Nothing was sent: there is no transaction to end.
        this.#pending = [];
      } else if (kind === 'write' && wrote) {
        this.#send([{ statement: { sql: 'UPDATE catalog_version SET version = version + 1; COMMIT' }, write: false }]);
        this.#ownMoves++;
      } else {
        this.#send([{ statement: { sql: 'COMMIT' }, write: false }]);
      }
      return out;
    } catch (e) {
      const rollBack = sent();
      this.#pending = [];
      if (rollBack) {
        try {
          this.#client.execute('ROLLBACK');
        } catch { /* the connection is gone; the server rolls back */ }
      }
      throw e;
    } finally {
      this.#depth = 0;
      this.#txnVersion = undefined;
    }
  }

  #savepoint<T>(fn: () => T): T {
    const name = `floe_sp_${this.#depth}`;
    let created = false;
    const mark = this.#pending.length;
    this.#pending.push({ statement: { sql: `SAVEPOINT ${name}` }, write: false, onResult: () => { created = true; } });
    this.#depth++;
    try {
      const out = fn();
      // Sent now, so a failure of the part's statements rolls back only the part (below).
      this.#send([{ statement: { sql: `RELEASE SAVEPOINT ${name}` }, write: false }]);
      return out;
    } catch (e) {
      if (!created) {
        // Neither the savepoint nor anything after it was sent: they are dropped, and nothing is undone.
        this.#pending.length = Math.min(this.#pending.length, mark);
      } else {
        this.#pending = [];
        try {
          this.#client.execute(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`);
        } catch { /* the connection is gone: the outer transaction fails with it */ }
      }
      throw e;
    } finally {
      this.#depth--;
    }
  }

  dataVersion(): bigint {
    if (this.#depth > 0) {
      if (this.#txnVersion === undefined && this.#pending.some((d) => d.statement === VERSION)) this.#send([]);
      if (this.#txnVersion !== undefined) return this.#txnVersion - this.#ownMoves;
      return (this.#send([{ statement: VERSION, write: false }])[0]!.rows[0]!['version'] as bigint) - this.#ownMoves;
    }
    const row = this.#readingAgainIfLost(() => this.#live().execute(VERSION)).rows[0]!;
    return (row['version'] as bigint) - this.#ownMoves;
  }

  ownChanges(): bigint {
    return this.#changes;
  }

  close(): void {
    this.#client.close();
  }
}
