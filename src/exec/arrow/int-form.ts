import { Type } from 'apache-arrow';
import { nullMask } from '../../lake/index.js';
import { arrowFormOf } from './columnar-batch.js';
import type { ColumnarBatch } from './columnar-batch.js';

/**
 * A column's int values where they lie: its Arrow buffer (int16/int32 data, or
 * date32 days), the rows of it the batch stands for while not gathered (row j
 * of the batch is values[rows[j]]), and its null bitmap. Reading values through
 * this spares decoding and gathering the column.
 */
export interface IntForm {
  readonly values: Int32Array | Int16Array;
  readonly rows: Int32Array | undefined;
  readonly nulls: Uint8Array | undefined;
  readonly offset: number;
  /** Date32 days rather than an integer type. */
  readonly date: boolean;
}

/** Column `i`'s IntForm, or undefined when it is not such Arrow data. */
export function intForm(b: ColumnarBatch, i: number): IntForm | undefined {
  const form = arrowFormOf(b, i);
  if (form === undefined) return undefined;
  // Read through the column's rows: no gathered copy first.
  const { base: data, rows } = form;
  const date = data.typeId === Type.Date && (data.type as unknown as { unit: number }).unit === 0;
  if (data.typeId !== Type.Int && !date) return undefined;
  const values = data.values as unknown;
  if (!(values instanceof Int32Array || values instanceof Int16Array)) return undefined;
  return { values, rows, nulls: nullMask(data), offset: data.offset, date };
}
