import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import { compileExpr, type CompiledExpr } from '../expr/compile-expr.js';
import type { LateralJoinPlan } from '../plan/physical-plan.js';
import { withOuterRow } from '../run-state.js';
import { buildOperator } from './build-operator.js';
import type { Operator } from './operator.js';
import { BATCH_ROWS, breathe, emitValues, inputBatches, meteredOperator } from './operator-support.js';
import type { RunState } from '../run-state.js';

/**
 * LATERAL as a nested loop (PostgreSQL's Nested Loop over a subquery that
 * reads the outer row): the right plan runs once per input row with that row
 * as its outer row. The ON condition filters the pairs; a left join emits an
 * input row that found no partner once, NULL-extended.
 */
export function createLateralJoinOperator(plan: LateralJoinPlan, input: Operator): Operator {
  const right = buildOperator(plan.right);
  const lw = input.columns.length;
  const rw = right.columns.length;
  if (plan.columns.length !== lw + rw) {
    throw new FloeError(SqlState.internalError, `lateral join has ${plan.columns.length} columns for inputs of ${lw} and ${rw}`);
  }
  const cond = plan.condition ? compileExpr(plan.condition) : undefined;
  const prepared: PreparedLateralJoin = { plan, input, right, lw, rw, cond };
  return meteredOperator(plan, (run) => lateralJoinBatches(prepared, run));
}

/** A lateral join's inputs, their widths and its compiled condition. */
interface PreparedLateralJoin {
  readonly plan: LateralJoinPlan;
  readonly input: Operator;
  readonly right: Operator;
  readonly lw: number;
  readonly rw: number;
  readonly cond: CompiledExpr | undefined;
}

/** Each input row joined with the rows the right side yields for it. */
async function* lateralJoinBatches(prepared: PreparedLateralJoin, run: RunState): AsyncGenerator<ColumnarBatch> {
  const { plan, input, right, lw, rw, cond } = prepared;
  let out: unknown[][] = plan.columns.map(() => []);
  let n = 0;
  for await (const b of inputBatches(input, run)) {
    for (let i = 0; i < b.numRows; i++) {
      const row = b.columns.map((c) => c[i]);
      let matched = false;
      for await (const rb of right.execute(withOuterRow(run, row))) {
        if (rb.numRows === 0) continue;
        let ok: unknown[] | undefined;
        if (cond) {
          const pairs: ColumnarBatch = { numRows: rb.numRows, columns: [...row.map((v) => new Array<unknown>(rb.numRows).fill(v)), ...rb.columns] };
          ok = await cond.evaluate(pairs, run);
        }
        for (let j = 0; j < rb.numRows; j++) {
          if (ok && ok[j] !== true) continue;
          matched = true;
          for (let c = 0; c < lw; c++) out[c]!.push(row[c]);
          for (let c = 0; c < rw; c++) out[lw + c]!.push(rb.columns[c]![j]);
          n++;
        }
      }
      if (!matched && plan.joinType === 'left') {
        for (let c = 0; c < lw; c++) out[c]!.push(row[c]);
        for (let c = 0; c < rw; c++) out[lw + c]!.push(null);
        n++;
      }
      if (n >= BATCH_ROWS) {
        yield* emitValues(out, n);
        out = plan.columns.map(() => []);
        n = 0;
      }
      await breathe(run);
    }
  }
  yield* emitValues(out, n);
}
