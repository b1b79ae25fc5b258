import { checkDateFields, checkTimeFields, daysInMonthOf } from '../../common/calendar.js';
import { FloeError } from '../../common/floe-error.js';
import type { Interval, SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { timetzFromTimestamptz, unpackTimetz } from '../../common/timetz.js';
import type { EvalContext } from '../expr/eval-context.js';
import {
  MICROS_PER_DAY, TS_NEG_INF, TS_POS_INF, age, civilFromDays, daysFromCivil, localToUtc, normalizeUnit,
  splitTimestamp, truncLocal, utcToLocal, zoneOffsetSeconds, isValidTimeZone,
} from '../types/datetime.js';
import { formatDecimal, parseDecimal, rescale } from '../types/numeric.js';
import type { Decimal } from '../types/numeric.js';
import { BuiltinTypes as T } from './builtin-operators.js';
import { registerScalarFunction } from './function-registry.js';
import { toCharNumber, toCharTimestamp } from './to-char.js';
import { dateBin } from './date-bin.js';

const tz = (ctx: EvalContext) => ctx.settings.get('timezone') ?? 'UTC';

function badUnit(field: string, type: string): FloeError {
  return new FloeError(SqlState.featureNotSupported, `unit "${field}" not supported for type ${type}`);
}

const dec = (unscaled: bigint, scale = 0): Decimal => ({ unscaled, scale });

function isoWeek(y: number, m: number, d: number): { week: number; isoYear: number } {
  const days = daysFromCivil(y, m, d);
  const dow = ((days % 7) + 7 + 3) % 7; // 0 = Monday
  const thursday = days - dow + 3;
  const ty = civilFromDays(thursday).y;
  const jan1 = daysFromCivil(ty, 1, 1);
  return { week: Math.floor((thursday - jan1) / 7) + 1, isoYear: ty };
}

/** extract(field from local timestamp micros); `isDate` drops sub-day fields' scale as PostgreSQL does for dates. */
function extractLocal(field: string, local: bigint, typeName: string, isDate: boolean, utcMicros?: bigint, offsetSecs?: number): Decimal {
  const f = field.toLowerCase();
  const { y, m, d, tod, days } = splitTimestamp(local);
  const sec = tod % 60_000_000n;
  switch (normalizeUnit(f) ?? f) {
    case 'year': return dec(BigInt(y > 0 ? y : y - 1));
    case 'month': return dec(BigInt(m));
    case 'day': return dec(BigInt(d));
    case 'hour': if (isDate) throw badUnit(field, typeName); return dec(tod / 3_600_000_000n);
    case 'minute': if (isDate) throw badUnit(field, typeName); return dec((tod / 60_000_000n) % 60n);
    case 'second': if (isDate) throw badUnit(field, typeName); return dec(sec, 6);
    case 'millisecond': if (isDate) throw badUnit(field, typeName); return dec(sec, 3);
    case 'microsecond': if (isDate) throw badUnit(field, typeName); return dec(sec);
    case 'quarter': return dec(BigInt(Math.floor((m - 1) / 3) + 1));
    case 'decade': return dec(BigInt(Math.floor(y / 10)));
    case 'century': return dec(BigInt(y > 0 ? Math.floor((y + 99) / 100) : -Math.floor((99 - (y - 1)) / 100)));
    case 'millennium': return dec(BigInt(y > 0 ? Math.floor((y + 999) / 1000) : -Math.floor((999 - (y - 1)) / 1000)));
    case 'week': return dec(BigInt(isoWeek(y, m, d).week));
    default:
      switch (f) {
        case 'dow': return dec(BigInt(((days % 7) + 7 + 4) % 7));
        case 'isodow': { const w = ((days % 7) + 7 + 4) % 7; return dec(BigInt(w === 0 ? 7 : w)); }
        case 'doy': return dec(BigInt(days - daysFromCivil(y, 1, 1) + 1));
        case 'isoyear': return dec(BigInt(isoWeek(y, m, d).isoYear));
        case 'epoch': {
          const u = utcMicros ?? local;
          return isDate ? dec(u / 1_000_000n) : dec(u, 6);
        }
        case 'julian': return isDate ? dec(BigInt(days + 2440588)) : rescale(parseDecimal(String(days + 2440588 + Number(tod) / 86400e6)), 0);
        case 'timezone': if (offsetSecs === undefined) throw badUnit(field, typeName); return dec(BigInt(offsetSecs));
        case 'timezone_hour': if (offsetSecs === undefined) throw badUnit(field, typeName); return dec(BigInt(Math.trunc(offsetSecs / 3600)));
        case 'timezone_minute': if (offsetSecs === undefined) throw badUnit(field, typeName); return dec(BigInt(Math.trunc((offsetSecs % 3600) / 60)));
      }
      throw new FloeError(SqlState.invalidParameterValue, `unit "${field}" not recognized for type ${typeName}`);
  }
}

function extractInterval(field: string, iv: Interval): Decimal {
  const f = field.toLowerCase();
  switch (normalizeUnit(f) ?? f) {
    case 'year': return dec(BigInt(Math.trunc(iv.months / 12)));
    case 'month': return dec(BigInt(iv.months % 12));
    case 'day': return dec(BigInt(iv.days));
    case 'hour': return dec(iv.micros / 3_600_000_000n);
    case 'minute': return dec((iv.micros / 60_000_000n) % 60n);
    case 'second': return dec(iv.micros % 60_000_000n, 6);
    case 'millisecond': return dec(iv.micros % 60_000_000n, 3);
    case 'microsecond': return dec(iv.micros % 60_000_000n);
    case 'quarter': return dec(BigInt(Math.trunc((iv.months % 12) / 3) + 1));
    case 'decade': return dec(BigInt(Math.trunc(iv.months / 120)));
    case 'century': return dec(BigInt(Math.trunc(iv.months / 1200)));
    case 'millennium': return dec(BigInt(Math.trunc(iv.months / 12000)));
    default:
      if (f === 'epoch') {
        // PostgreSQL: a year is 365.25 days, a month 30 days.
        const years = BigInt(Math.trunc(iv.months / 12));
        const months = BigInt(iv.months % 12);
        const micros = years * 31_557_600_000_000n + months * 30n * MICROS_PER_DAY + BigInt(iv.days) * MICROS_PER_DAY + iv.micros;
        return dec(micros, 6);
      }
      throw new FloeError(SqlState.invalidParameterValue, `unit "${field}" not recognized for type interval`);
  }
}

/**
 * extract(year|month|day from date) straight from the civil date, without the
 * timestamp split and Decimal the general path builds (`extract(year from
 * order_date)` runs per row in reports that group by year); undefined for other fields and infinities.
 */
function extractDateField(field: string, days: number): string | undefined {
  if (field.length > 5 || !Number.isFinite(days)) return undefined;
  let known = extractedDates.get(field);
  if (known === undefined) {
    const f = field.toLowerCase();
    if (f !== 'year' && f !== 'month' && f !== 'day') return undefined;
    if (extractedDates.size >= 16) extractedDates.clear();
    known = { f, byDay: new Map() };
    extractedDates.set(field, known);
  }
  const { f, byDay } = known;
  let text = byDay.get(days);
  if (text === undefined) {
    const { y, m, d } = civilFromDays(days);
    // PostgreSQL has no year 0: 1 BC is year -1.
    text = String(f === 'year' ? (y > 0 ? y : y - 1) : f === 'month' ? m : d);
    if (byDay.size >= EXTRACTED_DATES_KEPT) byDay.clear();
    byDay.set(days, text);
  }
  return text;
}

/**
 * extract(year|month|day from date) by field spelling (with its lower-case form), then by day: a column holds few
 * distinct dates, and computing each row's civil date and text cost ~140 ns a row (over
 * 324k rows).
 */
const extractedDates = new Map<string, { readonly f: 'year' | 'month' | 'day'; readonly byDay: Map<number, string> }>();
const EXTRACTED_DATES_KEPT = 1 << 16;

/** Units whose value at ±infinity is ±Infinity (PostgreSQL 14+); other units give NULL there. */
const INFINITE_UNITS = new Set(['year', 'decade', 'century', 'millennium', 'julian', 'isoyear', 'epoch']);

/**
 * 1 / -1 when `field` of an infinite date or timestamp is itself ±infinite
 * (INFINITE_UNITS), else 0: extract and date_part then answer without extractAny.
 */
function infinitePart(field: string, v: unknown, t: SqlType): number {
  let sign = 0;
  if (t.kind === 'date') sign = v === Infinity ? 1 : v === -Infinity ? -1 : 0;
  else if (t.kind === 'timestamp' || t.kind === 'timestamptz') sign = v === TS_POS_INF ? 1 : v === TS_NEG_INF ? -1 : 0;
  if (sign === 0) return 0;
  const unit = field.toLowerCase();
  return INFINITE_UNITS.has(normalizeUnit(unit) ?? unit) ? sign : 0;
}

/** The fields PostgreSQL's timetz_part knows. */
const TIMETZ_UNITS = new Set(['hour', 'minute', 'second', 'millisecond', 'microsecond', 'epoch', 'timezone', 'timezone_hour', 'timezone_minute']);

function extractAny(field: string, v: unknown, t: SqlType, ctx: EvalContext): Decimal | null {
  switch (t.kind) {
    case 'date': {
      const d = v as number;
      if (!Number.isFinite(d)) return null;
      const local = BigInt(d) * MICROS_PER_DAY;
      return extractLocal(field, local, 'date', true, local);
    }
    case 'timestamp': {
      const u = v as bigint;
      if (u === TS_POS_INF || u === TS_NEG_INF) return null;
      return extractLocal(field, u, 'timestamp without time zone', false, u);
    }
    case 'timestamptz': {
      const u = v as bigint;
      if (u === TS_POS_INF || u === TS_NEG_INF) return null;
      const off = zoneOffsetSeconds(tz(ctx), u);
      return extractLocal(field, u + BigInt(off) * 1_000_000n, 'timestamp with time zone', false, u, off);
    }
    case 'time': {
      const u = v as bigint;
      const f = field.toLowerCase();
      if (f === 'epoch') return dec(u, 6);
      if (['year', 'month', 'day', 'dow', 'doy', 'quarter', 'week'].includes(normalizeUnit(f) ?? f)) throw badUnit(field, 'time without time zone');
      return extractLocal(field, u, 'time without time zone', false, u);
    }
    case 'timetz': {
      const { micros, zoneWest } = unpackTimetz(v as bigint);
      const f = field.toLowerCase();
      if (!TIMETZ_UNITS.has(normalizeUnit(f) ?? f)) throw badUnit(field, 'time with time zone');
      return extractLocal(field, micros, 'time with time zone', false, micros + BigInt(zoneWest) * 1_000_000n, -zoneWest);
    }
    case 'interval': return extractInterval(field, v as Interval);
    default: throw new FloeError(SqlState.undefinedFunction, `function extract(unknown, ${t.kind}) does not exist`);
  }
}

export function registerBuiltinDatetimeFunctions(): void {
  const S = T.text; const D = T.date; const TS = T.timestamp; const TZ = T.timestamptz; const IV = T.interval; const TM = T.time;
  for (const t of [D, TS, TZ, TM, IV, T.timetz] as SqlType[]) {
    const isDate = t.kind === 'date';
    registerScalarFunction({
      name: 'extract', args: [S, t], returns: T.numeric,
      impl: ([f, v], ctx) => {
        const fast = isDate ? extractDateField(f as string, v as number) : undefined;
        if (fast !== undefined) return fast;
        const inf = infinitePart(f as string, v, t);
        if (inf !== 0) return inf > 0 ? 'Infinity' : '-Infinity';
        const r = extractAny(f as string, v, t, ctx);
        return r === null ? null : formatDecimal(r);
      },
    });
    registerScalarFunction({
      name: 'date_part', args: [S, t], returns: T.float8,
      impl: ([f, v], ctx) => {
        const inf = infinitePart(f as string, v, t);
        if (inf !== 0) return inf > 0 ? Infinity : -Infinity;
        const r = extractAny(f as string, v, t, ctx);
        if (r === null) return null;
        return Number(formatDecimal(r));
      },
    });
  }
  registerScalarFunction({ name: 'date_trunc', args: [S, TS], returns: TS, impl: ([f, v]) => truncLocal(f as string, v as bigint) });
  for (const t of [TS, TZ]) registerScalarFunction({ name: 'date_bin', args: [T.interval, t, t], returns: t, impl: ([s, v, o]) => dateBin(s as Interval, v as bigint, o as bigint) });
  registerScalarFunction({
    name: 'date_trunc', args: [S, TZ], returns: TZ,
    impl: ([f, v], ctx) => localToUtc(truncLocal(f as string, utcToLocal(v as bigint, tz(ctx))), tz(ctx)),
  });
  registerScalarFunction({
    name: 'date_trunc', args: [S, TZ, S], returns: TZ,
    impl: ([f, v, z]) => localToUtc(truncLocal(f as string, utcToLocal(v as bigint, z as string)), z as string),
  });
  registerScalarFunction({
    name: 'date_trunc', args: [S, IV], returns: IV,
    impl: ([f, v]) => {
      const iv = v as Interval;
      const u = normalizeUnit(f as string);
      const years = Math.trunc(iv.months / 12);
      switch (u) {
        case 'year': return { months: years * 12, days: 0, micros: 0n };
        case 'month': return { months: iv.months, days: 0, micros: 0n };
        case 'day': return { months: iv.months, days: iv.days, micros: 0n };
        case 'hour': return { ...iv, micros: (iv.micros / 3_600_000_000n) * 3_600_000_000n };
        case 'minute': return { ...iv, micros: (iv.micros / 60_000_000n) * 60_000_000n };
        case 'second': return { ...iv, micros: (iv.micros / 1_000_000n) * 1_000_000n };
        default: return iv;
      }
    },
  });
  const now = (ctx: EvalContext) => ctx.transactionStartMicros;
  for (const n of ['now', 'current_timestamp', 'transaction_timestamp']) {
    registerScalarFunction({ name: n, args: [], returns: TZ, impl: (_a, ctx) => now(ctx) });
  }
  registerScalarFunction({ name: 'statement_timestamp', args: [], returns: TZ, impl: (_a, ctx) => ctx.statementStartMicros });
  registerScalarFunction({ name: 'clock_timestamp', args: [], returns: TZ, volatile: true, impl: () => BigInt(Date.now()) * 1000n });
  registerScalarFunction({
    name: 'current_date', args: [], returns: D,
    impl: (_a, ctx) => Number(utcToLocal(now(ctx), tz(ctx)) / MICROS_PER_DAY),
  });
  registerScalarFunction({ name: 'localtimestamp', args: [], returns: TS, impl: (_a, ctx) => utcToLocal(now(ctx), tz(ctx)) });
  registerScalarFunction({
    name: 'localtime', args: [], returns: TM,
    impl: (_a, ctx) => { const l = utcToLocal(now(ctx), tz(ctx)) % MICROS_PER_DAY; return l < 0n ? l + MICROS_PER_DAY : l; },
  });
  // current_time is time with time zone in PostgreSQL: the wall clock and the session zone's offset.
  registerScalarFunction({ name: 'current_time', args: [], returns: T.timetz, impl: (_a, ctx) => timetzFromTimestamptz(now(ctx), tz(ctx)) });
  registerScalarFunction({ name: 'age', args: [TS, TS], returns: IV, impl: ([a, b]) => age(a as bigint, b as bigint) });
  registerScalarFunction({
    name: 'age', args: [TZ, TZ], returns: IV,
    impl: ([a, b], ctx) => age(utcToLocal(a as bigint, tz(ctx)), utcToLocal(b as bigint, tz(ctx))),
  });
  registerScalarFunction({
    name: 'age', args: [TS], returns: IV,
    impl: ([a], ctx) => {
      const midnight = (utcToLocal(now(ctx), tz(ctx)) / MICROS_PER_DAY) * MICROS_PER_DAY;
      return age(midnight, a as bigint);
    },
  });
  registerScalarFunction({
    name: 'make_date', args: [T.int4, T.int4, T.int4], returns: D,
    impl: ([y, m, d]) => madeDateDays(y as number, m as number, d as number),
  });
  registerScalarFunction({
    name: 'make_timestamp', args: [T.int4, T.int4, T.int4, T.int4, T.int4, T.float8], returns: TS,
    impl: ([y, mo, d, h, mi, s]) => BigInt(madeDateDays(y as number, mo as number, d as number)) * MICROS_PER_DAY
      + BigInt(h as number) * 3_600_000_000n + BigInt(mi as number) * 60_000_000n + BigInt(Math.round((s as number) * 1e6)),
  });
  registerScalarFunction({
    name: 'to_timestamp', args: [T.float8], returns: TZ,
    impl: ([s]) => {
      const x = s as number;
      if (x === Infinity) return TS_POS_INF;
      if (x === -Infinity) return TS_NEG_INF;
      return BigInt(Math.round(x * 1e6));
    },
  });
  registerScalarFunction({
    name: 'to_timestamp', args: [S, S], returns: TZ,
    impl: ([s, f], ctx) => localToUtc(parseWithFormat(s as string, f as string), tz(ctx)),
  });
  registerScalarFunction({
    name: 'to_date', args: [S, S], returns: D,
    impl: ([s, f]) => Number(parseWithFormat(s as string, f as string) / MICROS_PER_DAY),
  });
  // AT TIME ZONE
  registerScalarFunction({
    name: 'timezone', args: [S, TZ], returns: TS,
    impl: ([z, v]) => { checkZone(z as string); return utcToLocal(v as bigint, z as string); },
  });
  registerScalarFunction({
    name: 'timezone', args: [S, TS], returns: TZ,
    impl: ([z, v]) => { checkZone(z as string); return localToUtc(v as bigint, z as string); },
  });
  registerScalarFunction({
    name: 'timezone', args: [IV, TZ], returns: TS,
    impl: ([z, v]) => (v as bigint) + (z as Interval).micros,
  });
  for (const t of [D, TS, TZ] as SqlType[]) {
    registerScalarFunction({
      name: 'isfinite', args: [t], returns: T.bool,
      impl: ([v]) => (typeof v === 'number' ? Number.isFinite(v) : v !== TS_POS_INF && v !== TS_NEG_INF),
    });
  }
  registerScalarFunction({ name: 'isfinite', args: [IV], returns: T.bool, impl: () => true });
  registerScalarFunction({
    name: 'justify_days', args: [IV], returns: IV,
    impl: ([v]) => { const iv = v as Interval; const m = Math.trunc(iv.days / 30); return { months: iv.months + m, days: iv.days - m * 30, micros: iv.micros }; },
  });
  registerScalarFunction({
    name: 'justify_hours', args: [IV], returns: IV,
    impl: ([v]) => { const iv = v as Interval; const d = iv.micros / MICROS_PER_DAY; return { months: iv.months, days: iv.days + Number(d), micros: iv.micros - d * MICROS_PER_DAY }; },
  });
  registerScalarFunction({
    name: 'make_interval', args: [T.int4, T.int4, T.int4, T.int4, T.int4, T.int4, T.float8], returns: IV,
    impl: ([y, m, w, d, h, mi, s]) => ({
      months: (y as number) * 12 + (m as number), days: (w as number) * 7 + (d as number),
      micros: BigInt(h as number) * 3_600_000_000n + BigInt(mi as number) * 60_000_000n + BigInt(Math.round((s as number) * 1e6)),
    }),
  });
  // to_char
  for (const t of [TS, TZ, D, IV] as SqlType[]) {
    registerScalarFunction({
      name: 'to_char', args: [t, S], returns: S,
      impl: ([v, f], ctx) => {
        let local: bigint; let off: number | undefined;
        if (t.kind === 'date') local = BigInt(v as number) * MICROS_PER_DAY;
        else if (t.kind === 'timestamptz') { off = zoneOffsetSeconds(tz(ctx), v as bigint); local = (v as bigint) + BigInt(off) * 1_000_000n; }
        else if (t.kind === 'interval') { const iv = v as Interval; local = BigInt(iv.days) * MICROS_PER_DAY + iv.micros; }
        else local = v as bigint;
        return toCharTimestamp(local, f as string, off, t.kind === 'timestamptz' ? tz(ctx) : undefined);
      },
    });
  }
  for (const t of [T.int4, T.int8, T.numeric, T.float8] as SqlType[]) {
    registerScalarFunction({ name: 'to_char', args: [t, S], returns: S, impl: ([v, f]) => toCharNumber(String(v), f as string) });
  }
}

function checkZone(z: string): void {
  if (!isValidTimeZone(z)) throw new FloeError(SqlState.invalidParameterValue, `time zone "${z}" not recognized`);
}

/** make_date's days: negative years are BC, and the date must exist (22008 `date field value out of range: 2024-02-30`). */
function madeDateDays(y: number, m: number, d: number): number {
  const year = y < 0 ? y + 1 : y;
  if (y === 0 || m < 1 || m > 12 || d < 1 || d > daysInMonthOf(year, m)) {
    throw new FloeError(SqlState.datetimeFieldOverflow, `date field value out of range: ${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
  }
  return daysFromCivil(year, m, d);
}

/** to_timestamp/to_date with the common format fields (YYYY MM DD HH24 HH MI SS MS US, Mon/Month); other text separates. */
function parseWithFormat(s: string, f: string): bigint {
  const fmt = f.replace(/^FM/i, '');
  const tokens = ['YYYY', 'MONTH', 'Month', 'month', 'MON', 'Mon', 'mon', 'MM', 'DDD', 'DD', 'HH24', 'HH12', 'HH', 'MI', 'SS', 'MS', 'US', 'AM', 'PM', 'YY'];
  let y = 1, m = 1, d = 1, h = 0, mi = 0, sec = 0, us = 0; let pm: boolean | undefined;
  let si = 0; let fi = 0;
  const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
  while (fi < fmt.length && si <= s.length) {
    const tok = tokens.find((t) => fmt.startsWith(t, fi));
    if (!tok) {
      fi++;
      if (si < s.length && !/[0-9a-z]/i.test(s[si]!)) si++;
      continue;
    }
    fi += tok.length;
    while (si < s.length && /\s/.test(s[si]!)) si++;
    if (/^mon/i.test(tok)) {
      const word = /^[a-z]+/i.exec(s.slice(si))?.[0] ?? '';
      const idx = months.indexOf(word.slice(0, 3).toLowerCase());
      if (idx < 0) throw new FloeError(SqlState.invalidDatetimeFormat, `invalid value "${word}" for "${tok}"`);
      m = idx + 1; si += word.length;
      continue;
    }
    if (tok === 'AM' || tok === 'PM') {
      pm = s.slice(si, si + 2).toUpperCase() === 'PM'; si += 2;
      continue;
    }
    const maxLen = tok === 'YYYY' ? 4 : tok === 'DDD' || tok === 'MS' ? 3 : tok === 'US' ? 6 : 2;
    const num = /^\d+/.exec(s.slice(si, si + maxLen))?.[0];
    if (num === undefined) throw new FloeError(SqlState.invalidDatetimeFormat, `invalid value "${s.slice(si, si + maxLen)}" for "${tok}"`);
    si += num.length;
    const n = Number(num);
    switch (tok) {
      case 'YYYY': y = n; break;
      case 'YY': y = 2000 + n; break;
      case 'MM': m = n; break;
      case 'DD': d = n; break;
      case 'HH24': h = n; break;
      case 'HH': case 'HH12': h = n % 12; break;
      case 'MI': mi = n; break;
      case 'SS': sec = n; break;
      case 'MS': us = n * 1000; break;
      case 'US': us = n; break;
    }
  }
  if (pm) h += 12;
  checkDateFields(y, false, m, d, s);
  checkTimeFields(h, mi, sec, us, s);
  return BigInt(daysFromCivil(y, m, d)) * MICROS_PER_DAY + BigInt(h) * 3_600_000_000n + BigInt(mi) * 60_000_000n + BigInt(sec) * 1_000_000n + BigInt(us);
}

