import { Gauge, type Registry } from 'prom-client';
import type { OptimizingStatus, Warehouse } from '../../lake/index.js';
import type { OptimizingService } from '../../service/index.js';
import { tableSummaries, type TableSummary } from '../table-summary.js';

const STATUSES: readonly OptimizingStatus[] = ['idle', 'pending', 'planning', 'executing', 'committing'];

/** Reads the tables anew; the gauges' collect callbacks then all use that one reading. */
export interface TableMetrics {
  refresh(): void;
}

/**
 * The per-table gauges, computed when Prometheus scrapes (collect callbacks), from the
 * same catalog reads and optimizing rows as /api/v1/tables: nothing is pushed, and a
 * dropped table's series vanish at the next scrape. Each scrape refreshes once, so the
 * tables' files are listed once for all the gauges.
 */
export function registerTableMetrics(registry: Registry, warehouse: Warehouse, optimizing: OptimizingService): TableMetrics {
  let current: TableSummary[] | undefined;
  const refresh = () => {
    current = tableSummaries(warehouse, optimizing);
    return current;
  };
  const tables = (): TableSummary[] => current ?? refresh();
  const perTable = (name: string, help: string, labelNames: readonly string[], fill: (g: Gauge, t: TableSummary) => void) => new Gauge({
    name, help, labelNames: ['schema', 'table', ...labelNames], registers: [registry],
    collect() {
      this.reset();
      for (const t of tables()) fill(this, t);
    },
  });
  const names = (t: TableSummary) => ({ schema: t.schema, table: t.table });
  perTable('floe_table_optimizing_status', 'The table\'s optimizing status: 1 for the status it is in, 0 for the others.', ['status'], (g, t) => {
    if (t.optimizingStatus === null) return;
    for (const s of STATUSES) g.set({ ...names(t), status: s }, s === t.optimizingStatus ? 1 : 0);
  });
  perTable('floe_table_optimizing_lag_seconds', 'How long the oldest change not yet folded into the base store has waited.', [], (g, t) => {
    g.set(names(t), t.freshnessLagSeconds);
  });
  perTable('floe_table_health_score', 'The table\'s optimizing health, 0 to 100 (higher is healthier).', [], (g, t) => {
    if (t.healthScore !== null) g.set(names(t), t.healthScore);
  });
  perTable('floe_table_files', 'Live data files of the table, by store (change or base).', ['store'], (g, t) => {
    g.set({ ...names(t), store: 'change' }, t.stores.change.files);
    g.set({ ...names(t), store: 'base' }, t.stores.base.files);
  });
  perTable('floe_table_bytes', 'Bytes of the table\'s live data files, by store (change or base).', ['store'], (g, t) => {
    g.set({ ...names(t), store: 'change' }, t.stores.change.bytes);
    g.set({ ...names(t), store: 'base' }, t.stores.base.bytes);
  });
  perTable('floe_table_rows', 'Rows in the table\'s live data files (for a keyed table, changes not yet folded may repeat keys).', [], (g, t) => {
    g.set(names(t), t.rows);
  });
  return { refresh };
}
