import type { SqlType } from '../../common/sql-type.js';

/** A column visible to name resolution: position in the operator's input row, plus what RowDescription needs. */
export interface ScopeColumn {
  readonly name: string;
  /** The range variable (alias or table name) that exposes it; undefined for unnamed subquery outputs. */
  readonly relation?: string;
  /** The table's schema, for `schema.table.column` references. */
  readonly schema?: string;
  readonly index: number;
  readonly type: SqlType;
  readonly tableOid: number;
  readonly columnNumber: number;
  /** Hidden from `*` (the right side of a JOIN USING column, system columns). */
  readonly hidden?: boolean;
  /** A system column (tableoid): hidden from `*`, yet found by its unqualified name, as PostgreSQL's are. */
  readonly system?: boolean;
  /** A lake table's column: that table's primary key (a grouped key lets a query read its other columns). */
  readonly tablePrimaryKey?: readonly string[];
}

/** One FROM clause's columns, linked to the enclosing query's scope for correlated references. */
export interface Scope {
  readonly columns: readonly ScopeColumn[];
  readonly parent?: Scope;
  /** The query this scope belongs to; set to correlated when it reaches into `parent`. */
  readonly correlation?: { correlated: boolean };
}

export function emptyScope(parent?: Scope): Scope {
  return parent === undefined ? { columns: [] } : { columns: [], parent };
}
