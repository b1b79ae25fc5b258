import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { HashJoinPlan } from '../plan/physical-plan.js';
import { rowKey } from '../types/value-ops.js';
import type { Operator } from './operator.js';
import { JoinOutput, evalPairs, expectedJoinWidth } from './join-support.js';
import type { BuildSide } from './join-support.js';
import { BATCH_ROWS, breathe, collectInput, decodedInput, emitBatches, metered, recordMetric } from './operator-support.js';

/**
 * Equi-join: builds a hash table over the right input (accounted against the
 * memory limit), then streams the left input through it. Supports inner, left,
 * right, full, semi, anti and mark (IN with three-valued NULL semantics).
 */
export function createHashJoinOperator(plan: HashJoinPlan, left: Operator, right: Operator): Operator {
  if (plan.leftKeys.length !== plan.rightKeys.length || plan.leftKeys.length === 0) {
    throw new FloeError(SqlState.internalError, 'hash join needs the same, non-zero number of keys on both sides');
  }
  const lw = left.columns.length;
  const rw = right.columns.length;
  if (plan.columns.length !== expectedJoinWidth(plan.joinType, lw, rw)) {
    throw new FloeError(SqlState.internalError, `hash join (${plan.joinType}) has ${plan.columns.length} columns for inputs of ${lw} and ${rw}`);
  }
  const lk = plan.leftKeys.map(compileExpr);
  const rk = plan.rightKeys.map(compileExpr);
  const keyTypes = plan.leftKeys.map((e) => e.type);
  const nullEq = plan.leftKeys.map((_, i) => plan.nullEquals?.[i] ?? false);
  const residual = plan.residual ? compileExpr(plan.residual) : undefined;
  const jt = plan.joinType;
  return {
    plan,
    columns: plan.columns,
    execute(run) {
      return metered(plan, run, async function* (): AsyncGenerator<RecordBatch> {
        // ---- build ----
        const built = await collectInput(right, run, 'hash join');
        try {
          const build: BuildSide = { columns: built.columns, numRows: built.numRows };
          const bkeys: unknown[][] = [];
          for (const e of rk) bkeys.push(await e.evaluate(build, run));
          const table = new Map<string, number[]>();
          let buildHasNullKey = false;
          for (let j = 0; j < build.numRows; j++) {
            const kv = bkeys.map((c) => c[j]);
            if (kv.some((v, k) => v === null && !nullEq[k])) { buildHasNullKey = true; continue; }
            const key = rowKey(kv, keyTypes);
            const list = table.get(key);
            if (list) list.push(j); else table.set(key, [j]);
          }
          recordMetric(plan, run, 'buildRows', build.numRows);
          const rightMatched = jt === 'right' || jt === 'full' ? new Uint8Array(build.numRows) : undefined;
          const out = new JoinOutput(plan.columns);
          // ---- probe ----
          for await (const b of decodedInput(left, run)) {
            const pkeys: unknown[][] = [];
            for (const e of lk) pkeys.push(await e.evaluate(b, run));
            const li: number[] = [];
            const ri: number[] = [];
            const probeNullKey = new Uint8Array(b.numRows);
            for (let i = 0; i < b.numRows; i++) {
              const kv = pkeys.map((c) => c[i]);
              if (kv.some((v, k) => v === null && !nullEq[k])) { probeNullKey[i] = 1; continue; }
              const m = table.get(rowKey(kv, keyTypes));
              if (m) for (const j of m) { li.push(i); ri.push(j); }
            }
            const matched = new Uint8Array(b.numRows);
            const residualNull = new Uint8Array(b.numRows);
            // Candidate pairs are handled in slices, so a many-to-many key never builds one giant batch.
            for (let start = 0; start < li.length; start += BATCH_ROWS) {
              const end = Math.min(li.length, start + BATCH_ROWS);
              const ok = residual ? await evalPairs(residual, b, build, li.slice(start, end), ri.slice(start, end), run) : undefined;
              for (let k = start; k < end; k++) {
                const r = ok ? ok[k - start] : true;
                const i = li[k]!;
                if (r === true) {
                  matched[i] = 1;
                  if (jt === 'semi' || jt === 'anti' || jt === 'mark') continue;
                  if (rightMatched) rightMatched[ri[k]!] = 1;
                  out.pair(b, i, build, ri[k]!, lw, rw);
                } else if (r === null) residualNull[i] = 1;
              }
              if (out.n >= BATCH_ROWS) {
                yield* emitBatches(plan.columns, out.cols, out.n);
                out.reset();
                await breathe(run);
              }
            }
            for (let i = 0; i < b.numRows; i++) {
              switch (jt) {
                case 'left': case 'full':
                  if (!matched[i]) out.pair(b, i, undefined, undefined, lw, rw);
                  break;
                case 'semi':
                  if (matched[i]) out.leftOnly(b, i, lw);
                  break;
                case 'anti':
                  if (!matched[i]) out.leftOnly(b, i, lw);
                  break;
                case 'mark': {
                  let mark: boolean | null;
                  if (matched[i]) mark = true;
                  else if (build.numRows === 0) mark = false;
                  else if (probeNullKey[i] || buildHasNullKey || residualNull[i]) mark = null;
                  else mark = false;
                  out.leftOnly(b, i, lw, mark);
                  break;
                }
                default:
                  break;
              }
            }
            if (out.n > 0) {
              yield* emitBatches(plan.columns, out.cols, out.n);
              out.reset();
            }
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
