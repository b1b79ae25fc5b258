import { Type } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { smallDecimalWords } from '../../common/decimal-words.js';
import type { SqlType } from '../../common/sql-type.js';
import { isValidAt } from '../arrow/column-reader.js';
import { naturalScale, parseDecimalNumber } from '../arrow/decimal-text.js';
import type { ScanFilter } from './scan-types.js';

type Cmp = '=' | '<' | '<=' | '>' | '>=' | '<>';

/** Largest scale gap bridged by multiplying the column's values (10^6 keeps 2^53 / 10^6 of headroom checks simple). */
const MAX_SCALE_GAP = 6;

/**
 * A row test reading a column's Arrow buffers directly, for the filter shapes
 * scans run most (TPC-H's date ranges, `l_discount between 0.05 and 0.07`,
 * `l_quantity < 24`): int2/int4/date compared as numbers, and Decimal
 * (numeric(p,s)) compared as unscaled safe integers with the target brought to
 * a common scale — no canonical value is built per row. Undefined for any other
 * shape, and a Decimal value beyond 2^53 makes the test return undefined for its
 * row (`bad` set) so the caller redoes the batch value by value.
 */
export function typedPredicate(data: Data, f: ScanFilter, type: SqlType): { test: (i: number) => boolean; bad: () => boolean } | undefined {
  if (f.op === 'isNull' || f.op === 'isNotNull' || f.op === 'in') return undefined;
  const op = f.op as Cmp;
  const valid = (i: number): boolean => isValidAt(data, i);
  if (type.kind === 'int2' || type.kind === 'int4' || type.kind === 'date') {
    if (data.typeId !== Type.Int && data.typeId !== Type.Date) return undefined;
    if (data.typeId === Type.Date && (data.type as unknown as { unit: number }).unit !== 0) return undefined;
    const target = f.value;
    // Infinite dates are stored as Int32 sentinels; leave them to the value path.
    if (typeof target !== 'number' || !Number.isFinite(target)) return undefined;
    const values = data.values as Int16Array | Int32Array;
    if (!(values instanceof Int32Array || values instanceof Int16Array)) return undefined;
    const cmp = comparer(op);
    // ±infinity dates are Int32 sentinels beyond every real date, so they order correctly as numbers.
    return { test: (i) => valid(i) && cmp(values[i]!, target), bad: () => false };
  }
  if (type.kind === 'numeric' && data.typeId === Type.Decimal && typeof f.value === 'string') {
    const t = data.type as unknown as { scale: number; bitWidth?: number };
    const colScale = t.scale;
    if (colScale < 0) return undefined;
    const textScale = naturalScale(f.value);
    const scale = Math.max(colScale, textScale);
    if (scale - colScale > MAX_SCALE_GAP) return undefined;
    const target = parseDecimalNumber(f.value, scale);
    if (target === undefined) return undefined;
    const up = 10 ** (scale - colScale);
    const words = data.values as Uint32Array;
    const bw = (t.bitWidth ?? 128) / 32;
    const cmp = comparer(op);
    let sawBig = false;
    return {
      test: (i) => {
        if (!valid(i)) return false;
        const u = smallDecimalWords(words, i * bw, bw);
        const v = u * up;
        if (u !== u || v > Number.MAX_SAFE_INTEGER || v < -Number.MAX_SAFE_INTEGER) { sawBig = true; return false; }
        return cmp(v, target);
      },
      bad: () => sawBig,
    };
  }
  return undefined;
}

function comparer(op: Cmp): (a: number, b: number) => boolean {
  switch (op) {
    case '=': return (a, b) => a === b;
    case '<>': return (a, b) => a !== b;
    case '<': return (a, b) => a < b;
    case '<=': return (a, b) => a <= b;
    case '>': return (a, b) => a > b;
    case '>=': return (a, b) => a >= b;
  }
}
