import { formatType } from '../common/sql-type.js';
import { materializedViewLagMicros, type Warehouse } from '../lake/index.js';
import { freshnessOf, type OfferedView } from '../sql/index.js';

/** floe.mv_rewrite: whether queries may be answered from materialized views. */
export const MV_REWRITE_SETTING = 'floe.mv_rewrite';
/** floe.mv_max_staleness: how stale a view may be to answer ('' : the view's own freshness, or none). */
export const MV_MAX_STALENESS_SETTING = 'floe.mv_max_staleness';

/**
 * How stale a view may be to answer a query, in microseconds: floe.mv_max_staleness when
 * set, else the view's declared freshness, else none at all (an exact answer).
 */
export function allowedStalenessMicros(options: readonly string[], maxStaleness: string | undefined): bigint {
  const ms = maxStaleness !== undefined && maxStaleness.trim() !== '' ? freshnessOf([`freshness=${maxStaleness}`]) : freshnessOf(options);
  return BigInt(Math.round((ms ?? 0) * 1000));
}

/**
 * The materialized views a query reading `tableIds` may be answered from now: populated,
 * reading only those tables, none of them under row security, and no staler than allowed. Lag is measured only for views
 * over the query's tables.
 */
export function offeredMaterializedViews(w: Warehouse, tableIds: readonly number[], maxStaleness: string | undefined): OfferedView[] {
  const all = w.listMaterializedViews();
  if (all.length === 0) return [];
  const read = new Set(tableIds);
  const now = BigInt(Date.now()) * 1000n;
  return all.flatMap((mv) => {
    if (!mv.populated || mv.dependsOn.length === 0 || !mv.dependsOn.every((id) => read.has(id))) return [];
    // A view's rows were computed under whatever policies applied to whoever refreshed it: over a
    // table with row security they may not be the rows this user's query would see.
    if (mv.dependsOn.some((id) => w.rowPolicies.rowSecurity(id).enabled)) return [];
    const lag = materializedViewLagMicros(w, mv, now);
    if (lag === undefined || lag > allowedStalenessMicros(mv.options, maxStaleness)) return [];
    const table = w.getTableById(mv.tableId);
    if (table === undefined) return [];
    return [{
      id: table.id, namespace: table.namespace, name: table.name, definition: mv.definition, searchPath: mv.searchPath,
      columns: table.columns.map((c) => ({ name: c.name, type: formatType(c.type), hidden: c.hidden === true })),
    }];
  });
}

/** Whether a plan answered from view `id` may still be used: the view is still fresh enough. */
export function offeredViewStillFresh(w: Warehouse, id: number, maxStaleness: string | undefined): boolean {
  const mv = w.getMaterializedView(id);
  if (mv === undefined || !mv.populated) return false;
  const lag = materializedViewLagMicros(w, mv, BigInt(Date.now()) * 1000n);
  return lag !== undefined && lag <= allowedStalenessMicros(mv.options, maxStaleness);
}
