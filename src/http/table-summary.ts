import type { OptimizingService } from '../service/index.js';
import type { OptimizingStatus, TableMetadata, Warehouse } from '../lake/index.js';
import type { TableSummaryShape } from './table-summary-shape.js';
import { tableStorage, type TableStorage } from './table-storage.js';

/** One table as the table list and the per-table metrics show it. */
export type TableSummary = TableSummaryShape<OptimizingStatus>;

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
