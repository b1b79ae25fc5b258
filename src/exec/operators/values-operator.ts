import { FloeError } from '../../common/floe-error.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { ValuesPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { BATCH_ROWS, emitValues, meteredOperator } from './operator-support.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';

/** VALUES rows: each expression evaluated once, with no input columns. */
export function createValuesOperator(plan: ValuesPlan): Operator {
  for (const row of plan.rows) {
    if (row.length !== plan.columns.length) {
      throw new FloeError(SqlState.syntaxError, 'VALUES lists must all be the same length');
    }
  }
  // Literal rows (the common case, and bind-time generate_series) need no evaluation.
  const literal = plan.rows.every((row) => row.every((e) => e.kind === 'literal'));
  const compiled = literal ? [] : plan.rows.map((row) => row.map(compileExpr));
  return meteredOperator(plan, (run) => valuesBatches(plan, literal, compiled, run));
}

/** The VALUES rows, a batch of BATCH_ROWS at a time. */
async function* valuesBatches(plan: ValuesPlan, literal: boolean, compiled: readonly (readonly CompiledExpr[])[], run: RunState): AsyncGenerator<ColumnarBatch> {
  const n = plan.rows.length;
  for (let start = 0; start < n; start += BATCH_ROWS) {
    const end = Math.min(n, start + BATCH_ROWS);
    const cols: unknown[][] = plan.columns.map(() => new Array<unknown>(end - start));
    const one = { numRows: 1, columns: [] };
    for (let r = start; r < end; r++) {
      for (let c = 0; c < plan.columns.length; c++) {
        let v: unknown;
        if (literal) v = (plan.rows[r]![c] as { value: unknown }).value;
        else v = (await compiled[r]![c]!.evaluate(one, run))[0];
        cols[c]![r - start] = v === undefined ? null : v;
      }
    }
    yield* emitValues(cols, end - start);
  }
}
