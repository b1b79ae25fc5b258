import { makeData } from 'apache-arrow';
import type { Data, DataType } from 'apache-arrow';
import type { DenseValues, Dictionary, Target } from './parquet-column-chunk.js';

const mk = makeData as unknown as (props: Record<string, unknown>) => Data;

/**
 * The Arrow column of a decoded chunk at rows `at` only (ascending), in new memory:
 * a scan whose filters keep few rows converts and copies just those (a large table
 * keeps 0.1%, and turning every INT64 into a Decimal128 cost 5–8 ns a value).
 * `dense` holds the chunk's non-NULL values in order; `levels` (absent: no NULLs)
 * says which rows have one.
 */
export function arrowDataAt(type: DataType, target: Target, dense: DenseValues, levels: Int32Array | undefined, at: Int32Array, dictionary: Dictionary | undefined): Data {
  const n = at.length;
  // Where each chosen row's value lies among the dense values; -1 for a NULL.
  const from = levels === undefined ? at : densePositions(levels, at, n);
  let nullCount = 0;
  let nullBitmap: Uint8Array | undefined;
  if (levels !== undefined) {
    nullBitmap = new Uint8Array((n + 7) >> 3);
    for (let k = 0; k < n; k++) {
      if (from[k]! >= 0) nullBitmap[k >> 3]! |= 1 << (k & 7);
      else nullCount++;
    }
    if (nullCount === 0) nullBitmap = undefined;
  }
  const base = { type, offset: 0, length: n, nullCount, nullBitmap };
  switch (target.kind) {
    case 'bytes': {
      const offsets = new Int32Array(n + 1);
      if (dense.byIndex !== undefined) {
        const bytes = dictionaryStrings(dense.byIndex, from, dictionary!.offsets, dictionary!.bytes, offsets);
        return mk({ ...base, valueOffsets: offsets, data: bytes });
      }
      const starts = dense.offsets;
      const source = dense.bytes;
      let total = 0;
      for (let k = 0; k < n; k++) if (from[k]! >= 0) total += starts[from[k]! + 1]! - starts[from[k]!]!;
      const bytes = new Uint8Array(total);
      let used = 0;
      for (let k = 0; k < n; k++) {
        if (from[k]! >= 0) {
          const s = starts[from[k]!]!;
          const e = starts[from[k]! + 1]!;
          bytes.set(source.subarray(s, e), used);
          used += e - s;
        }
        offsets[k + 1] = used;
      }
      return mk({ ...base, valueOffsets: offsets, data: bytes });
    }
    case 'bool': {
      const bits = new Uint8Array((n + 7) >> 3);
      for (let k = 0; k < n; k++) if (from[k]! >= 0 && dense.flags[from[k]!]) bits[k >> 3]! |= 1 << (k & 7);
      return mk({ ...base, data: bits });
    }
    case 'same': {
      const w = target.width;
      const out = new Uint8Array(n * w);
      if (w === 4 || w === 8) {
        const words = w >> 2;
        const src = new Int32Array(dense.fixed.buffer, dense.fixed.byteOffset, dense.fixed.length >> 2);
        const dst = new Int32Array(out.buffer);
        for (let k = 0; k < n; k++) {
          const j = from[k]!;
          if (j >= 0) for (let x = 0; x < words; x++) dst[k * words + x] = src[j * words + x]!;
        }
      } else {
        for (let k = 0; k < n; k++) if (from[k]! >= 0) out.set(dense.fixed.subarray(from[k]! * w, from[k]! * w + w), k * w);
      }
      const ArrayType = (type as unknown as { ArrayType: new (b: ArrayBufferLike, o: number, n: number) => ArrayLike<unknown> }).ArrayType;
      const per = (ArrayType as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
      return mk({ ...base, data: new ArrayType(out.buffer, 0, (n * w) / per) });
    }
    case 'narrow': {
      const src = new Int32Array(dense.fixed.buffer, dense.fixed.byteOffset, dense.count);
      const out = target.bytes === 2 ? new Int16Array(n) : new Int8Array(n);
      for (let k = 0; k < n; k++) if (from[k]! >= 0) out[k] = src[from[k]!]!;
      return mk({ ...base, data: out });
    }
    case 'decimal': {
      const out = new Int32Array(n * 4);
      widenDecimals(dense.fixed, dense.count, target.width, from, n, out);
      return mk({ ...base, data: new Uint32Array(out.buffer) });
    }
  }
}

/**
 * For rows `at` (all `n` rows of the chunk when undefined), where each one's value
 * lies among the dense (non-NULL) values, as `levels` (1: a value) place them; -1 for a NULL.
 */
export function densePositions(levels: Int32Array, at: Int32Array | undefined, n: number): Int32Array {
  const from = new Int32Array(n);
  let dense = 0;
  let row = 0;
  for (let k = 0; k < n; k++) {
    const r = at === undefined ? k : at[k]!;
    while (row < r) dense += levels[row++]!;
    from[k] = levels[r] === 1 ? dense : -1;
  }
  return from;
}

/**
 * Decimal128 words in `out[4k…]` for dense value `from[k]` (value k when `from` is
 * absent; -1: NULL, written as zeros) of `count` unscaled decimals of `width` bytes
 * each in `src`: little-endian INT32/INT64, or big-endian two's complement (FLBA).
 * Written as signed words: storing a negative number into a Uint32Array takes V8's slow path.
 */
export function widenDecimals(src: Uint8Array, count: number, width: number, from: Int32Array | undefined, n: number, out: Int32Array): void {
  if (width === 4 || width === 8) {
    const step = width >> 2;
    const words = new Int32Array(src.buffer, src.byteOffset, count * step);
    for (let k = 0; k < n; k++) {
      const j = from === undefined ? k : from[k]!;
      if (j < 0) { out[4 * k] = 0; out[4 * k + 1] = 0; out[4 * k + 2] = 0; out[4 * k + 3] = 0; continue; }
      const lo = words[j * step]!;
      const hi = step === 2 ? words[j * 2 + 1]! : lo >> 31;
      out[4 * k] = lo;
      out[4 * k + 1] = hi;
      out[4 * k + 2] = hi >> 31;
      out[4 * k + 3] = hi >> 31;
    }
    return;
  }
  const bytes = new Uint8Array(out.buffer, out.byteOffset, n * 16);
  for (let k = 0; k < n; k++) {
    const j = from === undefined ? k : from[k]!;
    if (j < 0) { bytes.fill(0, 16 * k, 16 * k + 16); continue; }
    const s = j * width;
    const fill = (src[s]! & 0x80) !== 0 ? 0xff : 0;
    for (let b = 0; b < 16; b++) bytes[16 * k + b] = b < width ? src[s + width - 1 - b]! : fill;
  }
}

/**
 * Rows `rows` of a column of dictionary codes (decodeDictionaryCodes: Int32 codes, no
 * NULLs) as Utf8 strings, in new memory of their own.
 */
export function stringsAtRows(codes: Data, rows: Int32Array): Data {
  const values = (codes.dictionary as unknown as { data: readonly Data[] }).data[0]!;
  const ids = (codes.values as Int32Array).subarray(codes.offset);
  const offsets = new Int32Array(rows.length + 1);
  const bytes = dictionaryStrings(ids, rows, values.valueOffsets as Int32Array, values.values as Uint8Array, offsets);
  return makeData({ type: values.type, offset: 0, length: rows.length, nullCount: 0, valueOffsets: offsets, data: bytes } as never);
}

/**
 * The strings of dictionary indices ids[from[k]] (from[k] = -1: a NULL, empty) out of
 * the dictionary's `starts` and `source`, in new memory; `offsets` (from.length + 1)
 * receives their offsets.
 */
function dictionaryStrings(ids: Int32Array, from: Int32Array, starts: Int32Array, source: Uint8Array, offsets: Int32Array): Uint8Array {
  const n = from.length;
  let total = 0;
  for (let k = 0; k < n; k++) if (from[k]! >= 0) total += starts[ids[from[k]!]! + 1]! - starts[ids[from[k]!]!]!;
  const bytes = new Uint8Array(total);
  let used = 0;
  for (let k = 0; k < n; k++) {
    if (from[k]! >= 0) {
      const x = ids[from[k]!]!;
      for (let i = starts[x]!; i < starts[x + 1]!; i++) bytes[used++] = source[i]!;
    }
    offsets[k + 1] = used;
  }
  return bytes;
}
