import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { columnSource, encodeBatch } from '../arrow/columnar-batch.js';
import type { ColumnSource } from '../arrow/columnar-batch.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { ProjectPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { decodedInput, metered } from './operator-support.js';

/** Computes one output column per expression, batch by batch. */
export function createProjectOperator(plan: ProjectPlan, input: Operator): Operator {
  if (plan.exprs.length !== plan.columns.length) {
    throw new FloeError(SqlState.internalError, `project has ${plan.exprs.length} expressions for ${plan.columns.length} columns`);
  }
  const exprs = plan.exprs.map(compileExpr);
  // Columns passed through as they are: moved, not decoded.
  const columnRefs = plan.exprs.map((e) => (e.kind === 'column' ? e.index : undefined));
  return {
    plan,
    columns: plan.columns,
    execute(run) {
      return metered(plan, run, async function* (): AsyncGenerator<RecordBatch> {
        for await (const b of decodedInput(input, run)) {
          const cols: ColumnSource[] = [];
          for (let i = 0; i < exprs.length; i++) {
            const ref = columnRefs[i];
            cols.push(ref === undefined ? await exprs[i]!.evaluate(b, run) : columnSource(b, ref));
          }
          yield encodeBatch(plan.columns, cols, b.numRows);
        }
      });
    },
  };
}
