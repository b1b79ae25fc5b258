import { Type } from 'apache-arrow';
import { arrowFormOf } from '../arrow/columnar-batch.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';

/**
 * Column `i` of a batch as its Int32Array when it came from Arrow int32 data
 * without NULLs (decoded since or not), so int4 keys are hashed and probed
 * without building JS values; undefined otherwise.
 */
export function int32Column(batch: ColumnarBatch, i: number): Int32Array | undefined {
  const a = arrowFormOf(batch, i);
  if (!a || a.data.typeId !== Type.Int || a.data.nullCount !== 0) return undefined;
  const v = a.data.values as unknown;
  // Fixed-width values are already offset to the data's first row.
  if (!(v instanceof Int32Array) || v.length < batch.numRows) return undefined;
  return v.length === batch.numRows ? v : v.subarray(0, batch.numRows);
}
