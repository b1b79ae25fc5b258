import type { OptimizingService } from '../service/index.js';
import type { OptimizingStatus, TableMetadata, Warehouse } from '../lake/index.js';
import { tableStorage, type TableStorage } from './table-storage.js';

/** One table as the table list and the per-table metrics show it. */
export interface TableSummary {
  readonly schema: string;
  readonly table: string;
  readonly keyed: boolean;
  /**
   * Rows in the table's files. Exact for an append table; for a keyed table, changes not
   * folded yet may repeat keys of the base store, so it is an upper bound until optimized.
   */
  readonly rows: number;
  readonly bytes: number;
  readonly stores: TableStorage;
  /** How long the oldest change not folded into the base store has waited (floe_optimizing's optimizing_lag). */
  readonly freshnessLagSeconds: number;
  /** 0–100, higher is healthier (floe_optimizing's health_score); null when the service has no row for it. */
  readonly healthScore: number | null;
  readonly optimizingStatus: OptimizingStatus | null;
  readonly optimizingEnabled: boolean | null;
  readonly group: string | null;
}

/** Every table with its files (t$files) and optimizing row (floe_optimizing), as the SQL views read them. */
export function tableSummaries(warehouse: Warehouse, optimizing: OptimizingService): TableSummary[] {
  const rows = new Map(optimizing.tables().map((r) => [r.tableId, r]));
  return warehouse.listTables().flatMap((t) => {
    const summary = summarize(warehouse, t, rows.get(t.id));
    return summary === undefined ? [] : [summary];
  });
}

function summarize(warehouse: Warehouse, t: TableMetadata, o: ReturnType<OptimizingService['tables']>[number] | undefined): TableSummary | undefined {
  let stores: TableStorage;
  // A table dropped while this runs has no files to list: it is left out, as floe_optimizing leaves it.
  try { stores = tableStorage(warehouse.resolveSnapshot(t) === undefined ? [] : warehouse.listFiles(t)); } catch { return undefined; }
  return {
    schema: t.namespace, table: t.name, keyed: t.primaryKey.length > 0,
    rows: stores.base.rows + stores.change.rows, bytes: stores.base.bytes + stores.change.bytes, stores,
    freshnessLagSeconds: (o?.optimizingLagMs ?? 0) / 1000,
    healthScore: o?.healthScore ?? null, optimizingStatus: o?.status ?? null, optimizingEnabled: o?.enabled ?? null, group: o?.group ?? null,
  };
}
