import type { OptimizingMetrics, TableMetadata } from '../../lake/index.js';
import type { OptimizingWarehouse } from './optimizing-warehouse.js';

/** How often metrics with unfoldable changes are re-read though the head did not move (default). */
export const DEFAULT_METRICS_REFRESH_MS = 30_000;

interface Entry {
  readonly headId: bigint | undefined;
  readonly metrics: OptimizingMetrics;
  readonly readMicros: bigint;
}

/**
 * A table's optimizing metrics, re-read only when they can have changed, so a tick stays
 * cheap with many tables: when the head snapshot moved; after the table's optimize (forget); or when some change waits above
 * the low watermark (a transaction that ends makes it foldable without a commit to this
 * table) and the last read is older than the refresh interval. Time-based triggers need
 * no re-read: dueOptimizingKind takes `now` and the metrics carry the oldest change's time.
 */
export class TableMetricsCache {
  readonly #warehouse: OptimizingWarehouse;
  readonly #refreshMicros: bigint;
  readonly #entries = new Map<number, Entry>();

  constructor(warehouse: OptimizingWarehouse, refreshMs = DEFAULT_METRICS_REFRESH_MS) {
    this.#warehouse = warehouse;
    this.#refreshMicros = BigInt(refreshMs) * 1000n;
  }

  /** `heads`: branchHeads() of this tick, read once for all tables instead of resolving each table's head. */
  get(table: TableMetadata, heads: ReadonlyMap<number, bigint>, nowMicros: bigint): OptimizingMetrics {
    const headId = heads.get(table.id);
    const e = this.#entries.get(table.id);
    if (e !== undefined && e.headId === headId) {
      const waitsOnWatermark = e.metrics.nodes.some((n) => n.foldableChangeFiles < n.changeFiles);
      if (!waitsOnWatermark || nowMicros - e.readMicros < this.#refreshMicros) return e.metrics;
    }
    const metrics = this.#warehouse.optimizingMetrics(table);
    this.#entries.set(table.id, { headId, metrics, readMicros: nowMicros });
    return metrics;
  }

  /**
   * Forgets a table's metrics, so the next get reads them: after its optimize, whose change
   * compaction swaps files in place without moving the head.
   */
  forget(tableId: number): void {
    this.#entries.delete(tableId);
  }

  /** Drops tables no longer listed (dropped tables). */
  retain(tableIds: ReadonlySet<number>): void {
    for (const id of this.#entries.keys()) if (!tableIds.has(id)) this.#entries.delete(id);
  }
}
