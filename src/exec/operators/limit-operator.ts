import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { Expr } from '../expr/expr.js';
import type { LimitPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import type { Operator } from './operator.js';
import { inputBatches, metered, selectRows } from './operator-support.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';

/** Evaluates a LIMIT/OFFSET expression once; undefined = no limit (NULL/ALL). */
export async function evalCount(e: Expr | undefined, run: RunState, what: 'LIMIT' | 'OFFSET'): Promise<number | undefined> {
  if (!e) return undefined;
  const v = (await compileExpr(e).evaluate({ numRows: 1, columns: [] }, run))[0];
  if (v === null || v === undefined) return undefined;
  const n = Number(v);
  if (n < 0) {
    throw new FloeError(what === 'LIMIT' ? '2201W' : '2201X', `${what} must not be negative`);
  }
  return n;
}

export function createLimitOperator(plan: LimitPlan, input: Operator): Operator {
  return {
    plan,
    columns: plan.columns,
    execute(run) {
      return metered(plan, run, async function* (): AsyncGenerator<ColumnarBatch> {
        const limit = await evalCount(plan.limit, run, 'LIMIT');
        let skip = (await evalCount(plan.offset, run, 'OFFSET')) ?? 0;
        let left = limit ?? Infinity;
        if (left === 0) return;
        for await (const b of inputBatches(input, run)) {
          let start = 0;
          if (skip > 0) {
            const s = Math.min(skip, b.numRows);
            skip -= s; start = s;
            if (start >= b.numRows) continue;
          }
          const take = Math.min(left, b.numRows - start);
          const sel = Int32Array.from({ length: take }, (_, i) => start + i);
          yield start === 0 && take === b.numRows ? b : selectRows(b, sel);
          left -= take;
          if (left <= 0) return;
        }
      });
    },
  };
}
void SqlState;
