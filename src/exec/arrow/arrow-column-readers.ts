import type { RecordBatch, Vector } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import type { ColumnReader, RowBatch } from '../../wire/session-handler.js';
import { vectorToValues } from './vector-values.js';

/**
 * The wire's ColumnReaders (canonical values by row) for an executor batch.
 * Each column is decoded once, on first access.
 */
export function arrowColumnReaders(batch: RecordBatch, types: readonly SqlType[]): ColumnReader[] {
  return types.map((t, i) => {
    let values: unknown[] | undefined;
    return {
      get(row: number): unknown {
        values ??= vectorToValues(batch.getChildAt(i) as Vector, t);
        const v = values[row];
        return v === undefined ? null : v;
      },
    };
  });
}

/** An executor batch as the wire's RowBatch. */
export function arrowToRowBatch(batch: RecordBatch, types: readonly SqlType[]): RowBatch {
  return { numRows: batch.numRows, columns: arrowColumnReaders(batch, types) };
}
