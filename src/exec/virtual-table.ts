import type { SqlType } from '../common/sql-type.js';
import type { ServerFunctions } from './server-functions.js';

/**
 * A relation computed on demand rather than stored in the lake: pg_catalog and
 * information_schema views, and lakehouse system tables. The binder resolves a
 * name to one of these when no lake table claims it, and the executor scans the
 * rows it returns. Rows hold canonical values (src/common/sql-type.ts).
 */
export interface VirtualTable {
  readonly schema: string;
  readonly name: string;
  /** Stable OID, reported in pg_class and RowDescription. */
  readonly oid: number;
  readonly columns: readonly VirtualColumn[];
  rows(ctx: VirtualTableContext): Promise<readonly (readonly unknown[])[]>;
}

export interface VirtualColumn {
  readonly name: string;
  readonly type: SqlType;
  /** A system column (tableoid): not in `*` nor in pg_attribute's user columns, but found by name. */
  readonly system?: boolean;
}

/** What a virtual table may look at: the session's view of the world. */
export interface VirtualTableContext {
  readonly user: string;
  readonly database: string;
  readonly searchPath: readonly string[];
  /** Current values of session settings (SHOW-able names, lower-case). */
  readonly settings: ReadonlyMap<string, string>;
  /** The warehouse (src/lake public API); typed loosely here to keep this contract free of lake internals. */
  readonly warehouse: unknown;
  /** The server's sessions and locks (pg_stat_activity, pg_locks), when a session runs the query. */
  readonly server?: ServerFunctions;
  /** pg_settings's rows, from the session's settings registry (none where no session runs the query). */
  readonly settingRows?: () => readonly Readonly<Record<string, unknown>>[];
  /** The scan's arguments, evaluated when it starts (`table_changes('t', $1, $2)`'s snapshots); none for a plain relation. */
  readonly args?: readonly unknown[];
}

/** Looks up virtual relations by schema and name; implemented by src/sql/system-catalog. */
export interface VirtualTableRegistry {
  lookup(schema: string, name: string): VirtualTable | undefined;
  /** All relations of a schema, for listing (pg_class itself lists them). */
  list(schema?: string): readonly VirtualTable[];
}
