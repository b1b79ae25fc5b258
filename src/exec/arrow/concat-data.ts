import { Type, makeData } from 'apache-arrow';
import type { Data } from 'apache-arrow';

type TypedArray = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

const mk = makeData as unknown as (props: Record<string, unknown>) => Data;

/**
 * The rows of several Data chunks of one type as a single Data (buffers copied
 * once), so a materialized input (a join's build side) can keep columns nobody
 * reads in Arrow form. Handles fixed-width types, Utf8 and Bool; undefined for
 * anything else (dictionaries, lists, structs, views) and for chunks whose types
 * differ (Decimal64 beside Decimal128), which callers decode instead.
 */
export function concatData(chunks: readonly Data[]): Data | undefined {
  if (chunks.length === 0) return undefined;
  if (chunks.length === 1) return chunks[0];
  const first = chunks[0]!;
  const typeText = String(first.type);
  // The stride tells Decimal64 from Decimal128 (scans narrow only the rows no merge touched), which print alike.
  for (const c of chunks) if (c.typeId !== first.typeId || String(c.type) !== typeText || c.stride !== first.stride) return undefined;
  let n = 0;
  let nullCount = 0;
  for (const c of chunks) { n += c.length; nullCount += c.nullCount; }
  const nullBitmap = nullCount > 0 ? concatValidity(chunks, n) : undefined;
  const base = { type: first.type, length: n, nullCount, nullBitmap };
  switch (first.typeId) {
    case Type.Int: case Type.Float: case Type.Date: case Type.Time: case Type.Timestamp: case Type.Decimal: {
      const stride = first.stride;
      const proto = first.values as TypedArray;
      const out = new (proto.constructor as new (n: number) => TypedArray)(n * stride);
      let pos = 0;
      for (const c of chunks) {
        (out as Int32Array).set((c.values as Int32Array).subarray(0, c.length * stride), pos);
        pos += c.length * stride;
      }
      return mk({ ...base, data: out });
    }
    case Type.Utf8: {
      let bytes = 0;
      for (const c of chunks) { const o = c.valueOffsets as Int32Array; bytes += o[c.length]! - o[0]!; }
      const data = new Uint8Array(bytes);
      const offsets = new Int32Array(n + 1);
      let row = 0;
      let at = 0;
      for (const c of chunks) {
        const o = c.valueOffsets as Int32Array;
        const start = o[0]!;
        const len = o[c.length]! - start;
        data.set((c.values as Uint8Array).subarray(start, start + len), at);
        for (let i = 1; i <= c.length; i++) offsets[row + i] = o[i]! - start + at;
        row += c.length;
        at += len;
      }
      return mk({ ...base, valueOffsets: offsets, data });
    }
    case Type.Bool: {
      const out = new Uint8Array((n + 7) >> 3);
      let row = 0;
      for (const c of chunks) {
        const bits = c.values as Uint8Array;
        for (let i = 0; i < c.length; i++, row++) {
          const p = c.offset + i;
          if ((bits[p >> 3]! >> (p & 7)) & 1) out[row >> 3]! |= 1 << (row & 7);
        }
      }
      return mk({ ...base, data: out });
    }
    default:
      return undefined;
  }
}

function concatValidity(chunks: readonly Data[], n: number): Uint8Array {
  const out = new Uint8Array((n + 7) >> 3);
  let row = 0;
  for (const c of chunks) {
    const bm = c.nullCount > 0 ? c.nullBitmap : undefined;
    for (let i = 0; i < c.length; i++, row++) {
      const p = c.offset + i;
      if (bm === undefined || bm.length === 0 || ((bm[p >> 3]! >> (p & 7)) & 1)) out[row >> 3]! |= 1 << (row & 7);
    }
  }
  return out;
}
