import { DataType } from 'apache-arrow';
import type { Data, Vector } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import type { ColumnAccessor } from '../bucket/column-accessor.js';
import { formatDecimal, formatDecimalNumber } from './decimal-text.js';
import { isMultidimArrowType, nestArray } from './multidim-array.js';
import { decodeUtf8 } from './utf8.js';
import { bytesToUuid } from './uuid-bytes.js';

/**
 * Canonical values (src/common/sql-type.ts) out of an Arrow column, read from the raw
 * buffers: Arrow JS's own `get` turns µs timestamps into ms numbers and decimals into
 * opaque objects. Accepts what Floe writes (src/lake/arrow/arrow-type.ts) and the
 * close variants other writers produce (LargeUtf8, dictionaries, other time units).
 */
export function columnReader(vector: Vector, type: SqlType): ColumnAccessor {
  const chunks = vector.data;
  if (chunks.length === 1) return dataReader(chunks[0]!, type);
  const readers = chunks.map((d) => dataReader(d, type));
  const starts = new Int32Array(chunks.length + 1);
  for (let c = 0; c < chunks.length; c++) starts[c + 1] = starts[c]! + chunks[c]!.length;
  return {
    get(i: number): unknown {
      let lo = 0;
      let hi = chunks.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= i) lo = mid;
        else hi = mid - 1;
      }
      return readers[lo]!.get(i - starts[lo]!);
    },
  };
}

/** A reader over one Data chunk; index 0 is the chunk's first logical row (its offset is applied). */
export function dataReader(data: Data, type: SqlType): ColumnAccessor {
  const inner = valueReader(data, type);
  if (data.nullCount === 0 || data.nullBitmap === undefined || data.nullBitmap.length === 0) return inner;
  const bitmap = data.nullBitmap;
  const offset = data.offset;
  return {
    get(i: number): unknown {
      const p = offset + i;
      return (bitmap[p >> 3]! >> (p & 7)) & 1 ? inner.get(i) : null;
    },
  };
}

/**
 * The bitmap to test a chunk's rows against, or undefined when no row is NULL. Read
 * it once per chunk in a loop: Arrow JS's nullCount is a getter that checks for
 * unions on every call.
 */
export function nullMask(data: Data): Uint8Array | undefined {
  if (data.nullCount === 0) return undefined;
  const bm = data.nullBitmap;
  return bm && bm.length > 0 ? bm : undefined;
}

/** Row i of a chunk is valid (not NULL) under its `nullMask` and offset. */
export function isValid(mask: Uint8Array | undefined, offset: number, i: number): boolean {
  if (mask === undefined) return true;
  const p = offset + i;
  return ((mask[p >> 3]! >> (p & 7)) & 1) === 1;
}

/** True when row i of the chunk is valid (not NULL). */
export function isValidAt(data: Data, i: number): boolean {
  return isValid(nullMask(data), data.offset, i);
}

const UNIT_TO_MICROS = [1_000_000n, 1_000n, 1n, 0n];

function toMicros(unit: number): (v: bigint) => bigint {
  if (unit === 2) return (v) => v;
  if (unit === 3) return (v) => v / 1000n;
  const m = UNIT_TO_MICROS[unit]!;
  return (v) => v * m;
}

function valueReader(data: Data, type: SqlType): ColumnAccessor {
  const t = data.type as DataType;
  if (DataType.isDictionary(t)) {
    const dict = (data as unknown as { dictionary: Vector }).dictionary;
    const values = columnReader(dict, type);
    const idx = data.values as ArrayLike<number | bigint>;
    return { get: (i) => values.get(Number(idx[i]!)) };
  }
  if (DataType.isUtf8(t) || DataType.isLargeUtf8(t) || DataType.isBinary(t) || DataType.isLargeBinary(t)) {
    const bytes = data.values as Uint8Array;
    const offs = data.valueOffsets as ArrayLike<number | bigint>;
    const isText = DataType.isUtf8(t) || DataType.isLargeUtf8(t);
    if (isText) return { get: (i) => decodeUtf8(bytes, Number(offs[i]!), Number(offs[i + 1]!)) };
    return { get: (i) => bytes.slice(Number(offs[i]!), Number(offs[i + 1]!)) };
  }
  if (type.kind === 'array' && isMultidimArrowType(t)) {
    const dims = dataReader(data.children[0]!, { kind: 'array', element: { kind: 'int4' } });
    const items = dataReader(data.children[1]!, type);
    return { get: (i) => nestArray(dims.get(i) as number[], items.get(i) as unknown[]) };
  }
  switch (type.kind) {
    case 'bool': {
      const bits = data.values as Uint8Array;
      const off = data.offset;
      return { get: (i) => ((bits[(off + i) >> 3]! >> ((off + i) & 7)) & 1) === 1 };
    }
    case 'int2': case 'int4': case 'float4': case 'float8': {
      const v = data.values as ArrayLike<number | bigint>;
      if (v instanceof BigInt64Array) return { get: (i) => Number(v[i]!) };
      return { get: (i) => v[i] as number };
    }
    case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure': {
      const v = data.values as ArrayLike<number>;
      return { get: (i) => Number(v[i]!) >>> 0 };
    }
    case 'int8': case 'timetz': {
      const v = data.values as ArrayLike<number | bigint>;
      if (v instanceof BigInt64Array) return { get: (i) => v[i]! };
      return { get: (i) => BigInt(v[i]!) };
    }
    case 'date': {
      const v = data.values as ArrayLike<number | bigint>;
      if (v instanceof Int32Array) {
        return {
          get(i) {
            const d = v[i]!;
            return d === 2147483647 ? Infinity : d === -2147483648 ? -Infinity : d;
          },
        };
      }
      // Date64: milliseconds
      return { get: (i) => Math.floor(Number(v[i]!) / 86_400_000) };
    }
    case 'time': case 'timestamp': case 'timestamptz': {
      const unit = (t as unknown as { unit: number }).unit;
      const conv = toMicros(unit);
      const v = data.values as ArrayLike<number | bigint>;
      if (v instanceof BigInt64Array) return unit === 2 ? { get: (i) => v[i]! } : { get: (i) => conv(v[i]!) };
      return { get: (i) => conv(BigInt(v[i]!)) };
    }
    case 'numeric': {
      if (!DataType.isDecimal(t)) return { get: (i) => String((data.values as ArrayLike<unknown>)[i]) };
      const scale = (t as unknown as { scale: number }).scale;
      const words = data.values as Uint32Array;
      if ((t as unknown as { bitWidth: number }).bitWidth === 64) {
        // Decimal64 (a scan's narrowed numeric): two words, BigInt only beyond ±2^53.
        return {
          get(i) {
            const v = (words[2 * i + 1]! | 0) * 4294967296 + words[2 * i]!;
            if (v <= Number.MAX_SAFE_INTEGER && v >= -Number.MAX_SAFE_INTEGER) return formatDecimalNumber(v, scale);
            return formatDecimal(BigInt.asIntN(64, (BigInt(words[2 * i + 1]!) << 32n) | BigInt(words[2 * i]!)), scale);
          },
        };
      }
      // BigUint64Array needs 8-byte alignment; buffers sliced out of IPC bytes may lack it
      let bigWords: BigUint64Array | undefined;
      const wide = () => bigWords ??= words.byteOffset % 8 === 0
        ? new BigUint64Array(words.buffer, words.byteOffset, words.length >> 1)
        : new BigUint64Array(words.slice().buffer);
      return {
        get(i) {
          // values within ±2^53 format from two words as a plain number; BigInt only beyond
          const w0 = words[4 * i]!;
          const w1 = words[4 * i + 1]!;
          const w2 = words[4 * i + 2]!;
          const w3 = words[4 * i + 3]!;
          if (w3 === 0 && w2 === 0 && w1 < 0x200000) return formatDecimalNumber(w1 * 4294967296 + w0, scale);
          if (w3 === 0xffffffff && w2 === 0xffffffff && w1 >= 0xffe00000) return formatDecimalNumber((w1 - 4294967296) * 4294967296 + w0, scale);
          const big = wide();
          const unscaled = BigInt.asIntN(128, (big[2 * i + 1]! << 64n) | big[2 * i]!);
          return formatDecimal(unscaled, scale);
        },
      };
    }
    case 'uuid': {
      const bytes = data.values as Uint8Array;
      return { get: (i) => bytesToUuid(bytes, 16 * i) };
    }
    case 'interval': {
      const [m, d, u] = data.children;
      const months = dataReader(m!, { kind: 'int4' });
      const days = dataReader(d!, { kind: 'int4' });
      const micros = dataReader(u!, { kind: 'int8' });
      return { get: (i) => ({ months: months.get(i) as number, days: days.get(i) as number, micros: micros.get(i) as bigint }) };
    }
    case 'array': {
      const offs = data.valueOffsets as ArrayLike<number | bigint>;
      const child = dataReader(data.children[0]!, type.element);
      return {
        get(i) {
          const end = Number(offs[i + 1]!);
          const out: unknown[] = [];
          for (let j = Number(offs[i]!); j < end; j++) out.push(child.get(j));
          return out;
        },
      };
    }
    default: {
      const v = data.values as ArrayLike<unknown>;
      return { get: (i) => v[i] };
    }
  }
}
