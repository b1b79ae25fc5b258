import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { NestedLoopJoinPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { JoinOutput, evalPairs, expectedJoinWidth } from './join-support.js';
import type { BuildSide } from './join-support.js';
import { BATCH_ROWS, breathe, collectInput, decodedInput, emitBatches, metered } from './operator-support.js';

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
  const jt = plan.joinType;
  return {
    plan,
    columns: plan.columns,
    execute(run) {
      return metered(plan, run, async function* (): AsyncGenerator<RecordBatch> {
        const built = await collectInput(right, run, 'nested loop join');
        try {
          const build: BuildSide = { columns: built.columns, numRows: built.numRows };
          const rightMatched = jt === 'right' || jt === 'full' ? new Uint8Array(build.numRows) : undefined;
          const out = new JoinOutput(plan.columns);
          for await (const b of decodedInput(left, run)) {
            const matched = new Uint8Array(b.numRows);
            const sawNull = new Uint8Array(b.numRows);
            // Pairs are produced in chunks so the condition runs vectorized.
            const chunk = Math.max(1, Math.floor(BATCH_ROWS / Math.max(1, build.numRows)));
            for (let start = 0; start < b.numRows; start += chunk) {
              const end = Math.min(b.numRows, start + chunk);
              const li: number[] = []; const ri: number[] = [];
              for (let i = start; i < end; i++) for (let j = 0; j < build.numRows; j++) { li.push(i); ri.push(j); }
              const ok = cond && li.length > 0 ? await evalPairs(cond, b, build, li, ri, run) : undefined;
              for (let k = 0; k < li.length; k++) {
                const r = ok ? ok[k] : true;
                const i = li[k]!;
                if (r === true) {
                  matched[i] = 1;
                  if (jt === 'semi' || jt === 'anti' || jt === 'mark') continue;
                  if (rightMatched) rightMatched[ri[k]!] = 1;
                  out.pair(b, i, build, ri[k]!, lw, rw);
                } else if (r === null) sawNull[i] = 1;
              }
              if (out.n >= BATCH_ROWS) {
                yield* emitBatches(plan.columns, out.cols, out.n);
                out.reset();
                await breathe(run);
              }
            }
            for (let i = 0; i < b.numRows; i++) {
              if ((jt === 'left' || jt === 'full') && !matched[i]) out.pair(b, i, undefined, undefined, lw, rw);
              else if (jt === 'semi' && matched[i]) out.leftOnly(b, i, lw);
              else if (jt === 'anti' && !matched[i]) out.leftOnly(b, i, lw);
              else if (jt === 'mark') out.leftOnly(b, i, lw, matched[i] ? true : sawNull[i] ? null : false);
            }
            if (out.n > 0) { yield* emitBatches(plan.columns, out.cols, out.n); out.reset(); }
          }
          if (rightMatched) {
            for (let j = 0; j < build.numRows; j++) if (!rightMatched[j]) out.rightOnly(build, j, lw, rw);
            yield* emitBatches(plan.columns, out.cols, out.n);
          }
        } finally {
          run.memory.release(built.bytes);
        }
      });
    },
  };
}
