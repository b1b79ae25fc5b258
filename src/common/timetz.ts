import { checkZoneDisplacement } from './calendar.js';
import {
  badDatetime, formatOffset, formatTime, localToUtc, MICROS_PER_DAY, parseDateTimeText, parseTimeOfDay, splitMicros, utcToLocal,
  zoneOffsetSeconds,
} from './datetime.js';
import { FloeError } from './floe-error.js';
import { SqlState } from './sqlstate.js';

/**
 * time with time zone (timetz): a time of day with a fixed UTC offset, as PostgreSQL keeps it
 * (TimeTzADT: int64 microseconds since midnight, int32 zone in seconds WEST of Greenwich).
 *
 * The canonical value is one bigint that packs both parts so that plain int64 order is
 * PostgreSQL's timetz order (by UTC instant, then by zone), and int64 equality is timetz_eq
 * (same instant and same zone). Every int64 path (sort, min/max, hash, file statistics,
 * Parquet Int64 storage) is then right without a timetz case of its own:
 *
 *   packed = (micros + zoneWest·10⁶) · 2¹⁷ + (zoneWest + 2¹⁶)
 *
 * |zoneWest| < 16 h fits the 17 low bits; the instant (−16 h … 40 h in µs) needs 38 bits.
 */
const ZONE_BITS = 17n;
const ZONE_SPAN = 1n << ZONE_BITS;
const ZONE_BIAS = 1n << (ZONE_BITS - 1n);
const MICROS_PER_SEC = 1_000_000n;
/** PostgreSQL's TZDISP_LIMIT: a stored zone must lie strictly within ±16 hours. */
const ZONE_LIMIT_SECONDS = 16 * 3600;

const TYPE_NAME = 'time with time zone';

export interface TimetzParts {
  /** Microseconds since midnight, 0 … 24:00:00. */
  readonly micros: bigint;
  /** Offset in seconds west of Greenwich (PostgreSQL's sign: UTC+02 is −7200). */
  readonly zoneWest: number;
}

export function packTimetz(micros: bigint, zoneWest: number): bigint {
  const zone = BigInt(zoneWest);
  return (micros + zone * MICROS_PER_SEC) * ZONE_SPAN + (zone + ZONE_BIAS);
}

export function unpackTimetz(packed: bigint): TimetzParts {
  const low = ((packed % ZONE_SPAN) + ZONE_SPAN) % ZONE_SPAN;
  const zone = low - ZONE_BIAS;
  const utc = (packed - low) / ZONE_SPAN;
  return { micros: utc - zone * MICROS_PER_SEC, zoneWest: Number(zone) };
}

/** timetz_out: `10:00:00+02`, `10:00:00.5-03:30`. */
export function formatTimetz(packed: bigint): string {
  const { micros, zoneWest } = unpackTimetz(packed);
  return formatTime(micros) + formatOffset(-zoneWest);
}

/** timetz_recv's range checks (22P03). */
export function timetzFromBinaryParts(micros: bigint, zoneWest: number): bigint {
  if (micros < 0n || micros > MICROS_PER_DAY) throw new FloeError('22P03', 'time out of range');
  if (zoneWest <= -ZONE_LIMIT_SECONDS || zoneWest >= ZONE_LIMIT_SECONDS) {
    throw new FloeError('22P03', 'time zone displacement out of range');
  }
  return packTimetz(micros, zoneWest);
}

/**
 * PostgreSQL's default abbreviations (timezonesets/Default) that a time without a date may
 * carry; full zone names need a date to fix their offset, as in PostgreSQL.
 */
const ABBREVIATION_HOURS_EAST: Readonly<Record<string, number>> = {
  z: 0, zulu: 0, utc: 0, ut: 0, gmt: 0, wet: 0, west: 1, bst: 1, cet: 1, cest: 2, met: 1, mest: 2, eet: 2, eest: 3, msk: 3,
  ist: 2, jst: 9, kst: 9, hkt: 8, awst: 8, acst: 9.5, aest: 10, aedt: 11, nzst: 12, nzdt: 13,
  est: -5, edt: -4, cst: -6, cdt: -5, mst: -7, mdt: -6, pst: -8, pdt: -7, akst: -9, akdt: -8, hst: -10, ast: -4, adt: -3, nst: -3.5, ndt: -2.5,
};

const NUMERIC_ZONE = /^([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/;

/** Offset east of Greenwich written after a time (`+02`, `-0330`, `PST`), or undefined when there is none. */
function writtenZoneEast(zoneText: string, text: string): number | undefined {
  if (zoneText === '') return undefined;
  const m = NUMERIC_ZONE.exec(zoneText);
  if (m) {
    const v = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
    checkZoneDisplacement(v, text);
    return m[1] === '-' ? -v : v;
  }
  const hours = ABBREVIATION_HOURS_EAST[zoneText.toLowerCase()];
  if (hours === undefined) throw badDatetime(TYPE_NAME, text);
  return hours * 3600;
}

/** The session zone's offset east at today's date and the given time (PostgreSQL's DetermineTimeZoneOffset). */
function sessionZoneEast(tod: bigint, sessionZone: string, nowMicros: bigint): number {
  const today = BigInt(splitMicros(utcToLocal(nowMicros, sessionZone)).days);
  const local = today * MICROS_PER_DAY + tod;
  return Number((local - localToUtc(local, sessionZone)) / MICROS_PER_SEC);
}

/**
 * timetz_in: a time of day with an optional AM/PM and zone (`10:00:00+02`, `1:00 pm PST`,
 * `10:00` in the session zone), or a full timestamp whose date is dropped after fixing the zone.
 */
export function parseTimetz(text: string, sessionZone: string, nowMicros: bigint = BigInt(Date.now()) * 1000n): bigint {
  const s = text.trim();
  if (s.toLowerCase() === 'allballs') return packTimetz(0n, 0);
  const t = parseTimeOfDay(s, TYPE_NAME, text);
  if (t === undefined) return timetzFromTimestampText(s, text, sessionZone);
  let tod = t.tod;
  const m = /^\s*(am|pm)?\s*(.*?)\s*$/i.exec(t.rest)!;
  const meridiem = m[1]?.toLowerCase();
  if (meridiem !== undefined) {
    const hour = tod / 3_600_000_000n;
    if (hour > 12n) throw new FloeError(SqlState.datetimeFieldOverflow, `date/time field value out of range: "${text}"`);
    if (meridiem === 'pm' && hour < 12n) tod += 12n * 3_600_000_000n;
    if (meridiem === 'am' && hour === 12n) tod -= 12n * 3_600_000_000n;
  }
  if (tod > MICROS_PER_DAY) throw new FloeError(SqlState.datetimeFieldOverflow, `date/time field value out of range: "${text}"`);
  const east = writtenZoneEast(m[2]!, text) ?? sessionZoneEast(tod, sessionZone, nowMicros);
  return packTimetz(tod, -east);
}

function timetzFromTimestampText(s: string, text: string, sessionZone: string): bigint {
  let p;
  try {
    p = parseDateTimeText(s, TYPE_NAME);
  } catch (e) {
    if (e instanceof FloeError && e.sqlstate !== SqlState.invalidDatetimeFormat) throw e;
    throw badDatetime(TYPE_NAME, text);
  }
  if (p.special !== undefined && p.special !== 'epoch') throw badDatetime(TYPE_NAME, text);
  const local = BigInt(p.days) * MICROS_PER_DAY + p.tod;
  const east = p.offsetSecs
    ?? (p.zoneName !== undefined
      ? zoneOffsetSeconds(p.zoneName, localToUtc(local, p.zoneName))
      : Number((local - localToUtc(local, sessionZone)) / MICROS_PER_SEC));
  return packTimetz(p.tod, -east);
}

/** timestamptz → timetz: the instant's wall-clock time and offset in the session zone. */
export function timetzFromTimestamptz(utcMicros: bigint, sessionZone: string): bigint {
  const east = zoneOffsetSeconds(sessionZone, utcMicros);
  const local = utcMicros + BigInt(east) * MICROS_PER_SEC;
  return packTimetz(splitMicros(local).tod, -east);
}

/** time → timetz: the session zone's offset today (PostgreSQL's time_timetz). */
export function timetzFromTime(micros: bigint, sessionZone: string, nowMicros: bigint): bigint {
  return packTimetz(micros, -sessionZoneEast(micros, sessionZone, nowMicros));
}

/** timetz ± interval microseconds: the time wraps around midnight, the zone stays. */
export function addMicrosToTimetz(packed: bigint, deltaMicros: bigint): bigint {
  const { micros, zoneWest } = unpackTimetz(packed);
  let t = (micros + deltaMicros) % MICROS_PER_DAY;
  if (t < 0n) t += MICROS_PER_DAY;
  return packTimetz(t, zoneWest);
}
