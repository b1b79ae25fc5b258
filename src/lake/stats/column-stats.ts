import { DataType } from 'apache-arrow';
import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { columnReader, dataReader, isValid, nullMask } from '../arrow/column-reader.js';
import { valueOrderOf } from './value-order.js';

/**
 * Per-file column statistics kept in the catalog, so that pruning never opens a file.
 * min/max are canonical values under value-order.ts's order; null means "no bound
 * known" (no non-null value, a type without an order, or a string too long to keep).
 */
export interface ColumnStats {
  readonly min: unknown;
  readonly max: unknown;
  readonly nullCount: number;
}

export type StatPredicate =
  | { readonly op: '=' | '<' | '<=' | '>' | '>=' | '<>'; readonly value: unknown }
  | { readonly op: 'in'; readonly values: readonly unknown[] }
  | { readonly op: 'isNull' | 'isNotNull' };

/** Strings longer than this keep a truncated min (still a lower bound) and no max. */
export const MAX_STAT_STRING = 64;

export function computeColumnStats(batch: RecordBatch, columns: readonly { name: string; type: SqlType }[]): Record<string, ColumnStats> {
  const out: Record<string, ColumnStats> = {};
  for (const col of columns) {
    const vector = batch.getChild(col.name);
    if (vector === null) throw new FloeError(SqlState.undefinedColumn, `column "${col.name}" is missing from the batch`);
    const n = batch.numRows;
    const nullCount = vector.nullCount;
    const order = valueOrderOf(col.type);
    if (order === undefined || nullCount === n) {
      out[col.name] = { min: null, max: null, nullCount };
      continue;
    }
    let min: unknown = null;
    let max: unknown = null;
    const fast = typedExtremes(batch, col.name, col.type);
    if (fast !== undefined) {
      ({ min, max } = fast);
    } else {
      const r = columnReader(vector, col.type);
      for (let i = 0; i < n; i++) {
        const v = r.get(i);
        if (v === null) continue;
        if (min === null || order(v, min) < 0) min = v;
        if (max === null || order(v, max) > 0) max = v;
      }
    }
    if (typeof min === 'string' && min.length > MAX_STAT_STRING) min = min.slice(0, MAX_STAT_STRING);
    if (typeof max === 'string' && max.length > MAX_STAT_STRING) max = null;
    if (min instanceof Uint8Array && min.length > MAX_STAT_STRING) min = min.slice(0, MAX_STAT_STRING);
    if (max instanceof Uint8Array && max.length > MAX_STAT_STRING) max = null;
    out[col.name] = { min, max, nullCount };
  }
  return out;
}

/** Min/max straight off a single-chunk numeric typed array (the common, hot case). */
function typedExtremes(batch: RecordBatch, name: string, type: SqlType): { min: unknown; max: unknown } | undefined {
  const vector = batch.getChild(name)!;
  if (vector.data.length !== 1) return undefined;
  const data = vector.data[0]!;
  const t = data.type as DataType;
  if (DataType.isDictionary(t)) return undefined; // values are dictionary indices
  const v = data.values as unknown;
  const n = data.length;
  const mask = nullMask(data);
  if (type.kind === 'int2' || type.kind === 'int4' || (type.kind === 'date' && DataType.isDate(t) && v instanceof Int32Array)) {
    if (!(v instanceof Int16Array || v instanceof Int32Array)) return undefined;
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      if (!isValid(mask, data.offset, i)) continue;
      const x = v[i]!;
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
    if (type.kind === 'date') {
      const fix = (d: number) => (d === 2147483647 ? Infinity : d === -2147483648 ? -Infinity : d);
      return { min: fix(lo), max: fix(hi) };
    }
    return { min: lo, max: hi };
  }
  if ((type.kind === 'int8' || type.kind === 'timestamp' || type.kind === 'timestamptz' || type.kind === 'time' || type.kind === 'timetz') && v instanceof BigInt64Array) {
    if ((DataType.isTime(t) || DataType.isTimestamp(t)) && (t as unknown as { unit: number }).unit !== 2) return undefined;
    let lo: bigint | null = null;
    let hi: bigint | null = null;
    for (let i = 0; i < n; i++) {
      if (!isValid(mask, data.offset, i)) continue;
      const x = v[i]!;
      if (lo === null || x < lo) lo = x;
      if (hi === null || x > hi) hi = x;
    }
    return { min: lo, max: hi };
  }
  if (type.kind === 'numeric' && DataType.isDecimal(t) && (t as unknown as { bitWidth: number }).bitWidth === 128 && v instanceof Uint32Array) {
    // compare the 128-bit two's-complement words; format only the two winners
    const r = dataReader(data, type);
    const safe = decimalExtremesSafe(v, n, mask, data.offset);
    if (safe !== undefined) return safe[0] < 0 ? { min: null, max: null } : { min: r.get(safe[0]), max: r.get(safe[1]) };
    let lo = -1;
    let hi = -1;
    for (let i = 0; i < n; i++) {
      if (!isValid(mask, data.offset, i)) continue;
      if (lo < 0) { lo = hi = i; continue; }
      if (compareDecimal128(v, i, lo) < 0) lo = i;
      if (compareDecimal128(v, i, hi) > 0) hi = i;
    }
    if (lo < 0) return { min: null, max: null };
    return { min: r.get(lo), max: r.get(hi) };
  }
  const stringKind = type.kind === 'text' || type.kind === 'varchar' || type.kind === 'name' || type.kind === 'char' || type.kind === 'unknown' || type.kind === 'bpchar';
  if (stringKind && DataType.isUtf8(t) && data.valueOffsets instanceof Int32Array && v instanceof Uint8Array) {
    // UTF-8 byte order is code-point order, so compare bytes in place and decode only the two winners
    const offs = data.valueOffsets;
    const trim = type.kind === 'bpchar';
    let lo = -1;
    let hi = -1;
    for (let i = 0; i < n; i++) {
      if (!isValid(mask, data.offset, i)) continue;
      if (lo < 0) { lo = hi = i; continue; }
      if (compareUtf8(v, offs, i, lo, trim) < 0) lo = i;
      if (compareUtf8(v, offs, i, hi, trim) > 0) hi = i;
    }
    if (lo < 0) return { min: null, max: null };
    const r = dataReader(data, type);
    return { min: r.get(lo), max: r.get(hi) };
  }
  return undefined;
}

/**
 * Rows of the first minimum and maximum of a Decimal128 column whose values all lie
 * within ±2^53 (compared as plain numbers); undefined as soon as one does not.
 * `mask` is the chunk's null mask (rows it marks NULL are skipped).
 */
function decimalExtremesSafe(w: Uint32Array, n: number, mask: Uint8Array | undefined, offset: number): [number, number] | undefined {
  let lo = Infinity;
  let hi = -Infinity;
  let loRow = -1;
  let hiRow = -1;
  for (let i = 0; i < n; i++) {
    if (!isValid(mask, offset, i)) continue;
    const a = 4 * i;
    const w1 = w[a + 1]!;
    const w2 = w[a + 2]!;
    const w3 = w[a + 3]!;
    let x: number;
    if (w3 === 0 && w2 === 0 && w1 < 0x200000) x = w1 * 4294967296 + w[a]!;
    else if (w3 === 0xffffffff && w2 === 0xffffffff && w1 >= 0xffe00000) x = (w1 - 4294967296) * 4294967296 + w[a]!;
    else return undefined;
    if (x < lo) { lo = x; loRow = i; }
    if (x > hi) { hi = x; hiRow = i; }
  }
  return [loRow, hiRow];
}

/** Signed order of the Decimal128 values at rows i and j (four little-endian uint32 words each). */
function compareDecimal128(w: Uint32Array, i: number, j: number): number {
  const a = 4 * i;
  const b = 4 * j;
  const x3 = w[a + 3]! | 0;
  const y3 = w[b + 3]! | 0;
  if (x3 !== y3) return x3 < y3 ? -1 : 1;
  for (let k = 2; k >= 0; k--) {
    const x = w[a + k]!;
    const y = w[b + k]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Byte order of strings i and j; `trim` ignores trailing blanks (bpchar compares without its padding). */
function compareUtf8(bytes: Uint8Array, offs: Int32Array, i: number, j: number, trim: boolean): number {
  const as = offs[i]!;
  let ae = offs[i + 1]!;
  const bs = offs[j]!;
  let be = offs[j + 1]!;
  if (trim) {
    while (ae > as && bytes[ae - 1] === 32) ae--;
    while (be > bs && bytes[be - 1] === 32) be--;
  }
  const al = ae - as;
  const bl = be - bs;
  const len = al < bl ? al : bl;
  for (let k = 0; k < len; k++) {
    const x = bytes[as + k]!;
    const y = bytes[bs + k]!;
    if (x !== y) return x - y;
  }
  return al - bl;
}

/**
 * JSON-safe form of a canonical stat value: bigint → decimal string, Uint8Array → hex,
 * non-finite numbers and ±infinity dates → "NaN" / "Infinity" / "-Infinity".
 */
export function encodeStatValue(type: SqlType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (type.kind === 'interval' && typeof value === 'object') {
    const iv = value as { months: number; days: number; micros: bigint };
    return { months: iv.months, days: iv.days, micros: String(iv.micros) };
  }
  if (Array.isArray(value) && type.kind === 'array') return value.map((e) => encodeStatValue(type.element, e));
  return value;
}

/** Inverse of encodeStatValue; idempotent, so canonical values pass through unchanged. */
export function decodeStatValue(type: SqlType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'int8': case 'time': case 'timestamp': case 'timestamptz': case 'timetz':
      return typeof value === 'bigint' ? value : BigInt(value as string | number);
    case 'bytea':
      return value instanceof Uint8Array ? value : new Uint8Array(Buffer.from(value as string, 'hex'));
    case 'float4': case 'float8': case 'date': case 'int2': case 'int4': case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure':
      return typeof value === 'number' ? value : Number(value);
    case 'interval': {
      const iv = value as { months: number; days: number; micros: bigint | string };
      return { months: iv.months, days: iv.days, micros: BigInt(iv.micros) };
    }
    case 'array':
      return Array.isArray(value) ? value.map((e) => decodeStatValue(type.element, e)) : value;
    default:
      return value;
  }
}

/**
 * False only when no row of a file with these stats can satisfy the predicate
 * (SQL semantics: NULL never satisfies a comparison). Accepts stats in canonical or
 * encoded form. rowCount, when given, lets isNotNull prune all-NULL files.
 */
export function statsMayMatch(stats: ColumnStats, type: SqlType, predicate: StatPredicate, rowCount?: number): boolean {
  if (predicate.op === 'isNull') return stats.nullCount > 0;
  if (predicate.op === 'isNotNull') return rowCount === undefined || stats.nullCount < rowCount;
  const order = valueOrderOf(type);
  if (order === undefined) return true;
  const min = decodeStatValue(type, stats.min);
  const max = decodeStatValue(type, stats.max);
  if (min === null && max === null) {
    // computeColumnStats leaves both bounds null for an orderable column only when it has no non-null value
    return rowCount !== undefined ? stats.nullCount < rowCount : stats.nullCount === 0;
  }
  const test = (op: '=' | '<' | '<=' | '>' | '>=' | '<>', raw: unknown): boolean => {
    if (raw === null || raw === undefined) return false;
    const v = decodeStatValue(type, raw);
    switch (op) {
      case '=': return (min === null || order(min, v) <= 0) && (max === null || order(max, v) >= 0);
      case '<': return min === null || order(min, v) < 0;
      case '<=': return min === null || order(min, v) <= 0;
      case '>': return max === null || order(max, v) > 0;
      case '>=': return max === null || order(max, v) >= 0;
      case '<>': return min === null || max === null || order(min, v) !== 0 || order(max, v) !== 0;
    }
  };
  if (predicate.op === 'in') return predicate.values.some((v) => test('=', v));
  const cmp = predicate as { readonly op: '=' | '<' | '<=' | '>' | '>=' | '<>'; readonly value: unknown };
  return test(cmp.op, cmp.value);
}
