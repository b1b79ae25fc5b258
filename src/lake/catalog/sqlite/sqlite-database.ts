import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { CatalogDatabase, CatalogDurability, CatalogStatement, CatalogTransactionKind } from '../catalog-database.js';
import { createSqliteSchema } from './sqlite-schema.js';

/**
 * The embedded catalog's database: one SQLite file (WAL) per warehouse.
 *
 * synchronous=FULL: in WAL mode NORMAL only risks the last commits on power loss, but a
 * commit here is acknowledged to a client as durable, so the WAL is fsynced per commit
 * (`normal` transactions switch it off for their own span). Writes take the write lock up
 * front (BEGIN IMMEDIATE), so two processes queue on busy_timeout instead of failing on
 * lock upgrade.
 */
export class SqliteDatabase implements CatalogDatabase {
  readonly dialect = 'sqlite';
  readonly key: string | symbol;
  readonly #db: Database.Database;
  // Prepared once: db.pragma() prepares its statement at every call, and these run per commit.
  readonly #dataVersion: Database.Statement;
  readonly #totalChanges: Database.Statement;
  readonly #synchronousNormal: Database.Statement;
  readonly #synchronousFull: Database.Statement;

  /** `firstTableId` starts a new catalog's table ids there (a session's temporary tables take ids no shared table has). */
  constructor(path: string, opts: { readonly firstTableId?: number } = {}) {
    this.#db = new Database(path);
    this.key = path === ':memory:' || path === '' ? Symbol('private database') : resolve(path);
    this.#db.defaultSafeIntegers(true);
    this.#db.pragma('busy_timeout = 30000');
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = FULL');
    this.#db.pragma('foreign_keys = OFF');
    this.#dataVersion = this.#db.prepare('PRAGMA data_version').pluck();
    this.#totalChanges = this.#db.prepare('SELECT total_changes()').pluck();
    this.#synchronousNormal = this.#db.prepare('PRAGMA synchronous = NORMAL');
    this.#synchronousFull = this.#db.prepare('PRAGMA synchronous = FULL');
    this.#db.transaction(() => createSqliteSchema(this.#db, opts.firstTableId)).immediate();
  }

  prepare(sql: string): CatalogStatement {
    return this.#db.prepare(sql) as unknown as CatalogStatement;
  }

  get inTransaction(): boolean {
    return this.#db.inTransaction;
  }

  transaction<T>(kind: CatalogTransactionKind, durability: CatalogDurability, fn: () => T): T {
    // Nested, it is a savepoint of the outer transaction and takes its durability.
    if (this.#db.inTransaction) return this.#db.transaction(fn)();
    if (kind === 'read') return this.#db.transaction(fn).deferred();
    if (durability === 'full') return this.#db.transaction(fn).immediate();
    this.#synchronousNormal.run();
    try {
      return this.#db.transaction(fn).immediate();
    } finally {
      this.#synchronousFull.run();
    }
  }

  dataVersion(): bigint {
    return this.#dataVersion.get() as bigint;
  }

  ownChanges(): bigint {
    return this.#totalChanges.get() as bigint;
  }

  close(): void {
    this.#db.close();
  }
}
