import { Type } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { arrowFormOf } from './columnar-batch.js';
import type { ColumnarBatch } from './columnar-batch.js';
import { smallDecimalWords } from '../../common/decimal-words.js';

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

/**
 * Column `i` of a batch as a ScaledVector, when it came from Arrow Decimal data
 * whose values all fit in safe integers; undefined otherwise (callers then use
 * the canonical text values).
 */
export function scaledColumn(batch: ColumnarBatch, i: number): ScaledVector | undefined {
  const form = arrowFormOf(batch, i);
  if (form === undefined || form.type.kind !== 'numeric') return undefined;
  const data = form.data;
  let v = views.get(data);
  if (v === undefined) {
    v = decimalView(data) ?? null;
    views.set(data, v);
  }
  return v ?? undefined;
}

function decimalView(data: Data): ScaledVector | undefined {
  if (data.typeId !== Type.Decimal) return undefined;
  const t = data.type as unknown as { scale: number; bitWidth?: number };
  if (t.scale < 0) return undefined;
  const bw = (t.bitWidth ?? 128) / 32;
  const words = data.values as Uint32Array;
  const n = data.length;
  const unscaled = new Float64Array(n);
  let valid: Uint8Array | undefined;
  if (data.nullCount > 0 && data.nullBitmap && data.nullBitmap.length > 0) {
    valid = new Uint8Array(n);
    const bm = data.nullBitmap;
    for (let i = 0; i < n; i++) { const j = data.offset + i; valid[i] = (bm[j >> 3]! >> (j & 7)) & 1; }
  }
  for (let i = 0; i < n; i++) {
    if (valid !== undefined && valid[i] === 0) continue;
    const u = smallDecimalWords(words, i * bw, bw);
    if (u !== u) return undefined;
    unscaled[i] = u;
  }
  return { length: n, unscaled, scale: t.scale, valid };
}
