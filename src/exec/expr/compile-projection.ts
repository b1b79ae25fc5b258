import { columnSource } from '../arrow/columnar-batch.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import { valuesColumn } from '../arrow/column-source.js';
import type { ColumnSource } from '../arrow/column-source.js';
import type { RunState } from '../run-state.js';
import { compileExpr } from './compile-expr.js';
import type { CompiledExpr } from './compile-expr.js';
import type { Expr } from './expr.js';

/** A projection's expressions, compiled once: `evaluate` gives one output column per expression. */
export interface CompiledProjection {
  evaluate(batch: ColumnarBatch, run: RunState): Promise<ColumnSource[]>;
}

/**
 * Compiles a projection so that a plain column reference passes its input
 * column through as it is (still Arrow data when nobody decoded it: moved, not
 * decoded); every other expression is evaluated.
 */
export function compileProjection(exprs: readonly Expr[]): CompiledProjection {
  const compiled: CompiledExpr[] = exprs.map(compileExpr);
  const refs = exprs.map((e) => (e.kind === 'column' ? e.index : undefined));
  return {
    async evaluate(b, run) {
      const cols: ColumnSource[] = [];
      for (let i = 0; i < compiled.length; i++) {
        const ref = refs[i];
        cols.push(ref === undefined ? valuesColumn(await compiled[i]!.evaluate(b, run)) : columnSource(b, ref));
      }
      return cols;
    },
  };
}
