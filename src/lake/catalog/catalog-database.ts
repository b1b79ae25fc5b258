/**
 * The database under the SQL catalog (sql-catalog.ts): SQLite in the warehouse, or a shared
 * PostgreSQL. Synchronous, as the Catalog contract is. Statements are written once, in the
 * subset both speak (`?` parameters, `ON CONFLICT`, `CASE` rather than two-argument max);
 * a driver rewrites what its dialect spells differently (postgres/postgres-sql.ts).
 * Integers come back as bigint, blobs as bytes.
 */
export interface CatalogStatement {
  /** The first row (an object by column name; callers cast it to the row they selected), or undefined. Parameters are positional. */
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /** Rows the statement inserted, updated or deleted. */
  run(...params: unknown[]): { changes: number };
}

/**
 * - `write`: takes the catalog's write lock first, so writers of every process queue as
 *   SQLite's BEGIN IMMEDIATE makes them, and a write sees every commit before it.
 * - `read`: one consistent view for several reads.
 * Inside another transaction either is a savepoint of it: a failure rolls back only its part.
 */
export type CatalogTransactionKind = 'write' | 'read';

/**
 * `full`: durable when it returns. `normal`: may be lost on an OS crash, for writes that
 * something else makes durable (the log store) or whose loss is harmless.
 */
export type CatalogDurability = 'full' | 'normal';

export interface CatalogDatabase {
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * Names the database for every catalog of this thread on it (a file's absolute path, a
   * PostgreSQL URL and schema), or a symbol for one only this catalog can open.
   */
  readonly key: string | symbol;
  /** Prepared once per text by the caller (SqlCatalog keeps them). */
  prepare(sql: string): CatalogStatement;
  transaction<T>(kind: CatalogTransactionKind, durability: CatalogDurability, fn: () => T): T;
  readonly inTransaction: boolean;
  /**
   * Moves whenever another connection commits a change (SQLite's PRAGMA data_version, a
   * version row in PostgreSQL). Costs a read of the database: callers read it once per
   * synchronous run.
   */
  dataVersion(): bigint;
  /** Rows this connection has changed so far, rolled-back ones included (SQLite's total_changes()). */
  ownChanges(): bigint;
  close(): void;
}
