import type { SqlType } from '../../common/sql-type.js';
import type { PartitionField } from '../partition/partition-transform.js';

/** A column as CREATE TABLE gives it. */
export interface ColumnDefinition {
  readonly name: string;
  readonly type: SqlType;
  readonly nullable: boolean;
  readonly defaultExpr?: string;
}

export interface TableDefinition {
  readonly namespace: string;
  readonly name: string;
  readonly columns: readonly ColumnDefinition[];
  /** Makes the table keyed (change store + base store); absent or empty: an append table. */
  readonly primaryKey?: readonly string[];
  readonly partitionBy?: readonly PartitionField[];
  readonly properties?: Readonly<Record<string, string>>;
}

/** A column with its stable field id: renames keep the id, a dropped id is never reused. */
export interface ColumnMetadata extends ColumnDefinition {
  readonly fieldId: number;
}

export interface TableMetadata {
  /** Stable and unique across the warehouse; also the table's pg_class oid (starts at 16384). */
  readonly id: number;
  readonly namespace: string;
  readonly name: string;
  readonly columns: readonly ColumnMetadata[];
  readonly primaryKey: readonly string[];
  readonly partitionBy: readonly PartitionField[];
  readonly properties: Readonly<Record<string, string>>;
  readonly schemaId: number;
}

export type AlterTableChange =
  | { readonly kind: 'addColumn'; readonly column: ColumnDefinition; readonly ifNotExists?: boolean }
  | { readonly kind: 'dropColumn'; readonly name: string; readonly ifExists?: boolean }
  | { readonly kind: 'renameColumn'; readonly from: string; readonly to: string }
  | { readonly kind: 'renameTable'; readonly to: string }
  | { readonly kind: 'setProperties'; readonly properties: Readonly<Record<string, string>> }
  | { readonly kind: 'resetProperties'; readonly keys: readonly string[] };
