import type { OfferedView } from './materialized-view/rewrite-with-views.js';
import type { SqlType } from '../common/sql-type.js';
import type { TableConstraint, UserTypeMetadata, ViewMetadata } from '../lake/index.js';
import type { VirtualTableRegistry } from './binder/virtual-table.js';
import type { PartitionFieldSpec } from './ddl-command.js';

/**
 * The slice of a lake table's metadata the binder reads. src/lake's TableMetadata
 * satisfies it structurally, so src/sql does not depend on lake internals.
 */
export interface CatalogTable {
  /** Stable id; also the table's pg_class oid. */
  readonly id: number;
  readonly namespace: string;
  readonly name: string;
  readonly columns: readonly {
    readonly name: string;
    readonly type: SqlType;
    readonly nullable: boolean;
    /** Default as SQL expression text, bound when an INSERT omits the column. */
    readonly defaultExpr?: string;
    /** Identity column: values come from nextval of the owned sequence. */
    readonly identity?: { readonly generation: 'always' | 'byDefault'; readonly sequenceId: number };
    /** A materialized view's key or state: out of `*`, read and written by name. */
    readonly hidden?: boolean;
  }[];
  readonly primaryKey: readonly string[];
  readonly partitionBy?: readonly PartitionFieldSpec[];
  readonly properties?: Readonly<Record<string, string>>;
  /** UNIQUE, CHECK and FOREIGN KEY constraints (src/lake's TableConstraint). */
  readonly constraints?: readonly TableConstraint[];
}

/** A view as the binder expands it: src/lake's view record, without the dependencies only DROP reads. */
export type CatalogViewDefinition = Omit<ViewMetadata, 'dependsOn'>;

/** A user-defined type (enum or shell) as the binder reads it: src/lake's record. */
export type CatalogUserType = UserTypeMetadata;

/** What the binder asks the catalog. src/lake's Warehouse satisfies it. */
export interface CatalogReader {
  getTable(namespace: string, name: string): CatalogTable | undefined;
  getSequence?(namespace: string, name: string): { readonly id: number } | undefined;
  getView?(namespace: string, name: string): CatalogViewDefinition | undefined;
  /** The materialized-view record of a table, when it holds one's rows. */
  getMaterializedView?(tableId: number): { readonly populated: boolean } | undefined;
  getType?(namespace: string, name: string): CatalogUserType | undefined;
  /** The session's temporary schema (`pg_temp_N`) once it has made one; its tables resolve before all others. */
  readonly tempNamespace?: string | undefined;
}

/** Everything binding needs from the session. */
export interface BindEnv {
  /** The warehouse (src/lake Warehouse), read through its synchronous getTable. */
  readonly warehouse: CatalogReader;
  /** Schemas to search for unqualified names, in order (pg_catalog is always searched first, as in PostgreSQL). */
  readonly searchPath: readonly string[];
  /** pg_catalog, information_schema and other virtual relations (src/sql/system-catalog). */
  readonly virtualTables: VirtualTableRegistry;
  /**
   * Types the client declared for $1..$n (Parse message); undefined (or an 'unknown' type) means
   * "infer it", as PostgreSQL does for a 0 OID. The bound statement's paramTypes reports the result.
   */
  readonly paramTypes?: readonly (SqlType | undefined)[];
  /** The table's current row count, roughly; the planner picks hash-join build sides by it. */
  readonly estimateRows?: (table: CatalogTable) => number | undefined;
  /**
   * [min, max] of the table's ordered numeric columns (numbers, numeric, dates,
   * timestamps) over its live files' statistics, by column name; the planner's
   * estimates take the share of that span a range filter keeps.
   */
  readonly columnRanges?: (table: CatalogTable) => Readonly<Record<string, readonly [number, number]>> | undefined;
  /**
   * Row-level security for the current role: the policy expressions (SQL text over the
   * table's row) a command on the table must apply — USING filters the rows it sees, WITH
   * CHECK each policy's test of the rows it writes — or undefined when none apply (no row
   * security on the table, a superuser, BYPASSRLS, or its owner without FORCE). Within a
   * view's query, `viewId` names the view: its owner is the role the policies are for.
   */
  readonly rowSecurity?: (tableId: number, command: RowSecurityCommand, viewId?: number) => RowSecurityExprs | undefined;
  /** The materialized view (table id) a refresh is writing: the one relation of its kind a statement may change, read unpopulated. */
  readonly maintainsView?: number;
  /**
   * The materialized views a query reading these tables (ids) may be answered from: fresh
   * enough for the session (floe.mv_rewrite, floe.mv_max_staleness). Absent: no rewriting.
   */
  readonly materializedViews?: (tableIds: readonly number[]) => readonly OfferedView[];
}

export type RowSecurityCommand = 'select' | 'insert' | 'update' | 'delete';

export interface RowSecurityExprs {
  /** The rows the command may see or change; 'false' when no permissive policy lets any through. */
  readonly using?: string;
  /** Each test a written row must pass: the permissive policies' checks combined (name undefined), and each restrictive one by name. */
  readonly checks: readonly { readonly name?: string; readonly expr: string }[];
  /** The USING expressions in the shape of `checks`: how a row the command must be able to see is tested rather than filtered. */
  readonly usingChecks: readonly { readonly name?: string; readonly expr: string }[];
}
