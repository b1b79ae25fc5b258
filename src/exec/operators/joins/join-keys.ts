import type { SqlType } from '../../../common/sql-type.js';
import { valueKey } from '../../types/value-ops.js';

/**
 * How one key column's values become Map keys, chosen from both sides' types so
 * that SQL-equal values map to the same JS primitive without building strings:
 * - int: integers (number, or bigint turned into a number when it is a safe integer,
 *   else its decimal string — a string never equals a number, so keys stay exact);
 * - float: the number itself (Map's SameValueZero already has NaN = NaN and -0 = 0,
 *   PostgreSQL's float equality);
 * - string: text without blank-padding semantics, as is;
 * - general: valueKey's normalized string (numeric scale, bpchar, interval, …).
 */
export type JoinKeyKind = 'int' | 'float' | 'string' | 'general';

const INT_KINDS = new Set<SqlType['kind']>(['int2', 'int4', 'int8']);
const STRING_KINDS = new Set<SqlType['kind']>(['text', 'varchar', 'name']);

export function joinKeyKind(a: SqlType, b: SqlType): JoinKeyKind {
  if (INT_KINDS.has(a.kind) && INT_KINDS.has(b.kind)) return 'int';
  if (a.kind === b.kind && (a.kind === 'date' || a.kind === 'timestamp' || a.kind === 'timestamptz' || a.kind === 'time' || a.kind === 'timetz' || a.kind === 'oid')) return 'int';
  if ((a.kind === 'float4' || a.kind === 'float8') && (b.kind === 'float4' || b.kind === 'float8')) return 'float';
  if (STRING_KINDS.has(a.kind) && STRING_KINDS.has(b.kind)) return 'string';
  return 'general';
}

/** A NULL key under IS NOT DISTINCT FROM (single-column keys). */
const NULL_KEY = Symbol('null key');
/** Two small integers pack into one number below 2^52: a·2^26 + b with |a| < 2^25, 0 ≤ b < 2^26. */
const PACK = 2 ** 26;
const PACK_A = 2 ** 25;

function intKey(v: unknown): number | string {
  if (typeof v === 'number') return v;
  const b = v as bigint;
  return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b.toString();
}

function partText(v: unknown, kind: JoinKeyKind, type: SqlType): string {
  if (v === null) return '\u0000N';
  switch (kind) {
    case 'int': return typeof v === 'number' ? String(v) : (v as bigint).toString();
    case 'float': { const x = v as number; return x === 0 ? '0' : String(x); }
    case 'string': return v as string;
    case 'general': return valueKey(v, type);
  }
}

/**
 * Map keys of one batch's key columns; `undefined` marks a row whose key holds a
 * NULL that `=` rejects (it matches nothing).
 */
export function joinKeys(parts: readonly (readonly unknown[])[], kinds: readonly JoinKeyKind[], types: readonly SqlType[], nullEq: readonly boolean[], n: number): unknown[] {
  const out = new Array<unknown>(n);
  if (parts.length === 1) {
    const col = parts[0]!;
    const kind = kinds[0]!;
    const eqNull = nullEq[0]!;
    const nullKey = eqNull ? NULL_KEY : undefined;
    switch (kind) {
      case 'int':
        for (let i = 0; i < n; i++) { const v = col[i]; out[i] = v === null ? nullKey : typeof v === 'number' ? v : intKey(v); }
        break;
      case 'float': case 'string':
        for (let i = 0; i < n; i++) { const v = col[i]; out[i] = v === null ? nullKey : v; }
        break;
      case 'general': {
        const t = types[0]!;
        for (let i = 0; i < n; i++) { const v = col[i]; out[i] = v === null ? nullKey : valueKey(v, t); }
        break;
      }
    }
    return out;
  }
  const packable = parts.length === 2 && kinds[0] === 'int' && kinds[1] === 'int';
  rows: for (let i = 0; i < n; i++) {
    if (packable) {
      let a = parts[0]![i]; let b = parts[1]![i];
      // int4 on one side and int8 on the other must pack alike.
      if (typeof a === 'bigint') a = intKey(a);
      if (typeof b === 'bigint') b = intKey(b);
      if (typeof a === 'number' && typeof b === 'number' && a > -PACK_A && a < PACK_A && b >= 0 && b < PACK && Number.isInteger(a) && Number.isInteger(b)) {
        out[i] = a * PACK + b;
        continue;
      }
    }
    // Length-prefixed parts: a string key never equals a packed number.
    let s = '';
    for (let c = 0; c < parts.length; c++) {
      const v = parts[c]![i];
      if (v === null && !nullEq[c]) { out[i] = undefined; continue rows; }
      const t = partText(v, kinds[c]!, types[c]!);
      s += t.length + ':' + t;
    }
    out[i] = s;
  }
  return out;
}
