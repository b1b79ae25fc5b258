import type { RecordBatch } from 'apache-arrow';
import { takeBatch } from '../arrow/take-rows.js';

/** The rows at `indexes` of a batch, gathered buffer to buffer (deletion vectors, node splits). */
export function takeRows(batch: RecordBatch, indexes: readonly number[] | Int32Array): RecordBatch {
  return takeBatch(batch, indexes instanceof Int32Array ? indexes : Int32Array.from(indexes));
}
