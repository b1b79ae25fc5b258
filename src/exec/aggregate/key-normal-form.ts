import type { SqlType } from '../../common/sql-type.js';
import { numericKey, trimTrailingBlanks, valueKey } from '../types/value-ops.js';

/**
 * Key types whose canonical JS values (number, bigint, string, boolean) are
 * equal under SameValueZero exactly when SQL's grouping equality holds (floats:
 * 0 = -0 and NaN = NaN, as PostgreSQL groups them). Numeric text, bpchar's
 * trailing blanks, intervals, bytea and arrays need valueKey's normalization.
 */
export const DIRECT_KEY_KINDS: ReadonlySet<string> = new Set([
  'int2', 'int4', 'int8', 'float4', 'float8', 'date', 'time', 'timestamp', 'timestamptz', 'timetz',
  'text', 'varchar', 'name', 'char', 'bool', 'uuid', 'oid',
]);

/** A NULL key part, distinct from every normalized value. */
export const NULL_PART = '\u0000N';

/** Bytes charged per new group, beyond its key text. */
export const GROUP_OVERHEAD = 160;

/** What a new group keyed by `key` costs. */
export function groupBytes(key: unknown): number {
  return GROUP_OVERHEAD + (typeof key === 'string' ? key.length * 2 : 16);
}

/**
 * valueKey's grouping key, with char-loop fast paths for the common
 * non-direct keys: bpchar (trailing blanks do not count) and canonical
 * numeric text (trailing fractional zeros and "-0" do not count).
 */
export function normalKey(v: unknown, t: SqlType): string {
  if (t.kind === 'bpchar') return trimTrailingBlanks(v as string);
  if (t.kind === 'numeric') return numericKey(v as string);
  return valueKey(v, t);
}

/** One key column's part of a composite string key. */
export function keyPart(v: unknown, t: SqlType, direct: boolean): string {
  if (v === null || v === undefined) return NULL_PART;
  if (direct) return typeof v === 'string' ? v : String(v);
  return normalKey(v, t);
}
