import type { CatalogDatabase, CatalogDurability, CatalogStatement, CatalogTransactionKind } from '../catalog-database.js';
import { migratePostgresCatalog, quoteIdentifier } from './postgres-migrations.js';
import { isWriteStatement, toPostgresSql } from './postgres-sql.js';
import { SyncPgClient } from './sync-pg-client.js';
import type { StatementResult } from './sync-pg-protocol.js';

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
 * - Every write transaction that changed rows moves catalog_version at its commit. The
 *   data version a caller sees is that counter less this connection's own moves, so it
 *   moves only for other connections' commits, as SQLite's data_version does. It is read
 *   with a round trip, once per synchronous run (SqlCatalog).
 * - `normal` durability is synchronous_commit = off for that transaction.
 * - A read transaction is REPEATABLE READ: its reads see one moment.
 * - A lost connection (the server restarted, the session was terminated) fails what was
 *   running on it with 08006, and the next call outside a transaction opens a new one. A
 *   read outside a transaction, and a transaction's BEGIN, are sent again on the new
 *   connection at once; a transaction lost after its BEGIN is not, since it may have
 *   committed.
 */
export class PostgresDatabase implements CatalogDatabase {
  readonly dialect = 'postgres';
  readonly key: string;
  readonly #opts: PostgresCatalogOptions;
  readonly #schema: string;
  #client: SyncPgClient;
  readonly #lock: readonly [number, number];
  #depth = 0;
  #changes = 0n;
  /** catalog_version moves committed by this connection. */
  #ownMoves = 0n;
  #statementCount = 0;

  constructor(opts: PostgresCatalogOptions) {
    const schema = opts.schema ?? 'floe_catalog';
    this.key = `${opts.url}#${schema}`;
    this.#opts = opts;
    this.#schema = schema;
    this.#lock = [LOCK_CLASS, schemaLockId(schema)];
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

  prepare(sql: string): CatalogStatement {
    const text = toPostgresSql(sql);
    // Named, so PostgreSQL parses and plans it once per connection.
    const name = `floe_catalog_${++this.#statementCount}`;
    const write = isWriteStatement(sql);
    const execute = (params: unknown[]): StatementResult => {
      const run = (): StatementResult => {
        const result = this.#live().execute({ name, sql: text, params });
        if (write) this.#changes += BigInt(result.rowCount);
        return result;
      };
      if (write && this.#depth === 0) return this.transaction('write', 'full', run);
      return this.#depth === 0 ? this.#readingAgainIfLost(run) : run();
    };
    return {
      get: (...params) => execute(params).rows[0],
      all: (...params) => execute(params).rows,
      run: (...params) => ({ changes: execute(params).rowCount }),
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
    const begin = kind === 'read'
      ? 'BEGIN ISOLATION LEVEL REPEATABLE READ'
      : `BEGIN; SELECT pg_advisory_xact_lock(${this.#lock[0]}, ${this.#lock[1]})${durability === 'normal' ? '; SET LOCAL synchronous_commit = off' : ''}`;
    // BEGIN has done nothing yet: on a connection found lost it is simply sent again on a new one.
    this.#readingAgainIfLost(() => this.#live().execute(begin));
    this.#depth = 1;
    const changesBefore = this.#changes;
    try {
      const out = fn();
      if (kind === 'write' && this.#changes !== changesBefore) {
        this.#client.execute('UPDATE catalog_version SET version = version + 1; COMMIT');
        this.#ownMoves++;
      } else {
        this.#client.execute('COMMIT');
      }
      return out;
    } catch (e) {
      try {
        this.#client.execute('ROLLBACK');
      } catch { /* the connection is gone; the server rolls back */ }
      throw e;
    } finally {
      this.#depth = 0;
    }
  }

  #savepoint<T>(fn: () => T): T {
    const name = `floe_sp_${this.#depth}`;
    this.#client.execute(`SAVEPOINT ${name}`);
    this.#depth++;
    try {
      const out = fn();
      this.#client.execute(`RELEASE SAVEPOINT ${name}`);
      return out;
    } catch (e) {
      try {
        this.#client.execute(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`);
      } catch { /* the connection is gone: the outer transaction fails with it */ }
      throw e;
    } finally {
      this.#depth--;
    }
  }

  dataVersion(): bigint {
    const read = () => this.#live().execute({ name: 'floe_catalog_version', sql: 'SELECT version FROM catalog_version' }).rows[0]!;
    const row = this.#depth === 0 ? this.#readingAgainIfLost(read) : read();
    return (row['version'] as bigint) - this.#ownMoves;
  }

  ownChanges(): bigint {
    return this.#changes;
  }

  close(): void {
    this.#client.close();
  }
}
