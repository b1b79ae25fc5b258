import { isValidDateDays, isValidTimestampMicros } from '../../common/calendar.js';
import {
  civilFromDays, parseDate as parseDateText, parseTime as parseTimeText, parseTimestamp as parseTimestampText, parseTimestamptz as parseTimestamptzText,
} from '../../common/datetime.js';
import { FloeError } from '../../common/floe-error.js';
import type { CodecContext } from './codec-context.js';
import { timeZoneOffsetSeconds } from './time-zone-offset.js';
import type { TypeCodec } from './type-codec.js';

/**
 * date, time, timestamp and timestamptz, with DateStyle ISO text and
 * PostgreSQL's binary forms (days / microseconds since 2000-01-01). Infinite
 * timestamps are the int64 extremes, as in PostgreSQL; infinite dates are ±Infinity.
 */
const usPerDay = 86400000000n;
const usPerSecond = 1000000n;
/** Days and microseconds between 1970-01-01 and PostgreSQL's epoch 2000-01-01. */
const pgEpochDays = 10957;
const pgEpochUs = BigInt(pgEpochDays) * usPerDay;
export const timestampInfinity = 9223372036854775807n;
export const timestampMinusInfinity = -9223372036854775808n;
const dateInfinityBinary = 0x7fffffff;
const dateMinusInfinityBinary = -0x80000000;

function pad(n: number | bigint, width: number): string {
  return String(n).padStart(width, '0');
}

function formatYmd(days: number): { text: string; bc: boolean } {
  const { y, m, d } = civilFromDays(days);
  const bc = y <= 0;
  return { text: `${pad(bc ? 1 - y : y, 4)}-${pad(m, 2)}-${pad(d, 2)}`, bc };
}

/** HH:MM:SS[.ffffff] with trailing zeros of the fraction dropped. */
function formatTimeOfDay(us: bigint): string {
  const secs = us / usPerSecond;
  const frac = us % usPerSecond;
  const h = secs / 3600n;
  const m = (secs / 60n) % 60n;
  const s = secs % 60n;
  const base = `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}`;
  return frac === 0n ? base : `${base}.${pad(frac, 6).replace(/0+$/, '')}`;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q;
}

function toBigInt(v: unknown, what: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return BigInt(Math.trunc(v));
  if (v instanceof Date) return BigInt(v.getTime()) * 1000n;
  throw new FloeError('XX000', `cannot encode ${typeof v} as ${what}`);
}

function toDays(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return Math.floor(v.getTime() / 86400000);
  throw new FloeError('XX000', `cannot encode ${typeof v} as date`);
}

export function formatDate(days: number): string {
  if (days === Infinity) return 'infinity';
  if (days === -Infinity) return '-infinity';
  const { text, bc } = formatYmd(days);
  return bc ? `${text} BC` : text;
}

export function formatTimestamp(us: bigint): string {
  if (us === timestampInfinity) return 'infinity';
  if (us === timestampMinusInfinity) return '-infinity';
  const days = floorDiv(us, usPerDay);
  const { text, bc } = formatYmd(Number(days));
  const out = `${text} ${formatTimeOfDay(us - days * usPerDay)}`;
  return bc ? `${out} BC` : out;
}

function formatOffset(offsetSeconds: number): string {
  const sign = offsetSeconds < 0 ? '-' : '+';
  const a = Math.abs(offsetSeconds);
  const h = Math.floor(a / 3600);
  const m = Math.floor(a / 60) % 60;
  const s = a % 60;
  let out = `${sign}${pad(h, 2)}`;
  if (m !== 0 || s !== 0) out += `:${pad(m, 2)}`;
  if (s !== 0) out += `:${pad(s, 2)}`;
  return out;
}

export function formatTimestamptz(us: bigint, timeZone: string): string {
  if (us === timestampInfinity) return 'infinity';
  if (us === timestampMinusInfinity) return '-infinity';
  const offset = timeZoneOffsetSeconds(timeZone, Number(floorDiv(us, usPerSecond)));
  const local = us + BigInt(offset) * usPerSecond;
  const days = floorDiv(local, usPerDay);
  const { text, bc } = formatYmd(Number(days));
  const out = `${text} ${formatTimeOfDay(local - days * usPerDay)}${formatOffset(offset)}`;
  return bc ? `${out} BC` : out;
}

export function formatTime(us: bigint): string {
  return formatTimeOfDay(us);
}

// Text input is PostgreSQL's full date/time grammar, shared with the executor (src/common/datetime.ts),
// so a parameter is accepted or refused exactly as the same text in a cast would be.

export function parseDate(text: string, timeZone = 'UTC'): number {
  return parseDateText(text, undefined, timeZone);
}

export function parseTimestamp(text: string, timeZone = 'UTC'): bigint {
  return parseTimestampText(text, undefined, timeZone);
}

export function parseTimestamptz(text: string, timeZone: string): bigint {
  return parseTimestamptzText(text, timeZone);
}

export function parseTime(text: string): bigint {
  return parseTimeText(text);
}

function int64(v: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return b;
}

function readInt64(b: Buffer, type: string): bigint {
  if (b.length !== 8) throw new FloeError('22P03', `incorrect binary data format for type ${type}`);
  return b.readBigInt64BE(0);
}

function timestampToBinary(us: bigint): Buffer {
  if (us === timestampInfinity || us === timestampMinusInfinity) return int64(us);
  return int64(us - pgEpochUs);
}

/** As timestamp_recv: a finite value outside PostgreSQL's range is 22008 `timestamp out of range`. */
function timestampFromBinary(b: Buffer, type: string): bigint {
  const v = readInt64(b, type);
  if (v === timestampInfinity || v === timestampMinusInfinity) return v;
  // Past the int64 range of Floe's 1970-based microseconds: out of range, not a wrapped value.
  const us = v + pgEpochUs;
  if (!isValidTimestampMicros(us)) throw new FloeError('22008', 'timestamp out of range');
  return us;
}

export const dateCodec: TypeCodec = {
  oid: 1082,
  name: 'date',
  encodeText: (v) => formatDate(toDays(v)),
  encodeBinary: (v) => {
    const days = toDays(v);
    const b = Buffer.alloc(4);
    b.writeInt32BE(days === Infinity ? dateInfinityBinary : days === -Infinity ? dateMinusInfinityBinary : days - pgEpochDays);
    return b;
  },
  decodeText: (t, ctx: CodecContext) => parseDate(t, ctx.timeZone),
  decodeBinary: (b) => {
    if (b.length !== 4) throw new FloeError('22P03', 'incorrect binary data format for type date');
    const v = b.readInt32BE(0);
    if (v === dateInfinityBinary) return Infinity;
    if (v === dateMinusInfinityBinary) return -Infinity;
    // As date_recv: only the range date_in accepts.
    if (!isValidDateDays(v + pgEpochDays)) throw new FloeError('22008', 'date out of range');
    return v + pgEpochDays;
  },
};

export const timeCodec: TypeCodec = {
  oid: 1083,
  name: 'time without time zone',
  encodeText: (v) => formatTime(toBigInt(v, 'time')),
  encodeBinary: (v) => int64(toBigInt(v, 'time')),
  decodeText: (t) => parseTime(t),
  decodeBinary: (b) => {
    // As time_recv: 0 to 24:00:00 inclusive, else 22P03.
    const us = readInt64(b, 'time');
    if (us < 0n || us > usPerDay) throw new FloeError('22P03', 'time out of range');
    return us;
  },
};

export const timestampCodec: TypeCodec = {
  oid: 1114,
  name: 'timestamp',
  encodeText: (v) => formatTimestamp(toBigInt(v, 'timestamp')),
  encodeBinary: (v) => timestampToBinary(toBigInt(v, 'timestamp')),
  decodeText: (t, ctx: CodecContext) => parseTimestamp(t, ctx.timeZone),
  decodeBinary: (b) => timestampFromBinary(b, 'timestamp'),
};

export const timestamptzCodec: TypeCodec = {
  oid: 1184,
  name: 'timestamp with time zone',
  encodeText: (v, ctx: CodecContext) => formatTimestamptz(toBigInt(v, 'timestamptz'), ctx.timeZone),
  encodeBinary: (v) => timestampToBinary(toBigInt(v, 'timestamptz')),
  decodeText: (t, ctx: CodecContext) => parseTimestamptz(t, ctx.timeZone),
  decodeBinary: (b) => timestampFromBinary(b, 'timestamptz'),
};
