import type { Interval, SqlType } from '../../common/sql-type.js';
import { flattenArray, isMultidimensional } from '../../lake/index.js';
import { compareArrayShapes } from './compare-array-shapes.js';
import { intervalToMicrosApprox } from './datetime.js';
import { compareEnumLabels } from './enum-value.js';
import { compareNumericText, decTrimScale, formatDecimal, parseDecimal } from './numeric.js';

/**
 * A string key equal for values SQL considers equal (numeric 1.0 = 1.00,
 * interval '1 day' = '24 hours', bpchar ignoring trailing spaces, float -0 = 0),
 * used by hash joins, grouping, DISTINCT and IN lists.
 */
export function valueKey(v: unknown, t: SqlType): string {
  if (v === null || v === undefined) return '\u0000N';
  switch (t.kind) {
    case 'numeric': return numericKey(v as string);
    case 'float4': case 'float8': {
      const x = v as number;
      if (x === 0) return '0';
      return Number.isNaN(x) ? 'NaN' : String(x);
    }
    case 'bpchar': return trimTrailingBlanks(v as string);
    case 'interval': return intervalToMicrosApprox(v as Interval).toString();
    case 'bytea': return Buffer.from(v as Uint8Array).toString('hex');
    case 'array': return '[' + (v as unknown[]).map((e) => (Array.isArray(e) ? valueKey(e, t) : valueKey(e, t.element))).join('\u0001') + ']';
    case 'int8': case 'time': case 'timestamp': case 'timestamptz': case 'timetz': return (v as bigint).toString();
    default: return typeof v === 'string' ? v : String(v);
  }
}

/**
 * numeric's key: the canonical text with leading integer zeros and trailing
 * fraction zeros dropped ("-012.500" → "-12.5", "-0.00" → "0"), by one scan of
 * the characters; anything but plain `[-+]digits[.digits]` takes the exact slow path.
 */
export function numericKey(s: string): string {
  const n = s.length;
  let i = 0;
  const neg = n > 0 && s.charCodeAt(0) === 45;
  if (neg || (n > 0 && s.charCodeAt(0) === 43)) i = 1;
  let intStart = i;
  while (intStart < n - 1 && s.charCodeAt(intStart) === 48 && s.charCodeAt(intStart + 1) !== 46) intStart++;
  let j = intStart;
  while (j < n) { const c = s.charCodeAt(j); if (c < 48 || c > 57) break; j++; }
  const intEnd = j;
  let fracEnd = j;
  if (j < n) {
    if (s.charCodeAt(j) !== 46) return slowNumericKey(s);
    j++;
    while (j < n) { const c = s.charCodeAt(j); if (c < 48 || c > 57) return slowNumericKey(s); j++; }
    fracEnd = n;
    while (fracEnd > intEnd + 1 && s.charCodeAt(fracEnd - 1) === 48) fracEnd--;
    if (fracEnd === intEnd + 1) fracEnd = intEnd;
  }
  if (intEnd === intStart && fracEnd === intEnd) return slowNumericKey(s);
  const intPart = intEnd === intStart ? '0' : s.slice(intStart, intEnd);
  const body = fracEnd > intEnd ? intPart + s.slice(intEnd, fracEnd) : intPart;
  if (neg && body !== '0') return '-' + body;
  return body;
}

function slowNumericKey(s: string): string {
  return formatDecimal(decTrimScale(parseDecimal(s)));
}

export function rowKey(values: readonly unknown[], types: readonly SqlType[]): string {
  if (values.length === 1) return valueKey(values[0], types[0]!);
  let s = '';
  for (let i = 0; i < values.length; i++) {
    const k = valueKey(values[i], types[i]!);
    s += k.length + ':' + k;
  }
  return s;
}

/** Total order of non-NULL values of one type (PostgreSQL's btree order; strings by code point). */
export function compareValues(a: unknown, b: unknown, t: SqlType): number {
  switch (t.kind) {
    case 'numeric': return compareNumericText(a as string, b as string);
    case 'float4': case 'float8': {
      const x = a as number; const y = b as number;
      // NaN sorts above everything and equals itself.
      if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : 1) : -1;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'bool': return a === b ? 0 : a ? 1 : -1;
    case 'interval': {
      const x = intervalToMicrosApprox(a as Interval); const y = intervalToMicrosApprox(b as Interval);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'bpchar': return compareBpchar(a as string, b as string);
    case 'text':
      if (t.enumType !== undefined) return compareEnumLabels(a as string, b as string, t.enumType);
      return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
    case 'bytea': return Buffer.compare(Buffer.from(a as Uint8Array), Buffer.from(b as Uint8Array));
    case 'array': {
      if (t.element.kind !== 'array' && (isMultidimensional(a) || isMultidimensional(b))) return compareMultidimArrays(a as unknown[], b as unknown[], t.element);
      const x = a as unknown[]; const y = b as unknown[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const ex = x[i]; const ey = y[i];
        if (ex === null || ey === null) {
          if (ex === ey) continue;
          return ex === null ? 1 : -1;
        }
        const c = compareValues(ex, ey, t.element);
        if (c !== 0) return c;
      }
      return x.length - y.length;
    }
    default: {
      const x = a as number | bigint | string; const y = b as number | bigint | string;
      return x < y ? -1 : x > y ? 1 : 0;
    }
  }
}

/**
 * bpchar order: as `<` on both strings without their trailing blanks, read in place
 * (a sort compares each value many times; trimming copies for each comparison cost
 * an ORDER BY over 18k char(10) values most of its time).
 */
function compareBpchar(x: string, y: string): number {
  let ex = x.length;
  while (ex > 0 && x.charCodeAt(ex - 1) === 32) ex--;
  let ey = y.length;
  while (ey > 0 && y.charCodeAt(ey - 1) === 32) ey--;
  const n = ex < ey ? ex : ey;
  for (let i = 0; i < n; i++) {
    const cx = x.charCodeAt(i); const cy = y.charCodeAt(i);
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
  return ex < ey ? -1 : ex > ey ? 1 : 0;
}

/** bpchar's comparison form: trailing blanks do not count. */
export function trimTrailingBlanks(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 32) end--;
  return end === s.length ? s : s.slice(0, end);
}

/**
 * PostgreSQL's array_cmp for arrays of any shape: the elements in row-major order first,
 * then the element count, then the number of dimensions, then each dimension's length.
 */
function compareMultidimArrays(a: unknown[], b: unknown[], element: SqlType): number {
  const fa = flattenArray(a); const fb = flattenArray(b);
  const x = fa.items; const y = fb.items;
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const ex = x[i]; const ey = y[i];
    if (ex === null || ey === null) {
      if (ex === ey) continue;
      return ex === null ? 1 : -1;
    }
    const c = compareValues(ex, ey, element);
    if (c !== 0) return c;
  }
  if (x.length !== y.length) return x.length - y.length;
  return compareArrayShapes(fa.dims, fb.dims);
}
