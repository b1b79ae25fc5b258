import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { VirtualScanPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';
import { evaluateConstant } from '../expr/evaluate-constant.js';
import { emitValues, meteredOperator } from './operator-support.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';

/** Scans a relation of the session's VirtualTableRegistry (pg_catalog, information_schema, system tables). */
export function createVirtualScanOperator(plan: VirtualScanPlan): Operator {
  return meteredOperator(plan, (run) => virtualScanBatches(plan, run));
}

/** The virtual relation's rows, projected. */
async function* virtualScanBatches(plan: VirtualScanPlan, run: RunState): AsyncGenerator<ColumnarBatch> {
  const reg = run.ctx.virtualTables;
  const vt = reg?.lookup(plan.schema, plan.name);
  if (!vt) throw new FloeError(SqlState.undefinedTable, `relation "${plan.schema}.${plan.name}" does not exist`);
  const proj = plan.projection ?? vt.columns.map((_, i) => i);
  if (proj.length !== plan.columns.length) {
    throw new FloeError(SqlState.internalError, `virtualScan of ${plan.name} projects ${proj.length} columns but lists ${plan.columns.length}`);
  }
  const args = plan.args?.map((a) => evaluateConstant(a, run));
  const rows = await vt.rows({
    user: run.evalCtx.user, database: run.evalCtx.database, searchPath: run.evalCtx.searchPath,
    settings: run.evalCtx.settings, warehouse: run.ctx.warehouse,
    ...(run.evalCtx.server === undefined ? {} : { server: run.evalCtx.server }),
    ...(run.ctx.settingRows === undefined ? {} : { settingRows: run.ctx.settingRows }),
    ...(args === undefined ? {} : { args }),
  });
  const cols = proj.map((ci) => rows.map((r) => (r[ci] === undefined ? null : r[ci])));
  yield* emitValues(cols, rows.length);
}
