import type { SqlType } from '../../common/sql-type.js';
import { isDecimalNumeric } from '../arrow/arrow-type.js';
import { parseDecimal } from '../arrow/decimal-text.js';

/**
 * A column bound in Iceberg's single-value binary serialization (spec, Appendix D), or
 * undefined when Floe's statistic cannot be written exactly: the bound is then left out,
 * which readers take as "unknown". Floe's min/max (stats/value-order.ts) use the same order
 * as Iceberg for the types written here (integers, dates and times numerically, strings by
 * code point = UTF-8 bytes, binary bytewise, decimals by value, uuids as their bytes).
 * Left out:
 *  - float/double: Floe orders -0 with +0 and NaN above every number; Iceberg wants -0
 *    before +0 and never NaN as a bound;
 *  - bpchar: Floe orders it without trailing blanks;
 *  - numeric stored as text (Iceberg string): Floe orders it by value, not by code point;
 *  - date ±infinity, which has no Iceberg int.
 */
export function singleValue(type: SqlType, value: unknown): Uint8Array | undefined {
  if (value === null || value === undefined) return undefined;
  switch (type.kind) {
    case 'bool': return Uint8Array.of(value === true ? 1 : 0);
    case 'int2': case 'int4': return int32(value as number);
    case 'date': return Number.isFinite(value) ? int32(value as number) : undefined;
    case 'int8': case 'time': case 'timestamp': case 'timestamptz': return int64(BigInt(value as bigint));
    case 'text': case 'varchar': case 'name': case 'char': case 'json': case 'jsonb':
      // A truncated minimum may end in half a surrogate pair, which has no UTF-8 form.
      return hasLoneSurrogate(value as string) ? undefined : new TextEncoder().encode(value as string);
    case 'bytea': return new Uint8Array(value as Uint8Array);
    case 'uuid': return uuidBytes(value as string);
    case 'numeric': return isDecimalNumeric(type) ? unscaledBytes(parseDecimal(value as string, type.scale ?? 0)) : undefined;
    default: return undefined;
  }
}

function int32(v: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, v, true);
  return out;
}

function int64(v: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigInt64(0, v, true);
  return out;
}

/** A decimal's unscaled value as two's-complement big-endian in the fewest bytes (Appendix D). */
export function unscaledBytes(v: bigint): Uint8Array {
  const bytes: number[] = [];
  let x = v;
  for (;;) {
    const b = Number(BigInt.asUintN(8, x));
    bytes.unshift(b);
    x >>= 8n;
    // Done when the rest is pure sign extension of the byte's top bit.
    if ((x === 0n && (b & 0x80) === 0) || (x === -1n && (b & 0x80) !== 0)) break;
  }
  return Uint8Array.from(bytes);
}

function uuidBytes(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text.replace(/-/g, ''), 'hex'));
}

function hasLoneSurrogate(s: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}
