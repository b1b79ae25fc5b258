import type { SqlType } from '../../common/sql-type.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { SortKey } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import { compareValues } from '../types/value-ops.js';

/** Sort keys compiled once; `evaluate` computes key columns, `comparator` orders row indexes by them. */
export interface CompiledSortKeys {
  evaluate(batch: ColumnarBatch, run: RunState): Promise<unknown[][]>;
  comparator(keyCols: readonly (readonly unknown[])[]): (a: number, b: number) => number;
  /** Orders row `a` of one set of key columns against row `b` of another (merging sorted runs). */
  compareRows(aCols: readonly (readonly unknown[])[], a: number, bCols: readonly (readonly unknown[])[], b: number): number;
  /** Rows 0..n-1 of the key columns in sorted order (rows that compare equal keep their order). */
  order(keyCols: readonly (readonly unknown[])[], n: number): number[];
}

/** Fewer rows sort with the comparator alone: ranking would not pay for itself. */
const RANK_MIN_ROWS = 256;

export function compileSortKeys(keys: readonly SortKey[]): CompiledSortKeys {
  const exprs = keys.map((k) => compileExpr(k.expr));
  const types: SqlType[] = keys.map((k) => k.expr.type);
  const compareRows = (aCols: readonly (readonly unknown[])[], a: number, bCols: readonly (readonly unknown[])[], b: number): number => {
    for (let k = 0; k < keys.length; k++) {
      const x = aCols[k]![a]; const y = bCols[k]![b];
      const key = keys[k]!;
      if (x === null || y === null) {
        if (x === y) continue;
        // nullsFirst decides regardless of direction.
        return (x === null) === key.nullsFirst ? -1 : 1;
      }
      const c = compareValues(x, y, types[k]!);
      if (c !== 0) return key.descending ? -c : c;
    }
    return 0;
  };
  return {
    async evaluate(batch, run) {
      const out: unknown[][] = [];
      for (const e of exprs) out.push(await e.evaluate(batch, run));
      return out;
    },
    comparator(keyCols) {
      return (a, b) => compareRows(keyCols, a, keyCols, b);
    },
    compareRows,
    order(keyCols, n) {
      const ranked = rankKeys(keys, types, keyCols, n);
      const order = Array.from({ length: n }, (_, i) => i);
      if (ranked === undefined) return order.sort((a, b) => compareRows(keyCols, a, keyCols, b));
      if (ranked.packed !== undefined) {
        // One number per row, its packed ranks then its row: a typed sort with no comparator.
        const packed = ranked.packed;
        const keysAndRows = new Float64Array(n);
        for (let i = 0; i < n; i++) keysAndRows[i] = packed[i]! * n + i;
        keysAndRows.sort();
        for (let i = 0; i < n; i++) order[i] = keysAndRows[i]! % n;
        return order;
      }
      const ranks = ranked.ranks;
      return order.sort((a, b) => {
        for (let k = 0; k < ranks.length; k++) {
          const d = ranks[k]![a]! - ranks[k]![b]!;
          if (d !== 0) return d;
        }
        return 0;
      });
    },
  };
}

/**
 * Per key, each row's place among the key's distinct values (direction and NULL
 * placement folded in), so rows compare as small integers: a sort compares each
 * row some log2(n) times, and compareValues on text, numeric text or bigint costs
 * far more than an integer comparison (18k rows by a count, a brand, a type and
 * size). The distinct values are sorted once. When the product of the keys' rank
 * counts stays below 2^53 / n they are also packed into one number per row. Undefined when ranking
 * does not pay: few rows, a key whose values are objects (intervals, arrays,
 * bytea), or a first key with more distinct values than half the rows.
 */
function rankKeys(
  keys: readonly SortKey[], types: readonly SqlType[], keyCols: readonly (readonly unknown[])[], n: number,
): { ranks: Int32Array[]; packed: Float64Array | undefined } | undefined {
  if (n < RANK_MIN_ROWS || n >= 2 ** 31) return undefined;
  const ranks: Int32Array[] = [];
  const radixes: number[] = [];
  let span = 1;
  for (let k = 0; k < keys.length; k++) {
    const col = keyCols[k]!;
    const ids = new Map<unknown, number>();
    const distinct: unknown[] = [];
    const idOfRow = new Int32Array(n);
    let hasNull = false;
    for (let i = 0; i < n; i++) {
      const v = col[i];
      if (v === null || v === undefined) { idOfRow[i] = -1; hasNull = true; continue; }
      if (typeof v === 'object') return undefined;
      let id = ids.get(v);
      if (id === undefined) { id = distinct.length; distinct.push(v); ids.set(v, id); }
      idOfRow[i] = id;
    }
    if (k === 0 && distinct.length > n / 2) return undefined;
    const t = types[k]!;
    const byValue = Array.from({ length: distinct.length }, (_, i) => i).sort((a, b) => compareValues(distinct[a], distinct[b], t));
    // Values that compare equal ('a' and 'a ' as bpchar, 1.5 and 1.50) share a place.
    const place = new Int32Array(distinct.length);
    let places = 0;
    for (let j = 0; j < byValue.length; j++) {
      if (j > 0 && compareValues(distinct[byValue[j - 1]!], distinct[byValue[j]!], t) !== 0) places++;
      place[byValue[j]!] = places;
    }
    if (byValue.length > 0) places++;
    const key = keys[k]!;
    // NULLs go first or last whatever the direction; the others shift past them when first.
    const nullRank = key.nullsFirst ? 0 : places;
    const shift = key.nullsFirst && hasNull ? 1 : 0;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const id = idOfRow[i]!;
      out[i] = id < 0 ? nullRank : (key.descending ? places - 1 - place[id]! : place[id]!) + shift;
    }
    ranks.push(out);
    // This key's ranks lie in [0, radix): NULLs take one place more than the values.
    const radix = places + (hasNull ? 1 : 0);
    radixes.push(radix);
    span *= radix;
  }
  if (span * n >= 2 ** 53) return { ranks, packed: undefined };
  const packed = new Float64Array(n);
  for (let k = 0; k < ranks.length; k++) {
    const r = ranks[k]!;
    const radix = radixes[k]!;
    for (let i = 0; i < n; i++) packed[i] = packed[i]! * radix + r[i]!;
  }
  return { ranks, packed };
}
