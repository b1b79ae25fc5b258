import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { ValuesPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { emitBatches, metered } from './operator-support.js';

/** VALUES rows: each expression evaluated once, with no input columns. */
export function createValuesOperator(plan: ValuesPlan): Operator {
  for (const row of plan.rows) {
    if (row.length !== plan.columns.length) {
      throw new FloeError(SqlState.syntaxError, 'VALUES lists must all be the same length');
    }
  }
  const compiled = plan.rows.map((row) => row.map(compileExpr));
  return {
    plan,
    columns: plan.columns,
    execute(run) {
      return metered(plan, run, async function* (): AsyncGenerator<RecordBatch> {
        const cols: unknown[][] = plan.columns.map(() => []);
        const one = { numRows: 1, columns: [] };
        for (const row of compiled) {
          for (let c = 0; c < row.length; c++) cols[c]!.push((await row[c]!.evaluate(one, run))[0]);
        }
        yield* emitBatches(plan.columns, cols, compiled.length);
      });
    },
  };
}
