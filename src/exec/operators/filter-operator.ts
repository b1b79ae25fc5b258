import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr, truthySelection } from '../expr/compile-expr.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import type { FilterPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { inputBatches, meteredOperator, selectRows } from './operator-support.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';

/** Keeps rows where the predicate is true (NULL and false drop the row). */
export function createFilterOperator(plan: FilterPlan, input: Operator): Operator {
  if (plan.predicate.type.kind !== 'bool' && plan.predicate.type.kind !== 'unknown') {
    throw new FloeError(SqlState.datatypeMismatch, `argument of WHERE must be type boolean, not type ${plan.predicate.type.kind}`);
  }
  const pred = compileExpr(plan.predicate);
  return meteredOperator(plan, (run) => filteredBatches(input, pred, run));
}

/** The input's rows for which the predicate is true. */
async function* filteredBatches(input: Operator, pred: CompiledExpr, run: RunState): AsyncGenerator<ColumnarBatch> {
  for await (const b of inputBatches(input, run)) {
    const vals = await pred.evaluate(b, run);
    const sel = truthySelection(vals, b.numRows);
    if (sel.length === 0) continue;
    yield sel.length === b.numRows ? b : selectRows(b, sel);
  }
}
