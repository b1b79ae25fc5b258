import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import type { ColumnAccessor } from './column-accessor.js';

export type { ColumnAccessor } from './column-accessor.js';

/** Iceberg's single-value serialization of one canonical value, as hashed by the bucket transform. */
export function keyValueBytes(type: SqlType, value: unknown): Uint8Array {
  void type; void value;
  throw new Error('not implemented');
}

export function hashKey(types: readonly SqlType[], values: readonly unknown[]): number {
  void types; void values;
  throw new Error('not implemented');
}

export function hashKeyColumns(types: readonly SqlType[], columns: readonly ColumnAccessor[], numRows: number): Uint32Array {
  void types; void columns; void numRows;
  throw new Error('not implemented');
}

export function hashKeyBatch(batch: RecordBatch, keyColumns: readonly string[], types: readonly SqlType[]): Uint32Array {
  void batch; void keyColumns; void types;
  throw new Error('not implemented');
}
