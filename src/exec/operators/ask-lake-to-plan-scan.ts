import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ScanPlan } from '../../lake/index.js';
import type { ExecContext } from '../exec-context.js';
import type { LakeScanPlan } from '../plan/physical-plan.js';
import { createRunState, type RunState } from '../run-state.js';
import { resolveSnapshotSelector } from '../scan-snapshot-selector.js';
import { bindScanFilters } from './bind-scan-filters.js';

/**
 * The lake's plan (pruning, pushdown, tasks) of a scan node, under the run's
 * parameters, clock and transaction. The scan operator and EXPLAIN both ask
 * through here, so EXPLAIN reports the scan that runs.
 */
export async function askLakeToPlanScan(plan: LakeScanPlan, run: RunState): Promise<ScanPlan> {
  const wh = run.ctx.warehouse;
  if (!wh) throw new FloeError(SqlState.internalError, 'lakeScan needs a warehouse in the execution context');
  const table = wh.getTableById(plan.table.id);
  if (!table) throw new FloeError(SqlState.undefinedTable, `relation "${plan.table.namespace}.${plan.table.name}" does not exist`);
  return wh.planScan({
    table,
    at: resolveSnapshotSelector(plan.at, run),
    txn: run.ctx.txn,
    projection: [...plan.projection],
    filters: bindScanFilters(plan.filters, run),
    limit: plan.residual ? undefined : plan.limit,
    ...lookupOf(plan, run),
  });
}

/** The same outside a running plan: EXPLAIN without ANALYZE. Filters on parameters the context lacks are left out. */
export function askLakeToPlanScanIn(plan: LakeScanPlan, ctx: ExecContext): Promise<ScanPlan> {
  return askLakeToPlanScan(plan, createRunState(ctx));
}

/** The keys a hash join above handed this scan to look up (key-lookup.ts), if it has. */
function lookupOf(plan: LakeScanPlan, run: RunState): { keyLookup?: readonly (readonly unknown[])[] } {
  const keys = run.keyLookups?.get(plan)?.keys;
  return keys === undefined ? {} : { keyLookup: keys };
}
