import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { encodeBatch } from '../arrow/columnar-batch.js';
import { compileProjection } from '../expr/compile-projection.js';
import type { ProjectPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { decodedInput, metered } from './operator-support.js';

/** Computes one output column per expression, batch by batch. */
export function createProjectOperator(plan: ProjectPlan, input: Operator): Operator {
  if (plan.exprs.length !== plan.columns.length) {
    throw new FloeError(SqlState.internalError, `project has ${plan.exprs.length} expressions for ${plan.columns.length} columns`);
  }
  const projection = compileProjection(plan.exprs);
  return {
    plan,
    columns: plan.columns,
    execute(run) {
      return metered(plan, run, async function* (): AsyncGenerator<RecordBatch> {
        for await (const b of decodedInput(input, run)) {
          yield encodeBatch(plan.columns, await projection.evaluate(b, run), b.numRows);
        }
      });
    },
  };
}
