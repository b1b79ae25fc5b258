import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { lazyBatch } from '../arrow/columnar-batch.js';
import { compileProjection } from '../expr/compile-projection.js';
import type { CompiledProjection } from '../expr/compile-projection.js';
import type { ProjectPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { inputBatches, meteredOperator } from './operator-support.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';

/** Computes one output column per expression, batch by batch. */
export function createProjectOperator(plan: ProjectPlan, input: Operator): Operator {
  if (plan.exprs.length !== plan.columns.length) {
    throw new FloeError(SqlState.internalError, `project has ${plan.exprs.length} expressions for ${plan.columns.length} columns`);
  }
  const projection = compileProjection(plan.exprs);
  return meteredOperator(plan, (run) => projectedBatches(input, projection, run));
}

/** The projection of each input batch. */
async function* projectedBatches(input: Operator, projection: CompiledProjection, run: RunState): AsyncGenerator<ColumnarBatch> {
  for await (const b of inputBatches(input, run)) {
    yield lazyBatch(b.numRows, await projection.evaluate(b, run));
  }
}
