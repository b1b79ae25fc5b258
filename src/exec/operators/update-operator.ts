import { compileExpr } from '../expr/compile-expr.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import type { UpdatePlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { checkNotNull, dmlTarget, isKeyEqualityScan, returningBatches, toColumns } from './dml-support.js';
import { inputBatches, meteredOperator } from './operator-support.js';
import { compileCheckConstraints } from './check-constraints.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';

/**
 * UPDATE: the input yields current rows (plus the row id for append tables);
 * keyed tables write -U/+U pairs, append tables delete by row id and insert the
 * new rows. Anything but a full-key equality update is read-modify-write.
 */
export function createUpdateOperator(plan: UpdatePlan, input: Operator): Operator {
  const sets = plan.set.map((s) => ({ column: s.column, fn: compileExpr(s.expr) }));
  return meteredOperator(plan, (run) => updatedBatches(plan, input, sets, run));
}

/** A SET clause: the column it assigns and its compiled expression. */
interface UpdateSet {
  readonly column: number;
  readonly fn: CompiledExpr;
}

/** Updates the input's rows; RETURNING's rows. */
async function* updatedBatches(plan: UpdatePlan, input: Operator, sets: readonly UpdateSet[], run: RunState): AsyncGenerator<ColumnarBatch> {
  const t = dmlTarget(plan.table, plan.ref, run);
  const width = t.table.columns.length;
  const before: unknown[][] = [];
  const after: unknown[][] = [];
  const rowIds: bigint[] = [];
  // RETURNING's rows: the new row, then the input's FROM-item columns when it reads them.
  const returned: unknown[][] = [];
  const extra = plan.returningExtra;
  for await (const b of inputBatches(input, run)) {
    const vals = [];
    for (const s of sets) vals.push({ column: s.column, v: await s.fn.evaluate(b, run) });
    for (let i = 0; i < b.numRows; i++) {
      const old = b.columns.slice(0, width).map((c) => c[i]);
      const row = [...old];
      for (const s of vals) row[s.column] = s.v[i] ?? null;
      checkNotNull(t, row);
      before.push(old);
      after.push(row);
      if (extra !== undefined) returned.push([...row, ...b.columns.slice(extra).map((c) => c[i])]);
      if (!t.keyed) rowIds.push(BigInt(b.columns[width]![i] as bigint));
    }
  }
  await compileCheckConstraints(plan.checks, t.table)?.enforce(after, run);
  if (after.length > 0) {
    if (t.keyed) {
      if (!isKeyEqualityScan(plan.input, t) || sets.length > 0) t.txn.markReadModifyWrite(t.table, t.ref);
      await t.txn.update(t.table, t.ref, toColumns(before, width), toColumns(after, width));
    } else {
      await t.txn.deleteRows(t.table, t.ref, rowIds);
      await t.txn.insert(t.table, t.ref, toColumns(after, width));
    }
  }
  run.ctx.onRowsAffected?.(after.length);
  yield* returningBatches(plan.returning, plan.columns, extra === undefined ? after : returned, run);
}
