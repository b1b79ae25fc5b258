import {
  checkDateFields, checkDateRange, checkTimeFields, checkTimestampRange, checkZoneDisplacement, daysInMonthOf, isLeapYear,
  isValidTimestampMicros,
} from './calendar.js';
import { FloeError } from './floe-error.js';
import type { Interval } from './sql-type.js';
import { SqlState } from './sqlstate.js';

/** PostgreSQL's ±infinity timestamps (DT_NOBEGIN / DT_NOEND). */
export const TS_NEG_INF = -(2n ** 63n);
export const TS_POS_INF = 2n ** 63n - 1n;
export const MICROS_PER_DAY = 86_400_000_000n;
const MICROS_PER_SEC = 1_000_000n;

/** Days since 1970-01-01 of a proleptic Gregorian date (year 0 = 1 BC). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (m + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(z: number): { y: number; m: number; d: number } {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

export function isLeap(y: number): boolean {
  return isLeapYear(y);
}

export function daysInMonth(y: number, m: number): number {
  return daysInMonthOf(y, m);
}

const p2 = (n: number) => String(n).padStart(2, '0');

function formatYear(y: number): { text: string; bc: boolean } {
  if (y <= 0) return { text: String(1 - y).padStart(4, '0'), bc: true };
  return { text: String(y).padStart(4, '0'), bc: false };
}

export function formatDate(days: number): string {
  if (days === Infinity) return 'infinity';
  if (days === -Infinity) return '-infinity';
  const { y, m, d } = civilFromDays(days);
  const yr = formatYear(y);
  return `${yr.text}-${p2(m)}-${p2(d)}${yr.bc ? ' BC' : ''}`;
}

function fracText(micros: bigint): string {
  if (micros === 0n) return '';
  return '.' + micros.toString().padStart(6, '0').replace(/0+$/, '');
}

export function formatTime(micros: bigint): string {
  const secs = micros / MICROS_PER_SEC;
  const frac = micros % MICROS_PER_SEC;
  const h = Number(secs / 3600n);
  const mi = Number((secs / 60n) % 60n);
  const s = Number(secs % 60n);
  return `${p2(h)}:${p2(mi)}:${p2(s)}${fracText(frac)}`;
}

export function splitMicros(micros: bigint): { days: number; tod: bigint } {
  let days = micros / MICROS_PER_DAY;
  let tod = micros % MICROS_PER_DAY;
  if (tod < 0n) { tod += MICROS_PER_DAY; days -= 1n; }
  return { days: Number(days), tod };
}

export function formatTimestamp(micros: bigint): string {
  if (micros === TS_POS_INF) return 'infinity';
  if (micros === TS_NEG_INF) return '-infinity';
  const { days, tod } = splitMicros(micros);
  const { y, m, d } = civilFromDays(days);
  const yr = formatYear(y);
  return `${yr.text}-${p2(m)}-${p2(d)} ${formatTime(tod)}${yr.bc ? ' BC' : ''}`;
}

export function formatOffset(offsetSecs: number): string {
  const sign = offsetSecs < 0 ? '-' : '+';
  const a = Math.abs(offsetSecs);
  const h = Math.floor(a / 3600);
  const m = Math.floor((a % 3600) / 60);
  const s = a % 60;
  return `${sign}${p2(h)}${m || s ? `:${p2(m)}` : ''}${s ? `:${p2(s)}` : ''}`;
}

export function formatTimestamptz(micros: bigint, zone: string): string {
  if (micros === TS_POS_INF) return 'infinity';
  if (micros === TS_NEG_INF) return '-infinity';
  const off = zoneOffsetSeconds(zone, micros);
  const local = micros + BigInt(off) * MICROS_PER_SEC;
  const { days, tod } = splitMicros(local);
  const { y, m, d } = civilFromDays(days);
  const yr = formatYear(y);
  return `${yr.text}-${p2(m)}-${p2(d)} ${formatTime(tod)}${formatOffset(off)}${yr.bc ? ' BC' : ''}`;
}

// ---- time zones ----

const fmtCache = new Map<string, Intl.DateTimeFormat | null>();

function fixedOffset(zone: string): number | undefined {
  const z = zone.trim().toUpperCase();
  if (z === 'UTC' || z === 'GMT' || z === 'Z' || z === 'ZULU' || z === 'UCT' || z === 'ETC/UTC' || z === 'ETC/GMT') return 0;
  // ISO-style offsets ("+05:30", "-08"). POSIX-style names ("UTC+3") invert the sign, as PostgreSQL does.
  let m = /^([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(z);
  if (m) {
    const v = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
    return m[1] === '-' ? -v : v;
  }
  m = /^(?:UTC|GMT)([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(z);
  if (m) {
    const v = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60;
    return m[1] === '-' ? v : -v;
  }
  return undefined;
}

function formatterFor(zone: string): Intl.DateTimeFormat | null {
  let f = fmtCache.get(zone);
  if (f !== undefined) return f;
  try {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric', era: 'short',
    });
  } catch {
    f = null;
  }
  fmtCache.set(zone, f);
  return f;
}

export function isValidTimeZone(zone: string): boolean {
  return fixedOffset(zone) !== undefined || formatterFor(zone) !== null;
}

/** Offset (seconds east of UTC) of `zone` at the UTC instant `micros`. */
export function zoneOffsetSeconds(zone: string, micros: bigint): number {
  const fixed = fixedOffset(zone);
  if (fixed !== undefined) return fixed;
  const f = formatterFor(zone);
  if (!f) return 0;
  const ms = Number(micros / 1000n);
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return 0;
  const parts = f.formatToParts(new Date(Math.floor(ms / 1000) * 1000));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  let y = get('year');
  if (parts.find((p) => p.type === 'era')?.value === 'BC') y = 1 - y;
  const local = daysFromCivil(y, get('month'), get('day')) * 86400 + get('hour') * 3600 + get('minute') * 60 + get('second');
  return local - Math.floor(ms / 1000);
}

/** Converts a local wall-clock time in `zone` to UTC micros. */
export function localToUtc(localMicros: bigint, zone: string): bigint {
  if (localMicros === TS_POS_INF || localMicros === TS_NEG_INF) return localMicros;
  const fixed = fixedOffset(zone);
  if (fixed !== undefined) return localMicros - BigInt(fixed) * MICROS_PER_SEC;
  // The offsets in force a day before and after: the later one applies if it maps the wall
  // clock back onto itself, else the earlier one. So an ambiguous time (clocks turned back)
  // takes the later offset and a time in a gap (clocks turned forward) the earlier one, as in PostgreSQL.
  const day = 86_400n * MICROS_PER_SEC;
  const before = zoneOffsetSeconds(zone, localMicros - day);
  const after = zoneOffsetSeconds(zone, localMicros + day);
  const offset = zoneOffsetSeconds(zone, localMicros - BigInt(after) * MICROS_PER_SEC) === after ? after : before;
  return localMicros - BigInt(offset) * MICROS_PER_SEC;
}

export function utcToLocal(micros: bigint, zone: string): bigint {
  if (micros === TS_POS_INF || micros === TS_NEG_INF) return micros;
  return micros + BigInt(zoneOffsetSeconds(zone, micros)) * MICROS_PER_SEC;
}

// ---- parsing ----

export function badDatetime(type: string, text: string): FloeError {
  return new FloeError(SqlState.invalidDatetimeFormat, `invalid input syntax for type ${type}: "${text}"`);
}

function fieldOverflow(type: string, text: string): FloeError {
  return new FloeError(SqlState.datetimeFieldOverflow, `date/time field value out of range: "${text}"`, {
    hint: type === 'date' ? undefined : undefined,
  });
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

interface ParsedDateTime {
  days: number;
  tod: bigint;
  hasTime: boolean;
  offsetSecs?: number;
  zoneName?: string;
  special?: 'infinity' | '-infinity' | 'epoch' | 'now' | 'today' | 'tomorrow' | 'yesterday' | 'allballs';
}

const DATE_RE = /^(\d{1,7})-(\d{1,2})-(\d{1,7})/;

/** A year written with one or two digits after a month and day means the nearest century (PostgreSQL: 70-99 → 19xx). */
function twoDigitYear(digits: string): number {
  const y = Number(digits);
  return digits.length > 2 ? y : y < 70 ? 2000 + y : 1900 + y;
}
const TIME_RE = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?/;

export function parseTimeOfDay(s: string, type: string, text: string): { tod: bigint; rest: string } | undefined {
  const m = TIME_RE.exec(s);
  if (!m) return undefined;
  const h = Number(m[1]);
  const mi = Number(m[2]);
  const sec = Number(m[3] ?? 0);
  let fracMicros = 0n;
  if (m[4]) {
    const f = m[4];
    // Round to microseconds as PostgreSQL does.
    const micros = Number((f + '000000').slice(0, 6));
    const roundUp = f.length > 6 && Number(f[6]) >= 5 ? 1 : 0;
    fracMicros = BigInt(micros + roundUp);
  }
  checkTimeFields(h, mi, sec, fracMicros, text);
  const tod = (BigInt(h) * 3600n + BigInt(mi) * 60n + BigInt(sec)) * MICROS_PER_SEC + fracMicros;
  return { tod, rest: s.slice(m[0].length) };
}

function parseZone(s: string, type: string, text: string): { offsetSecs?: number; zoneName?: string } {
  const z = s.trim();
  if (z === '') return {};
  if (/^z$/i.test(z)) return { offsetSecs: 0 };
  const m = /^([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(z);
  if (m) {
    const v = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
    checkZoneDisplacement(v, text);
    return { offsetSecs: m[1] === '-' ? -v : v };
  }
  if (isValidTimeZone(z)) return { zoneName: z };
  throw badDatetime(type, text);
}

export function parseDateTimeText(text: string, type: string): ParsedDateTime {
  let s = text.trim();
  const lower = s.toLowerCase();
  switch (lower) {
    case 'infinity': case '+infinity': return { days: 0, tod: 0n, hasTime: false, special: 'infinity' };
    case '-infinity': return { days: 0, tod: 0n, hasTime: false, special: '-infinity' };
    case 'epoch': return { days: 0, tod: 0n, hasTime: true, special: 'epoch', offsetSecs: 0 };
    case 'now': return { days: 0, tod: 0n, hasTime: true, special: 'now' };
    case 'today': case 'tomorrow': case 'yesterday': return { days: 0, tod: 0n, hasTime: false, special: lower };
    case 'allballs': return { days: 0, tod: 0n, hasTime: true, special: 'allballs' };
  }
  let bc = false;
  if (/\s+bc$/i.test(s)) { bc = true; s = s.replace(/\s+bc$/i, ''); }
  else if (/\s+ad$/i.test(s)) s = s.replace(/\s+ad$/i, '');
  let y: number, mo: number, d: number;
  let m = DATE_RE.exec(s);
  if (m && m[1]!.length > 2) {
    y = Number(m[1]); mo = Number(m[2]); d = Number(m[3]);
    if (m[3]!.length > 2) throw badDatetime(type, text);
    s = s.slice(m[0].length);
  } else if (m) {
    // A short first field is the month (DateStyle MDY): 12-25-99, 1-2-2024.
    mo = Number(m[1]); d = Number(m[2]); y = twoDigitYear(m[3]!);
    s = s.slice(m[0].length);
  } else if ((m = /^(\d{4})(\d{2})(\d{2})(?=$|[\sT])/.exec(s))) {
    y = Number(m[1]); mo = Number(m[2]); d = Number(m[3]);
    s = s.slice(m[0].length);
  } else if ((m = /^(\d{1,2})\/(\d{1,2})\/(\d{1,4})/.exec(s))) {
    // DateStyle MDY (PostgreSQL's default ordering for slashed dates).
    mo = Number(m[1]); d = Number(m[2]); y = twoDigitYear(m[3]!);
    s = s.slice(m[0].length);
  } else if ((m = /^(\d{1,2})[-\s]([a-z]{3})[a-z]*[-\s](\d{1,4})/i.exec(s)) && MONTHS.includes(m[2]!.toLowerCase())) {
    d = Number(m[1]); mo = MONTHS.indexOf(m[2]!.toLowerCase()) + 1; y = Number(m[3]);
    s = s.slice(m[0].length);
  } else if ((m = /^([a-z]{3})[a-z]*\s+(\d{1,2}),?\s+(\d{1,4})/i.exec(s)) && MONTHS.includes(m[1]!.toLowerCase())) {
    mo = MONTHS.indexOf(m[1]!.toLowerCase()) + 1; d = Number(m[2]); y = Number(m[3]);
    s = s.slice(m[0].length);
  } else {
    throw badDatetime(type, text);
  }
  y = checkDateFields(y, bc, mo, d, text);
  const days = daysFromCivil(y, mo, d);
  s = s.replace(/^[T\s]\s*/i, (x) => (x ? '' : x));
  let tod = 0n;
  let hasTime = false;
  if (s.length > 0 && /^\d/.test(s)) {
    const t = parseTimeOfDay(s, type, text);
    if (!t) throw badDatetime(type, text);
    tod = t.tod; hasTime = true; s = t.rest;
  }
  const zone = parseZone(s, type, text);
  return { days, tod, hasTime, ...zone };
}

export function parseDate(text: string, nowMicros: bigint = BigInt(Date.now()) * 1000n, zone = 'UTC'): number {
  const p = parseDateTimeText(text, 'date');
  switch (p.special) {
    case 'infinity': return Infinity;
    case '-infinity': return -Infinity;
    case 'epoch': return 0;
    case undefined: return checkDateRange(p.days, text);
    default: {
      const local = utcToLocal(nowMicros, zone);
      const today = splitMicros(local).days;
      if (p.special === 'tomorrow') return today + 1;
      if (p.special === 'yesterday') return today - 1;
      return today;
    }
  }
}

export function parseTimestamp(text: string, nowMicros: bigint = BigInt(Date.now()) * 1000n, zone = 'UTC'): bigint {
  const p = parseDateTimeText(text, 'timestamp');
  return checkTimestampRange(timestampFromParsed(p, nowMicros, zone, false), text);
}

export function parseTimestamptz(text: string, zone: string, nowMicros: bigint = BigInt(Date.now()) * 1000n): bigint {
  const p = parseDateTimeText(text, 'timestamp with time zone');
  return checkTimestampRange(timestampFromParsed(p, nowMicros, zone, true), text);
}

function timestampFromParsed(p: ParsedDateTime, now: bigint, zone: string, tz: boolean): bigint {
  switch (p.special) {
    case 'infinity': return TS_POS_INF;
    case '-infinity': return TS_NEG_INF;
    case 'epoch': return 0n;
    case 'now': return tz ? now : utcToLocal(now, zone);
    case 'today': case 'tomorrow': case 'yesterday': {
      const today = BigInt(splitMicros(utcToLocal(now, zone)).days);
      const d = p.special === 'today' ? today : p.special === 'tomorrow' ? today + 1n : today - 1n;
      const local = d * MICROS_PER_DAY;
      return tz ? localToUtc(local, zone) : local;
    }
  }
  const local = BigInt(p.days) * MICROS_PER_DAY + p.tod;
  if (!tz) return local;
  if (p.offsetSecs !== undefined) return local - BigInt(p.offsetSecs) * MICROS_PER_SEC;
  return localToUtc(local, p.zoneName ?? zone);
}

export function parseTime(text: string): bigint {
  const s = text.trim();
  if (s.toLowerCase() === 'allballs') return 0n;
  let t = parseTimeOfDay(s, 'time', text);
  if (!t) {
    // A full timestamp is accepted; its date is ignored.
    try {
      const p = parseDateTimeText(s, 'time without time zone');
      if (!p.hasTime && p.special === undefined) return 0n;
      return p.tod;
    } catch {
      throw badDatetime('time', text);
    }
  }
  const rest = t.rest.trim();
  if (rest !== '' && !/^(?:z|[+-]\d{1,2}(?::?\d{2})?)$/i.test(rest)) {
    if (/^[ap]m$/i.test(rest)) {
      let h = t.tod / 3_600_000_000n;
      const restTod = t.tod % 3_600_000_000n;
      if (rest.toLowerCase() === 'pm' && h < 12n) h += 12n;
      if (rest.toLowerCase() === 'am' && h === 12n) h = 0n;
      t = { tod: h * 3_600_000_000n + restTod, rest: '' };
    } else throw badDatetime('time', text);
  }
  // 23:59:60.5 passes the field checks but lies past 24:00:00.
  if (t.tod > MICROS_PER_DAY) throw fieldOverflow('time', text);
  return t.tod;
}

// ---- intervals ----

const UNIT_ALIASES: Record<string, string> = {
  microsecond: 'microsecond', microseconds: 'microsecond', us: 'microsecond', usec: 'microsecond', usecs: 'microsecond', useconds: 'microsecond', usecond: 'microsecond',
  millisecond: 'millisecond', milliseconds: 'millisecond', ms: 'millisecond', msec: 'millisecond', msecs: 'millisecond', mseconds: 'millisecond', msecond: 'millisecond',
  second: 'second', seconds: 'second', s: 'second', sec: 'second', secs: 'second',
  minute: 'minute', minutes: 'minute', m: 'minute', min: 'minute', mins: 'minute',
  hour: 'hour', hours: 'hour', h: 'hour', hr: 'hour', hrs: 'hour',
  day: 'day', days: 'day', d: 'day',
  week: 'week', weeks: 'week', w: 'week',
  month: 'month', months: 'month', mon: 'month', mons: 'month',
  year: 'year', years: 'year', y: 'year', yr: 'year', yrs: 'year',
  decade: 'decade', decades: 'decade', dec: 'decade', decs: 'decade',
  century: 'century', centuries: 'century', c: 'century', cent: 'century',
  millennium: 'millennium', millennia: 'millennium', millenniums: 'millennium', mil: 'millennium', mils: 'millennium',
};

export function normalizeUnit(u: string): string | undefined {
  return UNIT_ALIASES[u.toLowerCase()];
}

function badInterval(text: string): FloeError {
  return new FloeError(SqlState.invalidDatetimeFormat, `invalid input syntax for type interval: "${text}"`);
}

/** Parses PostgreSQL's interval input: "1 year 2 mons 3 days 04:05:06", "P1Y2M", "-1 day", "@ 1 hour ago", "10". */
export function parseInterval(text: string): Interval {
  let s = text.trim().toLowerCase();
  if (s.startsWith('@')) s = s.slice(1).trim();
  if (s === '') throw badInterval(text);
  if (s.startsWith('p')) return parseIsoInterval(s, text);
  let ago = false;
  if (/\bago$/.test(s)) { ago = true; s = s.replace(/\s*ago$/, ''); }
  let months = 0;
  let days = 0;
  let micros = 0n;
  const tokens = s.split(/\s+/);
  let i = 0;
  let any = false;
  while (i < tokens.length) {
    const tok = tokens[i]!;
    const tm = /^([+-])?(\d+):(\d{1,2})(?::(\d{1,2})(?:\.(\d+))?)?$/.exec(tok);
    if (tm) {
      const sign = tm[1] === '-' ? -1n : 1n;
      const h = BigInt(tm[2]!); const mi = BigInt(tm[3]!); const sec = BigInt(tm[4] ?? '0');
      const frac = BigInt(((tm[5] ?? '') + '000000').slice(0, 6));
      micros += sign * (((h * 60n + mi) * 60n + sec) * MICROS_PER_SEC + frac);
      i++; any = true; continue;
    }
    const nm = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))([a-z]+)?$/.exec(tok);
    if (!nm) throw badInterval(text);
    let unitText = nm[2];
    if (!unitText) {
      unitText = tokens[i + 1];
      if (unitText !== undefined && normalizeUnit(unitText) !== undefined) i++;
      else unitText = 'second';
    }
    const unit = normalizeUnit(unitText);
    if (!unit) throw badInterval(text);
    const n = Number(nm[1]);
    const add = addIntervalUnit({ months, days, micros }, unit, n);
    months = add.months; days = add.days; micros = add.micros;
    i++; any = true;
  }
  if (!any) throw badInterval(text);
  if (ago) return { months: -months, days: -days, micros: -micros };
  return { months, days, micros };
}

function addIntervalUnit(iv: Interval, unit: string, n: number): Interval {
  let { months, days, micros } = iv;
  const frac = (x: number) => x - Math.trunc(x);
  switch (unit) {
    case 'millennium': months += Math.trunc(n * 12000); break;
    case 'century': months += Math.trunc(n * 1200); break;
    case 'decade': months += Math.trunc(n * 120); break;
    case 'year': months += Math.trunc(n * 12); break;
    case 'month': {
      months += Math.trunc(n);
      const fd = frac(n) * 30;
      days += Math.trunc(fd);
      micros += BigInt(Math.round(frac(fd) * 86400e6));
      break;
    }
    case 'week': {
      const d = n * 7;
      days += Math.trunc(d);
      micros += BigInt(Math.round(frac(d) * 86400e6));
      break;
    }
    case 'day':
      days += Math.trunc(n);
      micros += BigInt(Math.round(frac(n) * 86400e6));
      break;
    case 'hour': micros += BigInt(Math.round(n * 3600e6)); break;
    case 'minute': micros += BigInt(Math.round(n * 60e6)); break;
    case 'second': micros += BigInt(Math.round(n * 1e6)); break;
    case 'millisecond': micros += BigInt(Math.round(n * 1e3)); break;
    case 'microsecond': micros += BigInt(Math.round(n)); break;
  }
  return { months, days, micros };
}

function parseIsoInterval(s: string, text: string): Interval {
  const m = /^p(?:(-?[\d.]+)y)?(?:(-?[\d.]+)m)?(?:(-?[\d.]+)w)?(?:(-?[\d.]+)d)?(?:t(?:(-?[\d.]+)h)?(?:(-?[\d.]+)m)?(?:(-?[\d.]+)s)?)?$/.exec(s);
  if (!m || s === 'p' || s === 'pt') throw badInterval(text);
  let iv: Interval = { months: 0, days: 0, micros: 0n };
  const units = ['year', 'month', 'week', 'day', 'hour', 'minute', 'second'];
  units.forEach((u, i) => {
    const v = m[i + 1];
    if (v !== undefined) iv = addIntervalUnit(iv, u, Number(v));
  });
  return iv;
}

/** PostgreSQL's IntervalStyle 'postgres' output. */
export function formatInterval(iv: Interval): string {
  const parts: string[] = [];
  const years = Math.trunc(iv.months / 12);
  const mons = iv.months % 12;
  // After a negative field, PostgreSQL marks positive fields with '+'.
  let sawNegative = false;
  const field = (n: number, w: string) => {
    const sign = n > 0 && sawNegative ? '+' : '';
    if (n < 0) sawNegative = true;
    parts.push(`${sign}${n} ${w}${n === 1 ? '' : 's'}`);
  };
  if (years !== 0) field(years, 'year');
  if (mons !== 0) field(mons, 'mon');
  if (iv.days !== 0) field(iv.days, 'day');
  if (iv.micros !== 0n || parts.length === 0) {
    const neg = iv.micros < 0n;
    const a = neg ? -iv.micros : iv.micros;
    const secs = a / MICROS_PER_SEC;
    const h = secs / 3600n;
    const mi = (secs / 60n) % 60n;
    const sc = secs % 60n;
    const sign = neg ? '-' : sawNegative ? '+' : '';
    parts.push(`${sign}${String(h).padStart(2, '0')}:${p2(Number(mi))}:${p2(Number(sc))}${fracText(a % MICROS_PER_SEC)}`);
  }
  return parts.join(' ');
}

export function intervalToMicrosApprox(iv: Interval): bigint {
  // PostgreSQL's interval comparison: a month is 30 days, a day 24 hours.
  return BigInt(iv.months) * 30n * MICROS_PER_DAY + BigInt(iv.days) * MICROS_PER_DAY + iv.micros;
}

export function intervalCmp(a: Interval, b: Interval): number {
  const x = intervalToMicrosApprox(a);
  const y = intervalToMicrosApprox(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** timestamp (local or UTC micros) + interval: months by calendar (clamping the day), then days, then micros. */
export function addIntervalToLocal(micros: bigint, iv: Interval): bigint {
  if (micros === TS_POS_INF || micros === TS_NEG_INF) return micros;
  let t = micros;
  if (iv.months !== 0) {
    const { days, tod } = splitMicros(t);
    const c = civilFromDays(days);
    let total = c.y * 12 + (c.m - 1) + iv.months;
    const y = Math.floor(total / 12);
    total -= y * 12;
    const m = total + 1;
    const d = Math.min(c.d, daysInMonth(y, m));
    t = BigInt(daysFromCivil(y, m, d)) * MICROS_PER_DAY + tod;
  }
  if (iv.days !== 0) t += BigInt(iv.days) * MICROS_PER_DAY;
  return inTimestampRange(t + iv.micros);
}

/** A computed timestamp outside the range is 22008 `timestamp out of range`, as PostgreSQL's arithmetic reports it. */
export function inTimestampRange(micros: bigint): bigint {
  if (!isValidTimestampMicros(micros)) throw new FloeError(SqlState.datetimeFieldOverflow, 'timestamp out of range');
  return micros;
}

/** timestamptz + interval: months and days move the local wall clock in `zone` (DST-aware), micros are absolute. */
export function addIntervalToTz(micros: bigint, iv: Interval, zone: string): bigint {
  if (micros === TS_POS_INF || micros === TS_NEG_INF) return micros;
  let t = micros;
  if (iv.months !== 0 || iv.days !== 0) {
    const local = utcToLocal(t, zone);
    t = localToUtc(addIntervalToLocal(local, { months: iv.months, days: iv.days, micros: 0n }), zone);
  }
  return inTimestampRange(t + iv.micros);
}

export function negateInterval(iv: Interval): Interval {
  return { months: -iv.months, days: -iv.days, micros: -iv.micros };
}

/** timestamp - timestamp: days and micros (justify_hours-style: whole days split off), as PostgreSQL. */
export function timestampDiff(a: bigint, b: bigint): Interval {
  const diff = a - b;
  const days = diff / MICROS_PER_DAY;
  return { months: 0, days: Number(days), micros: diff - days * MICROS_PER_DAY };
}

/** age(a, b): symbolic years/months/days difference. */
export function age(a: bigint, b: bigint): Interval {
  const neg = a < b;
  const [hi, lo] = neg ? [b, a] : [a, b];
  const A = splitMicros(hi); const B = splitMicros(lo);
  const ca = civilFromDays(A.days); const cb = civilFromDays(B.days);
  let micros = A.tod - B.tod;
  let days = ca.d - cb.d;
  let months = (ca.y - cb.y) * 12 + (ca.m - cb.m);
  if (micros < 0n) { micros += MICROS_PER_DAY; days--; }
  if (days < 0) {
    months--;
    let pm = ca.m - 1; let py = ca.y;
    if (pm === 0) { pm = 12; py--; }
    days += daysInMonth(py, pm);
  }
  const r = { months, days, micros };
  return neg ? negateInterval(r) : r;
}

export function splitTimestamp(micros: bigint): { y: number; m: number; d: number; tod: bigint; days: number } {
  const { days, tod } = splitMicros(micros);
  return { ...civilFromDays(days), tod, days };
}

/** date_trunc on a local timestamp. */
export function truncLocal(field: string, micros: bigint): bigint {
  if (micros === TS_POS_INF || micros === TS_NEG_INF) return micros;
  const unit = normalizeUnit(field);
  const { y, m, tod, days } = splitTimestamp(micros);
  const dayStart = BigInt(days) * MICROS_PER_DAY;
  const atDate = (yy: number, mm: number, dd: number) => BigInt(daysFromCivil(yy, mm, dd)) * MICROS_PER_DAY;
  switch (unit) {
    case 'microsecond': return micros;
    case 'millisecond': return dayStart + (tod / 1000n) * 1000n;
    case 'second': return dayStart + (tod / MICROS_PER_SEC) * MICROS_PER_SEC;
    case 'minute': return dayStart + (tod / 60_000_000n) * 60_000_000n;
    case 'hour': return dayStart + (tod / 3_600_000_000n) * 3_600_000_000n;
    case 'day': return dayStart;
    case 'week': {
      const dow = ((days % 7) + 7 + 3) % 7; // 0 = Monday
      return BigInt(days - dow) * MICROS_PER_DAY;
    }
    case 'month': return atDate(y, m, 1);
    case 'year': return atDate(y, 1, 1);
    case 'decade': return atDate(Math.floor(y / 10) * 10, 1, 1);
    case 'century': return atDate(y > 0 ? Math.floor((y - 1) / 100) * 100 + 1 : -(Math.floor(-y / 100) * 100) - 99, 1, 1);
    case 'millennium': return atDate(y > 0 ? Math.floor((y - 1) / 1000) * 1000 + 1 : -(Math.floor(-y / 1000) * 1000) - 999, 1, 1);
    default:
      if (field.toLowerCase() === 'quarter') return atDate(y, Math.floor((m - 1) / 3) * 3 + 1, 1);
      throw new FloeError(SqlState.featureNotSupported, `unit "${field}" not supported for type timestamp without time zone`);
  }
}
