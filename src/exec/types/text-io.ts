import { parseEnumLabel } from './enum-value.js';
import { FloeError } from '../../common/floe-error.js';
import type { Interval, SqlType } from '../../common/sql-type.js';
import { formatType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatTimetz, parseTimetz } from '../../common/timetz.js';
import {
  formatDate, formatInterval, formatTime, formatTimestamp, formatTimestamptz,
  parseDate, parseInterval, parseTime, parseTimestamp, parseTimestamptz,
} from './datetime.js';
import { applyNumericTypmod, formatDecimal, parseDecimal } from './numeric.js';
import { jsonbText, parseJsonb, parseJsonNode } from './json-value.js';

/** Session bits that change text I/O. */
export interface TextIoSettings {
  readonly timeZone: string;
  readonly nowMicros?: bigint;
}

export function typeDisplayName(t: SqlType): string {
  if (t.kind === 'bpchar') return 'character';
  if (t.kind === 'varchar') return 'character varying';
  return formatType({ ...t, ...(t.kind === 'numeric' ? { precision: undefined } : {}) } as SqlType).replace(/\(.*\)$/, '');
}

function invalid(t: SqlType, text: string): FloeError {
  return new FloeError(SqlState.invalidTextRepresentation, `invalid input syntax for type ${typeDisplayName(t)}: "${text}"`);
}

function outOfRange(t: SqlType, text: string): FloeError {
  return new FloeError(SqlState.numericValueOutOfRange, `value "${text}" is out of range for type ${typeDisplayName(t)}`);
}

const INT_RE = /^\s*([+-]?\d+)\s*$/;
const LIMITS = { int2: [-32768n, 32767n], int4: [-2147483648n, 2147483647n], int8: [-(2n ** 63n), 2n ** 63n - 1n] } as const;

export function parseInteger(text: string, t: SqlType & { kind: 'int2' | 'int4' | 'int8' }): number | bigint {
  const m = INT_RE.exec(text);
  if (!m) throw invalid(t, text);
  const v = BigInt(m[1]!);
  const [lo, hi] = LIMITS[t.kind];
  if (v < lo || v > hi) throw outOfRange(t, text);
  return t.kind === 'int8' ? v : Number(v);
}

export function parseBool(text: string): boolean {
  const s = text.trim().toLowerCase();
  if (s.length > 0) {
    if ('true'.startsWith(s) || 'yes'.startsWith(s) || s === 'on' || s === '1') return true;
    if ('false'.startsWith(s) || 'no'.startsWith(s) || s === 'off' || s === 'of' || s === '0') {
      if (s !== 'o') return false;
    }
  }
  throw invalid({ kind: 'bool' }, text);
}

export function parseFloat8(text: string, t: SqlType = { kind: 'float8' }): number {
  const s = text.trim();
  const lower = s.toLowerCase();
  if (lower === 'nan') return NaN;
  if (lower === 'infinity' || lower === '+infinity' || lower === 'inf' || lower === '+inf') return Infinity;
  if (lower === '-infinity' || lower === '-inf') return -Infinity;
  if (!/^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(s)) throw invalid(t, text);
  const v = t.kind === 'float4' ? Math.fround(Number(s)) : Number(s);
  // As float8in/float4in: a finite text that overflows to infinity, or a non-zero one
  // that underflows to zero, is out of range (denormals are kept).
  if (!Number.isFinite(v) || (v === 0 && /[1-9]/.test(s.replace(/e.*$/i, '')))) {
    throw new FloeError(SqlState.numericValueOutOfRange, `"${s}" is out of range for type ${t.kind === 'float4' ? 'real' : 'double precision'}`);
  }
  return v;
}

function shortestDigits(v: number, float4: boolean): { digits: string; exp: number } {
  let s: string;
  if (float4) {
    s = v.toExponential(0);
    for (let p = 1; p <= 9; p++) {
      s = v.toExponential(p - 1);
      if (Math.fround(Number(s)) === v) break;
    }
  } else {
    s = v.toExponential();
  }
  const [mant, e] = s.split('e');
  return { digits: mant!.replace('.', '').replace('-', ''), exp: Number(e) };
}

/** float4/float8 output as PostgreSQL 12+ prints it (shortest exact digits, %g-style layout). */
export function formatFloat(v: number, float4 = false): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const neg = v < 0;
  const { digits, exp } = shortestDigits(Math.abs(v), float4);
  const maxExp = float4 ? 6 : 15;
  let out: string;
  if (exp < -4 || exp >= maxExp) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    out = `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  } else if (exp < 0) {
    out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  } else if (digits.length <= exp + 1) {
    out = digits + '0'.repeat(exp + 1 - digits.length);
  } else {
    out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  return neg ? `-${out}` : out;
}

export function formatBytea(b: Uint8Array): string {
  return '\\x' + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

export function parseBytea(text: string): Uint8Array {
  if (text.startsWith('\\x')) {
    const hex = text.slice(2).replace(/\s+/g, '');
    if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2 !== 0) {
      throw new FloeError(SqlState.invalidTextRepresentation, `invalid hexadecimal data: odd number of digits`);
    }
    return new Uint8Array(Buffer.from(hex, 'hex'));
  }
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) {
      if (text[i + 1] === '\\') { out.push(92); i++; continue; }
      const oct = text.slice(i + 1, i + 4);
      if (/^[0-3][0-7]{2}$/.test(oct)) { out.push(parseInt(oct, 8)); i += 3; continue; }
      throw new FloeError(SqlState.invalidTextRepresentation, 'invalid input syntax for type bytea');
    }
    const bytes = Buffer.from(text[i]!, 'utf8');
    out.push(...bytes);
  }
  return new Uint8Array(out);
}

const UUID_RE = /^\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;

export function parseUuid(text: string): string {
  const m = UUID_RE.exec(text.trim());
  if (!m) throw invalid({ kind: 'uuid' }, text);
  return `${m[1]}-${m[2]}-${m[3]}-${m[4]}-${m[5]}`.toLowerCase();
}

function quoteArrayElement(s: string): string {
  if (s === '' || /[{}",\\\s]/.test(s) || s.toLowerCase() === 'null') {
    return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  }
  return s;
}

/** The text output of a canonical value (PostgreSQL's typoutput). */
export function formatValue(v: unknown, t: SqlType, settings: TextIoSettings): string {
  switch (t.kind) {
    case 'bool': return v ? 't' : 'f';
    case 'int2': case 'int4': case 'int8': case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure':
      return String(v);
    case 'float4': return formatFloat(v as number, true);
    case 'float8': return formatFloat(v as number, false);
    case 'numeric': return typeof v === 'string' ? v : String(v);
    case 'bytea': return formatBytea(v as Uint8Array);
    case 'date': return formatDate(v as number);
    case 'time': return formatTime(v as bigint);
    case 'timetz': return formatTimetz(v as bigint);
    case 'timestamp': return formatTimestamp(v as bigint);
    case 'timestamptz': return formatTimestamptz(v as bigint, settings.timeZone);
    case 'interval': return formatInterval(v as Interval);
    case 'array': return formatArray(v as readonly unknown[], t.element, settings);
    default: return String(v);
  }
}

/** An array's text; a multi-dimensional array is nested JS arrays, printed as nested braces. */
function formatArray(arr: readonly unknown[], element: SqlType, settings: TextIoSettings): string {
  return `{${arr.map((e) => (e === null ? 'NULL'
    : Array.isArray(e) && element.kind !== 'array' ? formatArray(e, element, settings)
      : quoteArrayElement(formatValue(e, element, settings)))).join(',')}}`;
}

/** The canonical value of a text input (PostgreSQL's typinput), applying the type's modifier. */
export function parseValue(text: string, t: SqlType, settings: TextIoSettings): unknown {
  switch (t.kind) {
    case 'bool': return parseBool(text);
    case 'int2': case 'int4': case 'int8': return parseInteger(text, t);
    case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure': {
      const m = INT_RE.exec(text);
      if (!m) throw invalid(t, text);
      const v = Number(m[1]);
      if (v < -2147483648 || v > 4294967295) throw outOfRange(t, text);
      return v >>> 0;
    }
    case 'float4': case 'float8': return parseFloat8(text, t);
    case 'numeric': {
      const d = parseDecimal(text);
      return formatDecimal(applyNumericTypmod(d, t.precision, t.scale));
    }
    case 'text': return t.enumType === undefined ? text : parseEnumLabel(text, t.enumType);
    case 'name': case 'unknown': case 'void': return text;
    case 'json': parseJsonNode(text); return text;
    case 'jsonb': return jsonbText(parseJsonb(text));
    case 'char': return text.slice(0, 1);
    case 'varchar': case 'bpchar': return applyCharLength(text, t, false);
    case 'bytea': return parseBytea(text);
    case 'uuid': return parseUuid(text);
    case 'date': return parseDate(text, settings.nowMicros, settings.timeZone);
    case 'time': return parseTime(text);
    case 'timetz': return parseTimetz(text, settings.timeZone, settings.nowMicros);
    case 'timestamp': return parseTimestamp(text, settings.nowMicros, settings.timeZone);
    case 'timestamptz': return parseTimestamptz(text, settings.timeZone, settings.nowMicros);
    case 'interval': return parseInterval(text);
    case 'array': return parseArrayWithBounds(text, t.element, settings);
  }
}

/** varchar(n)/char(n): too long → 22001 unless the excess is spaces; explicit casts truncate. */
export function applyCharLength(s: string, t: SqlType & { kind: 'varchar' | 'bpchar' }, explicit: boolean): string {
  const n = t.length;
  if (n === undefined) return s;
  const chars = [...s];
  if (chars.length > n) {
    if (!explicit && chars.slice(n).some((c) => c !== ' ')) {
      throw new FloeError(SqlState.stringDataRightTruncation,
        `value too long for type ${t.kind === 'varchar' ? 'character varying' : 'character'}(${n})`);
    }
    s = chars.slice(0, n).join('');
  } else if (t.kind === 'bpchar' && chars.length < n) {
    s = s + ' '.repeat(n - chars.length);
  }
  return s;
}

/** Sub-arrays of a multi-dimensional array must all have the same shape, as PostgreSQL requires. */
function checkRectangular(a: unknown[], text: string): unknown[] {
  const shape = (x: unknown): string => (Array.isArray(x) ? `[${x.length}${x.length > 0 ? shape(x[0]) : ''}]` : '');
  const same = (x: unknown[]): boolean => {
    const nested = x.length > 0 && Array.isArray(x[0]);
    return x.every((e) => (nested ? Array.isArray(e) && shape(e) === shape(x[0]) && same(e) : !Array.isArray(e)));
  };
  if (!same(a)) {
    throw new FloeError(SqlState.invalidTextRepresentation, `malformed array literal: "${text}"`, {
      detail: 'Multidimensional arrays must have sub-arrays with matching dimensions.',
    });
  }
  return a;
}

function parseArray(text: string, elem: SqlType, settings: TextIoSettings): unknown[] {
  const s = text.trim();
  if (!s.startsWith('{') || !s.endsWith('}')) {
    throw new FloeError(SqlState.invalidTextRepresentation, `malformed array literal: "${text}"`, {
      detail: 'Array value must start with "{" or dimension information.',
    });
  }
  const out: unknown[] = [];
  let i = 1;
  const end = s.length - 1;
  while (i < end) {
    while (i < end && /\s/.test(s[i]!)) i++;
    if (i >= end) break;
    let raw = '';
    let quoted = false;
    if (s[i] === '{') {
      // Nested arrays: keep the inner text and parse it recursively.
      let depth = 0; const st = i;
      for (; i < end; i++) { if (s[i] === '{') depth++; else if (s[i] === '}') { depth--; if (depth === 0) { i++; break; } } }
      const inner = parseArray(s.slice(st, i), elem, settings);
      // Only the whole array may be empty: '{{}}' is malformed in PostgreSQL.
      if (inner.length === 0) throw new FloeError(SqlState.invalidTextRepresentation, `malformed array literal: "${text}"`, { detail: 'Unexpected "}" character.' });
      out.push(inner);
    } else {
      if (s[i] === '"') {
        quoted = true; i++;
        while (i < end && s[i] !== '"') { if (s[i] === '\\') i++; raw += s[i]; i++; }
        i++;
      } else {
        while (i < end && s[i] !== ',') { if (s[i] === '\\') i++; raw += s[i]; i++; }
        raw = raw.trim();
      }
      out.push(!quoted && raw.toLowerCase() === 'null' ? null : parseValue(raw, elem, settings));
    }
    while (i < end && /\s/.test(s[i]!)) i++;
    if (s[i] === ',') i++;
  }
  return out;
}

const DIMENSIONS_PREFIX = /^\s*((?:\[\s*[+-]?\d+\s*(?::\s*[+-]?\d+\s*)?\])+)\s*=/;

/**
 * array_in with an optional dimension decoration ('[1:2][1:3]={…}'). Floe keeps no lower
 * bounds, so bounds other than 1 are refused (0A000) rather than silently shifted.
 */
function parseArrayWithBounds(text: string, element: SqlType, settings: TextIoSettings): unknown[] {
  const m = DIMENSIONS_PREFIX.exec(text);
  if (m === null) return checkRectangular(parseArray(text, element, settings), text);
  const bounds = [...m[1]!.matchAll(/\[\s*([+-]?\d+)\s*(?::\s*([+-]?\d+)\s*)?\]/g)].map((b) => (b[2] === undefined
    ? { lower: 1, upper: Number(b[1]) } : { lower: Number(b[1]), upper: Number(b[2]) }));
  if (bounds.some((b) => b.lower !== 1)) {
    throw new FloeError(SqlState.featureNotSupported, 'array lower bounds other than 1 are not supported', {
      detail: `The array literal "${text}" gives an explicit lower bound.`,
    });
  }
  const value = checkRectangular(parseArray(text.slice(m[0].length), element, settings), text);
  const dims: number[] = [];
  for (let x: unknown = value; Array.isArray(x) && x.length > 0; x = x[0]) dims.push(x.length);
  if (dims.length !== bounds.length || bounds.some((b, d) => b.upper - b.lower + 1 !== dims[d])) {
    throw new FloeError(SqlState.invalidTextRepresentation, `malformed array literal: "${text}"`, {
      detail: 'Specified array dimensions do not match array contents.',
    });
  }
  return value;
}
