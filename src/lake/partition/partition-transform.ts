import { FloeError } from '../../common/floe-error.js';
import { formatType } from '../../common/sql-type.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { civilFromDays, MICROS_PER_DAY } from '../../common/datetime.js';
import { parseDecimal, formatDecimal } from '../arrow/decimal-text.js';
import { hashKey } from '../bucket/key-hash.js';
import { decodeStatValue } from '../stats/column-stats.js';
import { valueOrderOf } from '../stats/value-order.js';

/**
 * Partition transforms with Iceberg's semantics (spec, "Partition Transforms"):
 * year/month/day/hour are ordinals since 1970-01-01 00:00 UTC (day is a date, the
 * others int4); truncate(W) floors integers and decimals to a multiple of W and
 * keeps the first W code points of a string (W bytes of a bytea); bucket(N) is
 * (murmur3(serialization) & Integer.MAX_VALUE) mod N. NULL maps to NULL.
 */
export type PartitionTransform =
  | { readonly kind: 'identity' }
  | { readonly kind: 'year' | 'month' | 'day' | 'hour' }
  | { readonly kind: 'truncate'; readonly width: number }
  | { readonly kind: 'bucket'; readonly buckets: number };

export interface PartitionField {
  readonly sourceColumn: string;
  readonly transform: PartitionTransform;
  readonly name: string;
}

export type PartitionPredicate =
  | { readonly op: '=' | '<' | '<=' | '>' | '>='; readonly value: unknown }
  | { readonly op: 'in'; readonly values: readonly unknown[] };

const MICROS_PER_HOUR = 3_600_000_000n;
const INT32_MAX = 2147483647;
const INT32_MIN = -2147483648;

function invalid(transform: PartitionTransform, type: SqlType): never {
  throw new FloeError(SqlState.invalidParameterValue, `partition transform ${transform.kind} cannot be applied to type ${formatType(type)}`);
}

/** Throws 22023 when the transform does not apply to the source type. */
export function transformResultType(transform: PartitionTransform, sourceType: SqlType): SqlType {
  const k = sourceType.kind;
  switch (transform.kind) {
    case 'identity': return sourceType;
    case 'year': case 'month':
      if (k !== 'date' && k !== 'timestamp' && k !== 'timestamptz') invalid(transform, sourceType);
      return { kind: 'int4' };
    case 'day':
      if (k !== 'date' && k !== 'timestamp' && k !== 'timestamptz') invalid(transform, sourceType);
      return { kind: 'date' };
    case 'hour':
      if (k !== 'timestamp' && k !== 'timestamptz') invalid(transform, sourceType);
      return { kind: 'int4' };
    case 'truncate':
      if (!Number.isInteger(transform.width) || transform.width <= 0) {
        throw new FloeError(SqlState.invalidParameterValue, `truncate width must be a positive integer, got ${transform.width}`);
      }
      if (!['int2', 'int4', 'int8', 'numeric', 'text', 'varchar', 'bpchar', 'name', 'bytea'].includes(k)) invalid(transform, sourceType);
      return sourceType;
    case 'bucket':
      if (!Number.isInteger(transform.buckets) || transform.buckets <= 0 || transform.buckets > INT32_MAX) {
        throw new FloeError(SqlState.invalidParameterValue, `bucket count must be a positive integer, got ${transform.buckets}`);
      }
      if (['interval', 'array', 'json', 'jsonb', 'float4', 'float8', 'bool'].includes(k)) invalid(transform, sourceType);
      return { kind: 'int4' };
  }
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

function daysOf(type: SqlType, value: unknown): number {
  if (type.kind === 'date') return value as number;
  return Number(floorDiv(BigInt(value as bigint), MICROS_PER_DAY));
}

export function applyTransform(transform: PartitionTransform, type: SqlType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (transform.kind) {
    case 'identity':
      return value;
    case 'year': case 'month': case 'day': {
      transformResultType(transform, type);
      const days = daysOf(type, value);
      if (!Number.isFinite(days)) {
        if (transform.kind === 'day') return days;
        return days > 0 ? INT32_MAX : INT32_MIN;
      }
      if (transform.kind === 'day') return days;
      const { y: year, m: month } = civilFromDays(days);
      return transform.kind === 'year' ? year - 1970 : (year - 1970) * 12 + (month - 1);
    }
    case 'hour':
      transformResultType(transform, type);
      return Number(floorDiv(BigInt(value as bigint), MICROS_PER_HOUR));
    case 'truncate': {
      transformResultType(transform, type);
      const w = transform.width;
      switch (type.kind) {
        case 'int2': case 'int4': {
          const v = value as number;
          return v - (((v % w) + w) % w);
        }
        case 'int8': {
          const v = BigInt(value as bigint);
          const bw = BigInt(w);
          return v - (((v % bw) + bw) % bw);
        }
        case 'numeric': {
          const scale = type.scale ?? 0;
          if (type.precision === undefined) invalid(transform, type);
          const u = parseDecimal(String(value), scale);
          const bw = BigInt(w);
          return formatDecimal(u - (((u % bw) + bw) % bw), scale);
        }
        case 'bytea':
          return (value as Uint8Array).slice(0, w);
        default: {
          const cps = Array.from(value as string);
          return cps.length <= w ? value : cps.slice(0, w).join('');
        }
      }
    }
    case 'bucket':
      transformResultType(transform, type);
      return ((hashKey([type], [value]) & 0x7fffffff) >>> 0) % transform.buckets;
  }
}

/** A stable string key for a partition tuple (its transformed values): JSON, with bigint and bytes spelled out. */
export function partitionKeyOf(fields: readonly PartitionField[], rowValues: readonly unknown[]): string {
  return JSON.stringify(fields.map((_, i) => {
    const v = rowValues[i];
    if (v === undefined || v === null) return null;
    if (typeof v === 'bigint') return `${v}n`;
    if (v instanceof Uint8Array) return `\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
    return v;
  }));
}

/**
 * False only when no row of a partition whose transformed value is `partitionValue`
 * can satisfy `predicate` on the source column. Time and truncate transforms are
 * monotonic, so a range on the source maps to a range on partition values; bucket
 * prunes only equality. partitionValue may be canonical or in encodeStatValue form.
 */
export function mayMatch(transform: PartitionTransform, sourceType: SqlType, partitionValue: unknown, predicate: PartitionPredicate): boolean {
  const resultType = transformResultType(transform, sourceType);
  const p = decodeStatValue(resultType, partitionValue);
  const order = valueOrderOf(resultType);
  if (p === null) return false; // the NULL partition holds only NULL sources, which no comparison matches
  if (order === undefined) return true;
  const matchOne = (op: PartitionPredicate['op'], raw: unknown): boolean => {
    if (raw === null || raw === undefined) return false;
    let t: unknown;
    try {
      t = applyTransform(transform, sourceType, decodeStatValue(sourceType, raw));
    } catch {
      return true; // a literal the transform cannot handle prunes nothing
    }
    const c = order(p, t);
    if (transform.kind === 'bucket') return op === '=' || op === 'in' ? c === 0 : true;
    // char(n) orders without trailing blanks, and truncating does not keep that order
    // ('a b' > 'a\x01', yet 'a' < 'a\x01' at width 2): only equality prunes its partitions.
    if (transform.kind === 'truncate' && sourceType.kind === 'bpchar' && op !== '=' && op !== 'in') return true;
    if (transform.kind === 'identity') {
      switch (op) {
        case '=': case 'in': return c === 0;
        case '<': return c < 0;
        case '<=': return c <= 0;
        case '>': return c > 0;
        case '>=': return c >= 0;
      }
    }
    // monotonic non-decreasing transforms: source < v ⇒ t(source) ≤ t(v)
    switch (op) {
      case '=': case 'in': return c === 0;
      case '<': case '<=': return c <= 0;
      case '>': case '>=': return c >= 0;
    }
  };
  if (predicate.op === 'in') return predicate.values.some((v) => matchOne('in', v));
  return matchOne(predicate.op, predicate.value);
}
