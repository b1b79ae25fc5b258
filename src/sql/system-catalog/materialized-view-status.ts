import { materializedViewLagMicros, type LagSource, type MaterializedViewMetadata } from '../../lake/index.js';
import { freshnessOf } from '../materialized-view/view-options.js';
import type { CatalogView } from './catalog-view.js';

/**
 * floe_materialized_views: one row per materialized view — how it is refreshed (and why in
 * full, when it is), the freshness it declares, how far its rows lag the base tables now,
 * and what its last refresh did. In pg_catalog beside floe_optimizing.
 */
export const materializedViewStatusShapes = [
  {
    schema: 'pg_catalog', name: 'floe_materialized_views', oid: 16306, relkind: 'v',
    columns: 'schemaname:name name:name refresh_mode:text freshness:interval lag:interval populated:bool last_refresh_at:timestamptz '
      + 'last_refresh_mode:text last_refresh_duration:interval rows_changed:int8 full_refresh_reason:text',
  },
] as const;

type Row = Record<string, unknown>;

const interval = (micros: bigint) => ({ months: 0, days: 0, micros });

/** The lake warehouse behind the catalog view, when it can tell lag (src/lake's Warehouse can). */
function lagSource(w: unknown): (LagSource & { listMaterializedViews(): MaterializedViewMetadata[] }) | undefined {
  const c = w as Partial<LagSource & { listMaterializedViews(): MaterializedViewMetadata[] }> | undefined;
  return c && typeof c.branchHeads === 'function' && typeof c.listSnapshots === 'function' && typeof c.listMaterializedViews === 'function'
    ? c as LagSource & { listMaterializedViews(): MaterializedViewMetadata[] } : undefined;
}

function floeMaterializedViews(v: CatalogView): Row[] {
  const w = lagSource(v.ctx.warehouse);
  if (w === undefined) return [];
  const now = BigInt(Date.now()) * 1000n;
  const heads = w.branchHeads('main');
  const names = new Map(v.materializedViews.map((m) => [m.id, m]));
  return w.listMaterializedViews().flatMap((mv) => {
    const shown = names.get(mv.tableId);
    if (shown === undefined) return [];
    const freshness = freshnessOf(mv.options);
    const lag = materializedViewLagMicros(w, mv, now, heads);
    const last = mv.lastRefresh;
    return [{
      schemaname: shown.namespace, name: shown.name, refresh_mode: mv.fullRefreshReason === undefined ? 'incremental' : 'full',
      freshness: freshness === undefined ? null : interval(BigInt(Math.round(freshness * 1000))),
      lag: lag === undefined ? null : interval(lag), populated: mv.populated,
      last_refresh_at: last?.atMicros ?? null, last_refresh_mode: last?.mode ?? null,
      last_refresh_duration: last === undefined ? null : interval(BigInt(last.durationMs) * 1000n), rows_changed: last?.rowsChanged ?? null,
      full_refresh_reason: mv.fullRefreshReason ?? null,
    }];
  });
}

export const materializedViewStatusRowSources: Readonly<Record<string, (v: CatalogView) => Row[]>> = {
  'pg_catalog.floe_materialized_views': floeMaterializedViews,
};
