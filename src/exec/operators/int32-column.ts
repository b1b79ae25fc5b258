import { Type } from 'apache-arrow';
import { arrowFormOf } from '../arrow/columnar-batch.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import { intForm } from '../arrow/int-form.js';

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

/**
 * Column `i`'s int32 values where they lie: the Arrow buffer of NULL-free int32
 * data and, while the column still stands for some rows of it, those rows (row
 * j of the batch is values[rows[j]]). Reading a key per row through this spares
 * gathering the column first; undefined when the column is not such data.
 */
export function int32Values(batch: ColumnarBatch, i: number): { values: Int32Array; rows: Int32Array | undefined } | undefined {
  const f = intForm(batch, i);
  if (f === undefined || f.date || f.nulls !== undefined || !(f.values instanceof Int32Array)) return undefined;
  return { values: f.values, rows: f.rows };
}
