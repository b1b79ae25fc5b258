import { parseEnumLabel } from './enum-value.js';
import { isValidTimestampMicros } from '../../common/calendar.js';
import { FloeError } from '../../common/floe-error.js';
import type { Interval, SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { timetzFromTime, timetzFromTimestamptz, unpackTimetz } from '../../common/timetz.js';
import { jsonbText, parseJsonb, parseJsonNode } from './json-value.js';
import { typeCategory } from '../functions/type-coercion.js';
import { MICROS_PER_DAY, TS_NEG_INF, TS_POS_INF, localToUtc, utcToLocal } from './datetime.js';
import {
  applyNumericTypmod, castNumericText, decToBigIntRounded, floatToNumericText, formatDecimal, parseDecimal, toDecimal,
} from './numeric.js';
import { applyCharLength, formatValue, parseFloat8, parseValue, typeDisplayName } from './text-io.js';
import type { TextIoSettings } from './text-io.js';

const INT_BOUNDS: Record<string, [bigint, bigint, string]> = {
  int2: [-32768n, 32767n, 'smallint out of range'],
  int4: [-2147483648n, 2147483647n, 'integer out of range'],
  int8: [-(2n ** 63n), 2n ** 63n - 1n, 'bigint out of range'],
};

export function checkIntRange(v: bigint, kind: 'int2' | 'int4' | 'int8'): number | bigint {
  const [lo, hi, msg] = INT_BOUNDS[kind]!;
  if (v < lo || v > hi) throw new FloeError(SqlState.numericValueOutOfRange, msg);
  return kind === 'int8' ? v : Number(v);
}

/** Round half to even, like C's rint() that PostgreSQL's float→int casts use. */
function rint(x: number): number {
  const r = Math.round(x);
  if (Math.abs(x % 1) === 0.5 && r % 2 !== 0) return r - 1;
  return r;
}

function isStringKind(k: SqlType['kind']): boolean {
  return k === 'text' || k === 'varchar' || k === 'bpchar' || k === 'name' || k === 'char' || k === 'unknown';
}

/** jsonb's canonical text: keys sorted by (byte length, bytes), last duplicate wins, ", " and ": " separators, numbers as numeric prints them. */
export function jsonbNormalize(text: string): string {
  return jsonbText(parseJsonb(text));
}

/**
 * Converts a non-NULL canonical value between SQL types with PostgreSQL's
 * semantics (range checks, rounding, text I/O formats). `explicit` marks a
 * CAST/:: (char(n)/varchar(n) then truncate instead of failing).
 */
export function castValue(v: unknown, from: SqlType, to: SqlType, settings: TextIoSettings, explicit = true): unknown {
  const fk = from.kind;
  const tk = to.kind;
  if (isStringKind(tk) || tk === 'json' || tk === 'jsonb') {
    let s: string;
    if (fk === 'bool' && tk !== 'json' && tk !== 'jsonb') s = v ? 'true' : 'false';
    else if (isStringKind(fk) || fk === 'json' || fk === 'jsonb') s = v as string;
    else s = formatValue(v, from, settings);
    if (fk === 'bpchar' && tk !== 'bpchar') s = s.replace(/ +$/, '');
    switch (tk) {
      case 'varchar': case 'bpchar': return applyCharLength(s, to, explicit);
      case 'char': return s.slice(0, 1);
      case 'name': return s.slice(0, 63);
      case 'jsonb': return jsonbNormalize(s);
      case 'json': {
        if (!isStringKind(fk) && fk !== 'jsonb') {
          throw new FloeError(SqlState.cannotCoerce, `cannot cast type ${typeDisplayName(from)} to json`);
        }
        parseJsonNode(s);
        return s;
      }
      default:
        // text → an enum: the label must be one of the type's (enum_in); enum → text is the label.
        if (to.kind === 'text' && to.enumType !== undefined && !(from.kind === 'text' && from.enumType?.oid === to.enumType.oid)) {
          return parseEnumLabel(s, to.enumType);
        }
        return s;
    }
  }
  if (isStringKind(fk)) {
    const s = fk === 'bpchar' ? (v as string).replace(/ +$/, '') : (v as string);
    return parseValue(s, to, settings);
  }
  if (fk === tk && tk !== 'array') {
    if (tk === 'numeric') {
      if (typeof v === 'string') return castNumericText(v, to.precision, to.scale);
      return formatDecimal(applyNumericTypmod(toDecimal(v), to.precision, to.scale));
    }
    return v;
  }
  switch (tk) {
    case 'int2': case 'int4': case 'int8': {
      if (fk === 'int2' || fk === 'int4' || fk === 'int8' || fk === 'oid' || fk === 'regclass' || fk === 'regtype' || fk === 'regproc' || fk === 'regprocedure') {
        return checkIntRange(BigInt(v as number | bigint), tk);
      }
      if (fk === 'float4' || fk === 'float8') {
        const x = v as number;
        if (!Number.isFinite(x)) throw new FloeError(SqlState.numericValueOutOfRange, INT_BOUNDS[tk]![2]);
        return checkIntRange(BigInt(rint(x)), tk);
      }
      if (fk === 'numeric') return checkIntRange(decToBigIntRounded(parseDecimal(v as string)), tk);
      if (fk === 'bool' && tk === 'int4') return v ? 1 : 0;
      if (fk === 'jsonb') return castValue(JSON.parse(v as string), { kind: 'numeric' }, to, settings);
      break;
    }
    case 'float4': case 'float8': {
      let x: number;
      // numeric → float goes through the numeric's text, as PostgreSQL's numeric_float8 does, so its range errors match.
      if (fk === 'numeric') return (v as string) === 'NaN' ? NaN : parseFloat8(v as string, to);
      else if (typeof v === 'bigint') x = Number(v);
      else if (typeof v === 'number') x = v;
      else break;
      if (tk === 'float4') {
        const f = Math.fround(x);
        if (!Number.isFinite(f) && Number.isFinite(x)) throw new FloeError(SqlState.numericValueOutOfRange, 'value out of range: overflow');
        return f;
      }
      return x;
    }
    case 'numeric': {
      let d;
      if (fk === 'float4' || fk === 'float8') {
        const x = v as number;
        if (Number.isNaN(x)) return 'NaN';
        d = parseDecimal(floatToNumericText(x, fk === 'float4' ? 6 : 15));
      } else if (fk === 'jsonb') d = parseDecimal(v as string);
      else d = toDecimal(v);
      return formatDecimal(applyNumericTypmod(d, to.precision, to.scale));
    }
    case 'bool':
      if (fk === 'int4') return (v as number) !== 0;
      if (fk === 'jsonb') return v === 'true';
      break;
    case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure':
      if (typeCategory(from) === 'N') return Number(v) >>> 0;
      break;
    case 'date': {
      const zone = settings.timeZone;
      if (fk === 'timestamp' || fk === 'timestamptz') {
        let t = v as bigint;
        if (t === TS_POS_INF) return Infinity;
        if (t === TS_NEG_INF) return -Infinity;
        if (fk === 'timestamptz') t = utcToLocal(t, zone);
        let d = t / MICROS_PER_DAY;
        if (t % MICROS_PER_DAY < 0n) d -= 1n;
        return Number(d);
      }
      break;
    }
    case 'timestamp': case 'timestamptz': {
      const zone = settings.timeZone;
      if (fk === 'date') {
        const d = v as number;
        if (d === Infinity) return TS_POS_INF;
        if (d === -Infinity) return TS_NEG_INF;
        const local = BigInt(d) * MICROS_PER_DAY;
        // Dates reach further than timestamps (5874897 AD against 294276 AD).
        if (!isValidTimestampMicros(local)) throw new FloeError(SqlState.datetimeFieldOverflow, 'date out of range for timestamp');
        return tk === 'timestamptz' ? localToUtc(local, zone) : local;
      }
      if (fk === 'timestamp' && tk === 'timestamptz') return localToUtc(v as bigint, zone);
      if (fk === 'timestamptz' && tk === 'timestamp') return utcToLocal(v as bigint, zone);
      break;
    }
    case 'time': {
      if (fk === 'timetz') return unpackTimetz(v as bigint).micros;
      if (fk === 'timestamp' || fk === 'timestamptz') {
        let t = v as bigint;
        if (fk === 'timestamptz') t = utcToLocal(t, settings.timeZone);
        let r = t % MICROS_PER_DAY;
        if (r < 0n) r += MICROS_PER_DAY;
        return r;
      }
      if (fk === 'interval') {
        let r = (v as Interval).micros % MICROS_PER_DAY;
        if (r < 0n) r += MICROS_PER_DAY;
        return r;
      }
      break;
    }
    case 'timetz':
      if (fk === 'time') return timetzFromTime(v as bigint, settings.timeZone, settings.nowMicros ?? BigInt(Date.now()) * 1000n);
      if (fk === 'timestamptz') return timetzFromTimestamptz(v as bigint, settings.timeZone);
      break;
    case 'interval':
      if (fk === 'time') return { months: 0, days: 0, micros: v as bigint } satisfies Interval;
      break;
    case 'array':
      if (from.kind === 'array') {
        const el = to.element;
        // A multi-dimensional array is nested JS arrays: cast its leaves.
        const castItems = (items: unknown[]): unknown[] => items.map((e) => (e === null ? null
          : Array.isArray(e) ? castItems(e) : castValue(e, from.element, el, settings, explicit)));
        return castItems(v as unknown[]);
      }
      break;
    default:
      break;
  }
  throw new FloeError(SqlState.cannotCoerce, `cannot cast type ${typeDisplayName(from)} to ${typeDisplayName(to)}`);
}
