import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatType, type SqlType } from '../../common/sql-type.js';
import {
  parseDate, parseEnumLabel, parseFloat8, parseJsonNode, parseTimestamp, parseTimestamptz, parseValue,
} from '../../exec/index.js';

/**
 * Converts a string literal to a canonical value of `type` at bind time, for the
 * types whose text form is unambiguous without session settings. Returns
 * undefined when the conversion is left to the executor's cast (dates with
 * DateStyle, timestamps without an explicit zone, intervals, arrays, …).
 * Invalid input raises 22P02 as PostgreSQL does when it sees the literal.
 */
export function convertLiteral(text: string, type: SqlType, position?: number): unknown {
  const invalid = (): FloeError => new FloeError(SqlState.invalidTextRepresentation,
    `invalid input syntax for type ${formatType(type)}: "${text}"`, { position });
  const t = text.trim();
  switch (type.kind) {
    case 'text':
      return type.enumType === undefined ? text : parseEnumLabel(text, type.enumType, position);
    case 'array':
      // An array of labels needs no session setting: folded now, so a bad label is reported at the literal.
      if (type.element.kind !== 'text' || type.element.enumType === undefined) return undefined;
      try {
        return parseValue(text, type, { timeZone: 'UTC' });
      } catch (e) {
        if (e instanceof FloeError && e.position === undefined) throw new FloeError(e.sqlstate, e.message, { position });
        throw e;
      }
    case 'name':
      return text;
    case 'varchar':
      return type.length !== undefined && text.length > type.length ? undefined : text;
    case 'bpchar':
      return type.length === undefined ? text : undefined;
    case 'char':
      return text.length <= 1 ? text : undefined;
    case 'int2': case 'int4': case 'oid': {
      if (!/^[+-]?\d+$/.test(t)) throw invalid();
      const n = Number(t);
      const [lo, hi] = type.kind === 'int2' ? [-32768, 32767] : type.kind === 'int4' ? [-2147483648, 2147483647] : [0, 4294967295];
      if (n < lo || n > hi) {
        throw new FloeError(SqlState.numericValueOutOfRange,
          type.kind === 'oid' ? `value "${text}" is out of range for type oid` : `value "${text}" is out of range for type ${formatType(type)}`, { position });
      }
      return n;
    }
    case 'int8': {
      if (!/^[+-]?\d+$/.test(t)) throw invalid();
      const n = BigInt(t);
      if (n < -(2n ** 63n) || n >= 2n ** 63n) throw new FloeError(SqlState.numericValueOutOfRange, `value "${text}" is out of range for type bigint`, { position });
      return n;
    }
    case 'float4': case 'float8':
      return atPosition(() => parseFloat8(text, type), position);
    case 'numeric': {
      if (type.scale !== undefined) return undefined; // rounding to the scale is the cast's job
      if (/^nan$/i.test(t)) return 'NaN';
      if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) throw invalid();
      return /e/i.test(t) ? undefined : normalizeNumeric(t);
    }
    case 'bool': {
      const v = t.toLowerCase();
      if (['t', 'tr', 'tru', 'true', 'y', 'ye', 'yes', 'on', '1'].includes(v)) return true;
      if (['f', 'fa', 'fal', 'fals', 'false', 'n', 'no', 'off', '0'].includes(v)) return false;
      throw new FloeError(SqlState.invalidTextRepresentation, `invalid input syntax for type boolean: "${text}"`, { position });
    }
    case 'uuid': {
      const hex = t.replace(/^\{|\}$/g, '').replaceAll('-', '').toLowerCase();
      if (!/^[0-9a-f]{32}$/.test(hex)) throw invalid();
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }
    // ISO forms that need no session setting fold here, through the executor's parser so
    // they are validated exactly as a cast at run time would validate them.
    case 'date': {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(t)) return undefined;
      return atPosition(() => parseDate(t), position);
    }
    case 'timestamp': case 'timestamptz': {
      const m = /^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(t);
      if (!m) return undefined;
      // Without an explicit zone a timestamptz literal depends on the session's TimeZone: leave it to the cast.
      if (type.kind === 'timestamptz' && m[1] === undefined) return undefined;
      return atPosition(() => (type.kind === 'timestamptz' ? parseTimestamptz(t, 'UTC') : parseTimestamp(t)), position);
    }
    case 'json': case 'jsonb':
      atPosition(() => parseJsonNode(text, type.kind === 'jsonb'), position);
      return type.kind === 'json' ? text : undefined;
    default:
      return undefined;
  }
}

/** Runs a conversion, reporting its error at the literal's position. */
function atPosition<T>(convert: () => T, position: number | undefined): T {
  try {
    return convert();
  } catch (e) {
    if (e instanceof FloeError && position !== undefined && e.position === undefined) throw e.withPosition(position);
    throw e;
  }
}

/** PostgreSQL's numeric text form: no leading '+', no redundant leading zeros. */
function normalizeNumeric(t: string): string {
  let s = t.startsWith('+') ? t.slice(1) : t;
  const neg = s.startsWith('-');
  if (neg) s = s.slice(1);
  if (s.startsWith('.')) s = `0${s}`;
  if (s.endsWith('.')) s = s.slice(0, -1);
  s = s.replace(/^0+(?=\d)/, '');
  return neg && !/^0(\.0*)?$/.test(s) ? `-${s}` : s;
}
