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
}

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
  };
}
