import { FloeError } from '../../../common/floe-error.js';
import { SqlState } from '../../../common/sqlstate.js';
import { compileExpr, type CompiledExpr } from '../../expr/compile-expr.js';
import type { NestedLoopJoinPlan } from '../../plan/physical-plan.js';
import type { Operator } from '../operator.js';
import { JoinOutput, PairBuffer, columnsUsed, evalPairs, expectedJoinWidth } from './join-support.js';
import type { BuildSide } from './join-support.js';
import { BATCH_ROWS, breathe, collectInput, inputBatches, meteredOperator } from '../operator-support.js';
import type { ColumnarBatch } from '../../arrow/columnar-batch.js';
import type { RunState } from '../../run-state.js';

/**
 * Joins on any condition (or none: a cross join) by pairing every left row with
 * the materialized right input; the condition runs vectorized over chunks of pairs.
 */
export function createNestedLoopJoinOperator(plan: NestedLoopJoinPlan, left: Operator, right: Operator): Operator {
  const lw = left.columns.length;
  const rw = right.columns.length;
  if (plan.columns.length !== expectedJoinWidth(plan.joinType, lw, rw)) {
    throw new FloeError(SqlState.internalError, `nested loop join (${plan.joinType}) has ${plan.columns.length} columns for inputs of ${lw} and ${rw}`);
  }
  const cond = plan.condition ? compileExpr(plan.condition) : undefined;
  const used = plan.condition ? columnsUsed(plan.condition) : undefined;
  const prepared: PreparedNestedLoopJoin = { plan, left, right, lw, rw, cond, used };
  return meteredOperator(plan, (run) => nestedLoopJoinBatches(prepared, run));
}

/** A nested loop join's inputs, their widths and its compiled condition with the columns it reads. */
interface PreparedNestedLoopJoin {
  readonly plan: NestedLoopJoinPlan;
  readonly left: Operator;
  readonly right: Operator;
  readonly lw: number;
  readonly rw: number;
  readonly cond: CompiledExpr | undefined;
  readonly used: Set<number> | undefined;
}

/** Every pair of rows that meets the condition, and the unmatched rows the join type keeps. */
async function* nestedLoopJoinBatches(prepared: PreparedNestedLoopJoin, run: RunState): AsyncGenerator<ColumnarBatch> {
  const { plan, left, right, lw, rw, cond, used } = prepared;
  const built = await collectInput(right, run, 'nested loop join');
  try {
    const build: BuildSide = { columns: built.columns, numRows: built.numRows };
    const out = new JoinOutput(plan.joinType, lw, rw, build);
    const pairs = new PairBuffer();
    for await (const b of inputBatches(left, run)) {
      out.beginProbe(b);
      // Pairs are produced in chunks so the condition runs vectorized.
      const chunk = Math.max(1, Math.floor(BATCH_ROWS / Math.max(1, build.numRows)));
      for (let start = 0; start < b.numRows; start += chunk) {
        const end = Math.min(b.numRows, start + chunk);
        pairs.clear();
        for (let i = start; i < end; i++) for (let j = 0; j < build.numRows; j++) pairs.push(i, j);
        const ok = cond && pairs.n > 0 ? await evalPairs(cond, b, build, pairs.li, pairs.ri, 0, pairs.n, run, used) : undefined;
        out.accept(pairs.li, pairs.ri, 0, pairs.n, ok);
        if (out.pending >= BATCH_ROWS) {
          yield* out.drain();
          await breathe(run);
        }
      }
      out.endProbe();
      yield* out.drain();
    }
    out.endBuild();
    yield* out.drain();
  } finally {
    run.memory.release(built.bytes);
  }
}
