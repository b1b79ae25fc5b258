import type { SqlType } from '../common/sql-type.js';

/** One output column of a statement, with what RowDescription needs beyond the type. */
export interface ResultColumn {
  readonly name: string;
  readonly type: SqlType;
  /** pg_class oid of the table the column comes straight from, else 0. */
  readonly tableOid: number;
  /** attnum in that table (1-based), else 0. */
  readonly columnNumber: number;
}
