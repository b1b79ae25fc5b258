/** Random access to one column's canonical values (src/common/sql-type.ts). */
export interface ColumnAccessor {
  get(i: number): unknown;
}
