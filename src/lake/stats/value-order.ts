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
    case 'int2': case 'int4': case 'date': case 'oid': case 'regclass': case 'regtype': case 'regproc':
      return (a, b) => cmpNum(a as number, b as number);
    case 'float4': case 'float8':
      return (a, b) => {
        const x = a as number;
        const y = b as number;
        if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
        if (Number.isNaN(y)) return -1;
        return cmpNum(x, y);
      };
    case 'int8': case 'time': case 'timestamp': case 'timestamptz':
      return (a, b) => {
        const x = BigInt(a as bigint);
        const y = BigInt(b as bigint);
        return x < y ? -1 : x > y ? 1 : 0;
      };
    case 'numeric': return compareNumericText;
    case 'text': case 'varchar': case 'name': case 'char': case 'uuid': case 'unknown':
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
  const xn = /^\s*nan\s*$/i.test(x);
  const yn = /^\s*nan\s*$/i.test(y);
  if (xn || yn) return xn === yn ? 0 : xn ? 1 : -1;
  const scale = Math.max(naturalScale(x), naturalScale(y));
  const p = parseDecimal(x, scale);
  const q = parseDecimal(y, scale);
  return p < q ? -1 : p > q ? 1 : 0;
}
