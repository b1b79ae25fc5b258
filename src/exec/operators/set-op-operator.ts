import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SetOpPlan } from '../plan/physical-plan.js';
import { rowKey } from '../types/value-ops.js';
import type { Operator } from './operator.js';
import { emitValues, inputBatches, meteredOperator, selectRows, typesOf } from './operator-support.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';
import type { SqlType } from '../../common/sql-type.js';

/**
 * UNION / INTERSECT / EXCEPT [ALL], with SQL's row comparison for set operations
 * (NULLs equal). UNION ALL streams; the others hash the right input first
 * (INTERSECT/EXCEPT) or dedupe as they go (UNION).
 */
export function createSetOpOperator(plan: SetOpPlan, left: Operator, right: Operator): Operator {
  if (left.columns.length !== right.columns.length || left.columns.length !== plan.columns.length) {
    throw new FloeError(SqlState.syntaxError, `each ${plan.op.toUpperCase()} query must have the same number of columns`);
  }
  const types = typesOf(plan.columns);
  return meteredOperator(plan, (run) => setOpBatches(plan, left, right, types, run));
}

/** UNION, INTERSECT or EXCEPT of the two inputs. */
async function* setOpBatches(plan: SetOpPlan, left: Operator, right: Operator, types: readonly SqlType[], run: RunState): AsyncGenerator<ColumnarBatch> {
  if (plan.op === 'union' && plan.all && plan.concurrent === true) {
    yield* interleaved([inputBatches(left, run), inputBatches(right, run)]);
    return;
  }
  if (plan.op === 'union') {
    const seen = plan.all ? undefined : new Set<string>();
    for (const side of [left, right]) {
      for await (const b of inputBatches(side, run)) {
        if (!seen) { yield b; continue; }
        const sel: number[] = [];
        for (let i = 0; i < b.numRows; i++) {
          const k = rowKey(b.columns.map((c) => c[i]), types);
          if (!seen.has(k)) { seen.add(k); sel.push(i); }
        }
        run.memory.reserve(sel.length * 64, 'UNION');
        if (sel.length > 0) yield selectRows(b, sel);
      }
    }
    return;
  }
  const counts = new Map<string, number>();
  for await (const b of inputBatches(right, run)) {
    for (let i = 0; i < b.numRows; i++) {
      const k = rowKey(b.columns.map((c) => c[i]), types);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    run.memory.reserve(b.numRows * 64, plan.op.toUpperCase());
  }
  const emitted = new Set<string>();
  const out: unknown[][] = plan.columns.map(() => []);
  let n = 0;
  for await (const b of inputBatches(left, run)) {
    for (let i = 0; i < b.numRows; i++) {
      const row = b.columns.map((c) => c[i]);
      const k = rowKey(row, types);
      const c = counts.get(k) ?? 0;
      let take: boolean;
      if (plan.op === 'intersect') {
        if (plan.all) { take = c > 0; if (take) counts.set(k, c - 1); }
        else { take = c > 0 && !emitted.has(k); if (take) emitted.add(k); }
      } else if (plan.all) {
        take = c === 0;
        if (!take) counts.set(k, c - 1);
      } else {
        take = c === 0 && !emitted.has(k);
        if (take) emitted.add(k);
      }
      if (take) { row.forEach((v, j) => out[j]!.push(v)); n++; }
    }
  }
  yield* emitValues(out, n);
}

/**
 * The batches of several inputs run at once, each yielded as it arrives. A consumer that
 * stops early, or an input that fails, ends the others (their generators' finally blocks
 * run, releasing what they hold).
 */
async function* interleaved(inputs: readonly AsyncIterator<ColumnarBatch>[]): AsyncGenerator<ColumnarBatch> {
  const pending = new Map<number, Promise<{ i: number; r: IteratorResult<ColumnarBatch> }>>();
  const pull = (i: number) => {
    const next = inputs[i]!.next().then((r) => ({ i, r }));
    // Handled at once: an input may fail while the union waits at its yield, before the next
    // race looks at it, and that rejection would be reported unhandled. The race still sees it.
    next.catch(() => undefined);
    pending.set(i, next);
  };
  inputs.forEach((_input, i) => pull(i));
  try {
    while (pending.size > 0) {
      const { i, r } = await Promise.race(pending.values());
      if (r.done === true) { pending.delete(i); continue; }
      pull(i);
      yield r.value;
    }
  } finally {
    // Inputs still running (an early stop, or another's failure): their next results are not wanted.
    for (const i of pending.keys()) await inputs[i]!.return?.(undefined)?.catch(() => undefined);
  }
}
