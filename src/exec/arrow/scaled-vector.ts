import { Type } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { arrowFormOf } from './columnar-batch.js';
import type { ColumnarBatch } from './columnar-batch.js';
import type { ArrowRowsColumn } from './column-source.js';
import { smallDecimalWords } from '../../common/decimal-words.js';
import { isValid, nullMask } from '../../lake/index.js';
import { intForm } from './int-form.js';

/**
 * A numeric column as exact numbers: row i is unscaled[i] / 10^scale, every
 * unscaled value a safe integer, and one scale for the whole column (what a
 * numeric(p,s) column and + - * over such columns have). NULL rows have
 * valid[i] = 0 and an unspecified unscaled value; valid is absent when no row is NULL.
 * Arithmetic and sums over it never build the text form numeric values take elsewhere.
 */
export interface ScaledVector {
  readonly length: number;
  readonly unscaled: Float64Array;
  readonly scale: number;
  readonly valid: Uint8Array | undefined;
}

/** Views already built per Arrow data (null: the data has no exact view). */
const views = new WeakMap<Data, ScaledVector | null>();

/** Views of columns read through a row selection (no gathered Data to key them by). */
const selectedViews = new WeakMap<ArrowRowsColumn, ScaledVector | null>();

/**
 * Column `i` of a batch as a ScaledVector, when it came from Arrow Decimal data
 * whose values all fit in safe integers; undefined otherwise (callers then use
 * the canonical text values).
 */
export function scaledColumn(batch: ColumnarBatch, i: number): ScaledVector | undefined {
  const form = arrowFormOf(batch, i);
  if (form === undefined || form.type.kind !== 'numeric') return undefined;
  switch (form.kind) {
    case 'arrow': {
      let v = views.get(form.base);
      if (v === undefined) {
        v = decimalView(form.base) ?? null;
        views.set(form.base, v);
      }
      return v ?? undefined;
    }
    case 'arrowRows': {
      // Read at the column's rows: no gathered copy first.
      let v = selectedViews.get(form);
      if (v === undefined) {
        v = decimalView(form.base, form.rows) ?? null;
        selectedViews.set(form, v);
      }
      return v ?? undefined;
    }
  }
}

/**
 * Column `i` of int2/int4 Arrow data as a ScaledVector at scale 0 (an int cast to
 * numeric: `price * int_quantity` casts the int column), read
 * through the batch's row selection; undefined when it is not such data.
 */
export function intColumnScaled(batch: ColumnarBatch, i: number): ScaledVector | undefined {
  const f = intForm(batch, i);
  if (f === undefined || f.date) return undefined;
  const { values, rows, nulls, offset } = f;
  const n = rows?.length ?? batch.numRows;
  const unscaled = new Float64Array(n);
  if (rows === undefined) for (let k = 0; k < n; k++) unscaled[k] = values[k]!;
  else for (let k = 0; k < n; k++) unscaled[k] = values[rows[k]!]!;
  let valid: Uint8Array | undefined;
  if (nulls !== undefined) {
    valid = new Uint8Array(n);
    for (let k = 0; k < n; k++) valid[k] = isValid(nulls, offset, rows === undefined ? k : rows[k]!) ? 1 : 0;
  }
  return { length: n, unscaled, scale: 0, valid };
}

/** Rows `rows` of `data` (all rows when undefined) as a ScaledVector. */
function decimalView(data: Data, rows?: Int32Array): ScaledVector | undefined {
  if (data.typeId !== Type.Decimal) return undefined;
  const t = data.type as unknown as { scale: number; bitWidth?: number };
  if (t.scale < 0) return undefined;
  const bw = (t.bitWidth ?? 128) / 32;
  const words = data.values as Uint32Array;
  const n = rows?.length ?? data.length;
  const unscaled = new Float64Array(n);
  let valid: Uint8Array | undefined;
  const mask = nullMask(data);
  if (mask === undefined && bw === 4) return decimal128Words(words, rows, unscaled) ? { length: n, unscaled, scale: t.scale, valid } : undefined;
  if (mask === undefined && bw === 2) return decimal64Words(words, rows, unscaled) ? { length: n, unscaled, scale: t.scale, valid } : undefined;
  if (mask !== undefined) {
    valid = new Uint8Array(n);
    for (let k = 0; k < n; k++) valid[k] = isValid(mask, data.offset, rows === undefined ? k : rows[k]!) ? 1 : 0;
  }
  for (let k = 0; k < n; k++) {
    if (valid !== undefined && valid[k] === 0) continue;
    const u = smallDecimalWords(words, (rows === undefined ? k : rows[k]!) * bw, bw);
    if (u !== u) return undefined;
    unscaled[k] = u;
  }
  return { length: n, unscaled, scale: t.scale, valid };
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** decimal128Words over Decimal64 words (what a scan reads numeric(p ≤ 18) as): no upper words to check. */
function decimal64Words(words: Uint32Array, rows: Int32Array | undefined, out: Float64Array): boolean {
  const n = out.length;
  for (let k = 0; k < n; k++) {
    const o = (rows === undefined ? k : rows[k]!) * 2;
    const v = (words[o + 1]! | 0) * 4294967296 + words[o]!;
    if (v > MAX_SAFE || v < -MAX_SAFE) return false;
    out[k] = v;
  }
  return true;
}

/**
 * smallDecimalWords over every row of Decimal128 words without NULLs, inlined:
 * the rows of a scan's numeric(15,2) columns (about 25 ns a value through the
 * general loop). False when a value is not a safe integer.
 */
function decimal128Words(words: Uint32Array, rows: Int32Array | undefined, out: Float64Array): boolean {
  const n = out.length;
  for (let k = 0; k < n; k++) {
    const o = (rows === undefined ? k : rows[k]!) * 4;
    const hi = words[o + 1]! | 0;
    // The upper words must be hi's sign extension.
    const ext = hi >> 31;
    if ((words[o + 2]! | 0) !== ext || (words[o + 3]! | 0) !== ext) return false;
    const v = hi * 4294967296 + words[o]!;
    if (v > MAX_SAFE || v < -MAX_SAFE) return false;
    out[k] = v;
  }
  return true;
}
