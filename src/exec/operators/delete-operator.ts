import type { DeletePlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { dmlTarget, isKeyEqualityScan, returningBatches, toColumns } from './dml-support.js';
import { inputBatches, meteredOperator } from './operator-support.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';

/** DELETE: keyed tables delete by key (blind when selected by full-key equality), append tables by row id. */
export function createDeleteOperator(plan: DeletePlan, input: Operator): Operator {
  return meteredOperator(plan, (run) => deletedBatches(plan, input, run));
}

/** Deletes the input's rows; RETURNING's rows. */
async function* deletedBatches(plan: DeletePlan, input: Operator, run: RunState): AsyncGenerator<ColumnarBatch> {
  const t = dmlTarget(plan.table, plan.ref, run);
  const width = t.table.columns.length;
  const rows: unknown[][] = [];
  const rowIds: bigint[] = [];
  // RETURNING's rows: the deleted row, then the input's USING-item columns when it reads them.
  const returned: unknown[][] = [];
  const extra = plan.returningExtra;
  for await (const b of inputBatches(input, run)) {
    for (let i = 0; i < b.numRows; i++) {
      rows.push(b.columns.slice(0, width).map((c) => c[i]));
      if (extra !== undefined) returned.push([...rows[rows.length - 1]!, ...b.columns.slice(extra).map((c) => c[i])]);
      if (!t.keyed) rowIds.push(BigInt(b.columns[width]![i] as bigint));
    }
  }
  if (rows.length > 0) {
    if (t.keyed) {
      if (!isKeyEqualityScan(plan.input, t)) t.txn.markReadModifyWrite(t.table, t.ref);
      const keyCols = t.keyIndexes.map((k) => rows.map((r) => r[k]));
      await t.txn.deleteKeys(t.table, t.ref, keyCols);
    } else {
      await t.txn.deleteRows(t.table, t.ref, rowIds);
    }
  }
  run.ctx.onRowsAffected?.(rows.length);
  yield* returningBatches(plan.returning, plan.columns, extra === undefined ? rows : returned, run);
  void toColumns;
}
