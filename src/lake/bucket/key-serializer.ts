import { FloeError } from '../../common/floe-error.js';
import { formatType } from '../../common/sql-type.js';
import type { Interval, SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { encodeInto } from '../arrow/utf8.js';
import { naturalScale, parseDecimal } from '../arrow/decimal-text.js';
import { uuidToBytes } from '../arrow/uuid-bytes.js';
import { ByteSink } from './byte-sink.js';

/**
 * Iceberg's single-value serialization for hashing (spec, Appendix B), over Floe's
 * canonical values. Where Iceberg has no rule, Floe's choice is written here:
 *   bool, int2, int4, int8, oid*, date, time, timestamp(tz) → 8-byte little-endian long
 *     (bool as 0/1, date in days with ±infinity as INT32 max/min, time/timestamps in µs)
 *   float4/float8 → the long bits of the value as a double (−0 → 0, one NaN)
 *   numeric → minimal big-endian two's complement of the unscaled value, at the
 *     column's scale; unconstrained numeric at its natural scale (trailing zeros
 *     dropped) so that 1.0 and 1.00, equal in SQL, hash alike
 *   text, varchar, name, char, json, jsonb → UTF-8; bpchar → UTF-8 without trailing
 *     spaces (PostgreSQL ignores them when comparing)
 *   uuid → 16 bytes big-endian;  bytea → raw bytes
 *   interval → months, days as 4-byte LE ints then micros as 8-byte LE (Floe's choice)
 *   array → each element prefixed by its 4-byte big-endian length, NULL as length −1
 * These bytes also define key identity in merge-on-read: two keys are equal exactly
 * when their serializations are.
 */
export function writeKeyValue(sink: ByteSink, type: SqlType, value: unknown, column = 'key'): void {
  if (value === null || value === undefined) {
    throw new FloeError(SqlState.notNullViolation, `null value in column "${column}" violates not-null constraint`, {
      detail: 'Primary key columns cannot be NULL.',
    });
  }
  switch (type.kind) {
    case 'bool':
      if (typeof value !== 'boolean') mismatch(type, value, column);
      sink.long(value ? 1 : 0, 0);
      return;
    case 'int2': case 'int4': case 'int8': case 'time': case 'timestamp': case 'timestamptz': case 'timetz':
    case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure':
      writeInteger(sink, type, value, column);
      return;
    case 'date':
      if (typeof value !== 'number') mismatch(type, value, column);
      writeInteger(sink, type, value === Infinity ? 2147483647 : value === -Infinity ? -2147483648 : value, column);
      return;
    case 'float4': case 'float8': {
      if (typeof value !== 'number') mismatch(type, value, column);
      const d = value === 0 ? 0 : Number.isNaN(value) ? NaN : (value as number);
      sink.ensure(8);
      sink.view.setFloat64(sink.pos, d, true);
      if (Number.isNaN(d)) { sink.view.setUint32(sink.pos, 0, true); sink.view.setUint32(sink.pos + 4, 0x7ff80000, true); }
      sink.pos += 8;
      return;
    }
    case 'numeric': {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'bigint') mismatch(type, value, column);
      const text = String(value);
      const scale = type.precision !== undefined ? (type.scale ?? 0) : naturalScale(text);
      writeUnscaled(sink, parseDecimal(text, scale, column));
      return;
    }
    case 'text': case 'varchar': case 'name': case 'char': case 'json': case 'jsonb': case 'unknown': case 'void': case 'bpchar': {
      if (typeof value !== 'string') mismatch(type, value, column);
      const s = type.kind === 'bpchar' ? (value as string).replace(/ +$/, '') : (value as string);
      sink.ensure(s.length * 3);
      sink.pos += encodeInto(s, sink.bytes, sink.pos);
      return;
    }
    case 'bytea':
      if (!(value instanceof Uint8Array)) mismatch(type, value, column);
      sink.append(value as Uint8Array);
      return;
    case 'uuid':
      if (typeof value !== 'string') mismatch(type, value, column);
      sink.ensure(16);
      uuidToBytes(value as string, sink.bytes, sink.pos);
      sink.pos += 16;
      return;
    case 'interval': {
      const iv = value as Interval;
      if (typeof iv !== 'object' || typeof iv.micros !== 'bigint') mismatch(type, value, column);
      sink.ensure(16);
      sink.view.setInt32(sink.pos, iv.months, true);
      sink.view.setInt32(sink.pos + 4, iv.days, true);
      sink.view.setBigInt64(sink.pos + 8, iv.micros, true);
      sink.pos += 16;
      return;
    }
    case 'array': {
      if (!Array.isArray(value)) mismatch(type, value, column);
      for (const e of value as unknown[]) {
        if (e === null || e === undefined) { sink.int32BE(-1); continue; }
        const at = sink.reserveLength();
        writeKeyValue(sink, type.element, e, column);
        sink.patchLength(at);
      }
      return;
    }
  }
}

/** The serialization of one value, as a fresh array. */
export function keyValueBytes(type: SqlType, value: unknown): Uint8Array {
  const sink = new ByteSink(32);
  writeKeyValue(sink, type, value);
  return sink.bytes.slice(0, sink.pos);
}

function writeInteger(sink: ByteSink, type: SqlType, value: unknown, column: string): void {
  if (typeof value === 'bigint') {
    sink.long(Number(BigInt.asIntN(32, value)), Number(BigInt.asIntN(32, value >> 32n)));
  } else if (typeof value === 'number' && Number.isSafeInteger(value)) {
    const hi = Math.floor(value / 4294967296);
    sink.long((value - hi * 4294967296) | 0, hi | 0);
  } else {
    mismatch(type, value, column);
  }
}

/** Minimal big-endian two's complement (Java's BigInteger.toByteArray). */
export function writeUnscaled(sink: ByteSink, unscaled: bigint): void {
  let n = 1;
  while (unscaled >= 1n << BigInt(8 * n - 1) || unscaled < -(1n << BigInt(8 * n - 1))) n++;
  sink.ensure(n);
  let v = BigInt.asUintN(8 * n, unscaled);
  for (let i = n - 1; i >= 0; i--) {
    sink.bytes[sink.pos + i] = Number(v & 0xffn);
    v >>= 8n;
  }
  sink.pos += n;
}

function mismatch(type: SqlType, value: unknown, column: string): never {
  throw new FloeError(SqlState.datatypeMismatch, `key column "${column}" is of type ${formatType(type)} but the value is a JavaScript ${typeof value}`);
}
