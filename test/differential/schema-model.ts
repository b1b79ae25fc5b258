/** What the generator believes the schema is; updated from PostgreSQL's outcome of each DDL. */
export type ColumnType = 'int' | 'bigint' | 'text' | 'date' | 'varchar';

export interface ColumnModel {
  name: string;
  type: ColumnType;
  /** varchar(n) only. */
  length?: number;
  notNull: boolean;
}

export interface TableModel {
  readonly name: string;
  columns: ColumnModel[];
  /** Primary-key column names; empty for an append table. */
  readonly key: readonly string[];
  /** The partition column, when the table is partitioned. */
  readonly partitionColumn?: string;
}

export function columnSqlType(c: ColumnModel): string {
  return c.type === 'varchar' ? `varchar(${c.length ?? 8})` : c.type;
}

export function isIntegral(c: ColumnModel): boolean {
  return c.type === 'int' || c.type === 'bigint';
}

export function isTextual(c: ColumnModel): boolean {
  return c.type === 'text' || c.type === 'varchar';
}

export function nonKeyColumns(t: TableModel): ColumnModel[] {
  return t.columns.filter((c) => !t.key.includes(c.name));
}

export function keyColumns(t: TableModel): ColumnModel[] {
  return t.key.map((k) => t.columns.find((c) => c.name === k)!);
}
