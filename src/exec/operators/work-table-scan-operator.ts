import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { WorkTableScanPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { meteredOperator } from './operator-support.js';
import type { RunState } from '../run-state.js';

/** Reads the rows the enclosing recursive union's previous iteration added (PostgreSQL's WorkTable Scan). */
export function createWorkTableScanOperator(plan: WorkTableScanPlan): Operator {
  return meteredOperator(plan, (run) => workTableBatches(plan, run));
}

/** The work table's rows of this run. */
async function* workTableBatches(plan: WorkTableScanPlan, run: RunState): AsyncGenerator<ColumnarBatch> {
  const rows = run.workTables.get(plan.workTable);
  if (rows === undefined) throw new FloeError(SqlState.internalError, `work table of "${plan.workTable.name}" read outside its recursive union`);
  yield* rows;
}
