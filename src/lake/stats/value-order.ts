import type { SqlType } from '../../common/sql-type.js';
import { naturalScale, parseDecimal } from '../arrow/decimal-text.js';

/**
 * A total order over canonical values of one SqlType, matching PostgreSQL's
 * comparison (with the C collation for text, i.e. code-point order; NaN above every
 * number, as PostgreSQL sorts it), or undefined for types without a useful order
 * (interval, json, arrays), which are then never pruned by min/max.
 */
export type ValueOrder = (a: unknown, b: unknown) => number;

export function valueOrderOf(type: SqlType): ValueOrder | undefined {
  switch (type.kind) {
    case 'bool': return (a, b) => Number(a) - Number(b);
    case 'int2': case 'int4': case 'date': case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure':
      return (a, b) => cmpNum(a as number, b as number);
    case 'float4': case 'float8':
      return (a, b) => {
        const x = a as number;
        const y = b as number;
        if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
        if (Number.isNaN(y)) return -1;
        return cmpNum(x, y);
      };
    case 'int8': case 'time': case 'timestamp': case 'timestamptz': case 'timetz':
      return (a, b) => {
        const x = BigInt(a as bigint);
        const y = BigInt(b as bigint);
        return x < y ? -1 : x > y ? 1 : 0;
      };
    case 'numeric': return compareNumericText;
    case 'text': case 'varchar': case 'name': case 'char': case 'uuid': case 'unknown': case 'void':
      return (a, b) => compareCodePoints(String(a), String(b));
    case 'bpchar':
      return (a, b) => compareCodePoints(String(a).replace(/ +$/, ''), String(b).replace(/ +$/, ''));
    case 'bytea': return (a, b) => compareBytes(a as Uint8Array, b as Uint8Array);
    default: return undefined;
  }
}

function cmpNum(x: number, y: number): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** UTF-8 byte order (= code-point order), which differs from JS's UTF-16 `<` above U+D7FF. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1; // a surrogate half encodes a code point above every BMP unit
    return x - y;
  }
  return a.length - b.length;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

function compareNumericText(a: unknown, b: unknown): number {
  const x = String(a);
  const y = String(b);
  const fast = comparePlainDecimals(x, y);
  return fast !== undefined ? fast : compareNumericTextExact(x, y);
}

/**
 * Order of two plain decimal texts (optional sign, digits, optional point and digits),
 * compared digit by digit without parsing; undefined when either is in another form.
 */
export function comparePlainDecimals(x: string, y: string): number | undefined {
  if (!scanPlain(x)) return undefined;
  const xNeg = sNeg;
  const xIntStart = sIntStart;
  const xIntEnd = sIntEnd;
  const xFracEnd = sFracEnd;
  if (!scanPlain(y)) return undefined;
  const xZero = xIntStart === xIntEnd && xFracEnd <= xIntEnd + 1;
  const yZero = sIntStart === sIntEnd && sFracEnd <= sIntEnd + 1;
  const xSign = xZero ? 0 : xNeg ? -1 : 1;
  const ySign = yZero ? 0 : sNeg ? -1 : 1;
  if (xSign !== ySign) return xSign < ySign ? -1 : 1;
  if (xSign === 0) return 0;
  let mag = (xIntEnd - xIntStart) - (sIntEnd - sIntStart);
  if (mag === 0) {
    for (let i = 0; i < xIntEnd - xIntStart; i++) {
      const d = x.charCodeAt(xIntStart + i) - y.charCodeAt(sIntStart + i);
      if (d !== 0) { mag = d; break; }
    }
  }
  if (mag === 0) {
    // fraction digits start one past the integer part (after the point); missing ones are 0
    const xf = xFracEnd - xIntEnd - 1;
    const yf = sFracEnd - sIntEnd - 1;
    const len = Math.max(xf, yf);
    for (let i = 0; i < len; i++) {
      const dx = i < xf ? x.charCodeAt(xIntEnd + 1 + i) : 48;
      const dy = i < yf ? y.charCodeAt(sIntEnd + 1 + i) : 48;
      if (dx !== dy) { mag = dx - dy; break; }
    }
  }
  if (mag === 0) return 0;
  return (mag < 0 ? -1 : 1) * xSign;
}

// scanPlain's results: module state instead of an object per call (this runs per value)
let sNeg = false;
let sIntStart = 0;
let sIntEnd = 0;
let sFracEnd = 0;

/** Sets the s* fields: integer digits without leading zeros in [sIntStart, sIntEnd), fraction up to its last non-zero digit ends at sFracEnd. */
function scanPlain(s: string): boolean {
  const n = s.length;
  let i = 0;
  sNeg = false;
  if (n > 0) {
    const c0 = s.charCodeAt(0);
    if (c0 === 45) { sNeg = true; i = 1; } else if (c0 === 43) i = 1;
  }
  while (i < n && s.charCodeAt(i) === 48) i++;
  sIntStart = i;
  let any = i > (sNeg || (n > 0 && s.charCodeAt(0) === 43) ? 1 : 0);
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    any = true;
  }
  sIntEnd = i;
  sFracEnd = i;
  if (i === n) return any;
  if (s.charCodeAt(i) !== 46) return false;
  for (i++; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
    any = true;
    if (c !== 48) sFracEnd = i + 1;
  }
  return any;
}

/** compareNumericText through the exact BigInt path: the reference for the fast one. */
export function compareNumericTextExact(x: string, y: string): number {
  const xn = /^\s*nan\s*$/i.test(x);
  const yn = /^\s*nan\s*$/i.test(y);
  if (xn || yn) return xn === yn ? 0 : xn ? 1 : -1;
  const scale = Math.max(naturalScale(x), naturalScale(y));
  const p = parseDecimal(x, scale);
  const q = parseDecimal(y, scale);
  return p < q ? -1 : p > q ? 1 : 0;
}
