import { Decimal as ArrowDecimal, Int64, makeData } from 'apache-arrow';
import type { Data } from 'apache-arrow';

// The columnar aggregate forms' (ColumnarAggregate) shared parts: many groups' states in typed arrays.

export type TypedColumn = Float64Array | Int32Array | Uint8Array;

/** `a`, or a copy with room for at least n entries (capacity doubles; new entries are zero). */
export function room<A extends TypedColumn>(a: A, n: number): A {
  if (n <= a.length) return a;
  let cap = Math.max(16, a.length * 2);
  while (cap < n) cap *= 2;
  const b = new (a.constructor as new (length: number) => A)(cap);
  b.set(a);
  return b;
}

/** The object states of groups below n, for export. */
export function statesBelow<S>(m: Map<number, S>, n: number): [number, S][] {
  const out: [number, S][] = [];
  for (const [g, st] of m) if (g < n) out.push([g, st]);
  return out;
}

/** Validity of groups whose count is not zero (no bitmap when none is zero). */
function nonZeroValidity(cnt: Float64Array, n: number): { nullBitmap: Uint8Array | undefined; nullCount: number } {
  let nullCount = 0;
  for (let g = 0; g < n; g++) if (cnt[g] === 0) nullCount++;
  if (nullCount === 0) return { nullBitmap: undefined, nullCount };
  const nullBitmap = new Uint8Array((n + 7) >> 3);
  for (let g = 0; g < n; g++) if (cnt[g] !== 0) nullBitmap[g >> 3]! |= 1 << (g & 7);
  return { nullBitmap, nullCount };
}

/** Integer-valued doubles below 2^53 as little-endian two's complement, `words` 32-bit words each (2: Int64, 4: Decimal128). */
function wideInts(v: Float64Array, n: number, words: number): Uint32Array {
  const out = new Uint32Array(n * words);
  for (let g = 0; g < n; g++) {
    const x = v[g]!;
    const hi = Math.floor(x / 4294967296);
    const o = g * words;
    out[o] = x >>> 0;
    out[o + 1] = hi;
    if (hi < 0) for (let w = 2; w < words; w++) out[o + w] = 0xffffffff;
  }
  return out;
}

export function int64Data(v: Float64Array, n: number, cnt: Float64Array | undefined): Data {
  const { nullBitmap, nullCount } = cnt ? nonZeroValidity(cnt, n) : { nullBitmap: undefined, nullCount: 0 };
  return makeData({ type: new Int64(), length: n, nullCount, nullBitmap, data: new BigInt64Array(wideInts(v, n, 2).buffer) });
}

export function decimalData(v: Float64Array, n: number, scale: number, cnt: Float64Array): Data {
  const { nullBitmap, nullCount } = nonZeroValidity(cnt, n);
  return makeData({ type: new ArrowDecimal(scale, 38, 128), length: n, nullCount, nullBitmap, data: wideInts(v, n, 4) });
}
