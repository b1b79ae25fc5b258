import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import type { ColumnReader, RowBatch } from '../../common/session-handler.js';
import { decodeBatch } from './columnar-batch.js';

/**
 * The wire's ColumnReaders (canonical values by row) for an executor batch.
 * Batches the executor built are read from the values they were built from,
 * without decoding the Arrow buffers again.
 */
export function arrowColumnReaders(batch: RecordBatch, types: readonly SqlType[]): ColumnReader[] {
  const { columns } = decodeBatch(batch, types);
  return columns.map((values) => ({
    get(row: number): unknown {
      const v = values[row];
      return v === undefined ? null : v;
    },
  }));
}

/** An executor batch as the wire's RowBatch. */
export function arrowToRowBatch(batch: RecordBatch, types: readonly SqlType[]): RowBatch {
  return { numRows: batch.numRows, columns: arrowColumnReaders(batch, types) };
}
