import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { compileExpr, type CompiledExpr } from '../expr/compile-expr.js';
import type { SqlType } from '../../common/sql-type.js';
import { rowKey } from '../types/value-ops.js';
import type { Expr } from '../expr/expr.js';
import type { LimitPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import type { Operator } from './operator.js';
import { inputBatches, meteredOperator, selectRows } from './operator-support.js';
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
  const ties = plan.withTies?.map((k) => compileExpr(k.expr));
  const tieTypes = plan.withTies?.map((k) => k.expr.type) ?? [];
  return meteredOperator(plan, (run) => limitedBatches(plan, input, ties, tieTypes, run));
}

/** The input's rows past OFFSET, up to LIMIT (and its ties). */
async function* limitedBatches(plan: LimitPlan, input: Operator, ties: readonly CompiledExpr[] | undefined, tieTypes: readonly SqlType[], run: RunState): AsyncGenerator<ColumnarBatch> {
  const limit = await evalCount(plan.limit, run, 'LIMIT');
  let skip = (await evalCount(plan.offset, run, 'OFFSET')) ?? 0;
  let left = limit ?? Infinity;
  if (left === 0) return;
  /** WITH TIES: the sort key of the last row within the limit, once it is reached. */
  let lastKey: string | undefined;
  for await (const b of inputBatches(input, run)) {
    let start = 0;
    if (skip > 0) {
      const s = Math.min(skip, b.numRows);
      skip -= s; start = s;
      if (start >= b.numRows) continue;
    }
    if (lastKey === undefined) {
      const take = Math.min(left, b.numRows - start);
      const sel = Int32Array.from({ length: take }, (_, i) => start + i);
      yield start === 0 && take === b.numRows ? b : selectRows(b, sel);
      left -= take;
      start += take;
      if (left > 0) continue;
      if (ties === undefined) return;
    }
    // Past the limit: the rows tied with the last one kept (they follow it, the input being sorted).
    const keyOf = await batchSortKeys(ties!, tieTypes, b, run);
    lastKey ??= keyOf(start - 1);
    let end = start;
    while (end < b.numRows && keyOf(end) === lastKey) end++;
    if (end > start) yield selectRows(b, Int32Array.from({ length: end - start }, (_, i) => start + i));
    if (end < b.numRows) return;
  }
}

/** A function giving each row's sort-key identity (equal for ORDER BY peers). */
async function batchSortKeys(keys: readonly CompiledExpr[], types: readonly SqlType[], b: ColumnarBatch, run: RunState): Promise<(row: number) => string> {
  const cols: unknown[][] = [];
  for (const k of keys) cols.push(await k.evaluate(b, run));
  return (row) => rowKey(cols.map((c) => c[row]), types);
}
void SqlState;
