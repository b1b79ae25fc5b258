import type { OptimizingMetrics, TableMetadata } from '../../lake/index.js';
import type { OptimizingWarehouse } from './optimizing-warehouse.js';

interface Entry {
  readonly headId: bigint | undefined;
  readonly fileEpoch: number;
  readonly metrics: OptimizingMetrics;
}

/** What a tick reads once for every table: the branch heads, the file epochs and the low watermark. */
export interface TickReads {
  readonly heads: ReadonlyMap<number, bigint>;
  readonly fileEpochs: ReadonlyMap<number, number>;
  readonly watermark: bigint;
}

/**
 * A table's optimizing metrics, re-read only when they can have changed, so a tick stays
 * cheap with many tables: when the head snapshot moved; when its files were swapped in
 * place (its file epoch moved: tiering, in this process or another); after the table's
 * optimize (forget); or when the low watermark passed a pending change that was above it (a
 * transaction that ends makes changes foldable without a commit to this table). Time-based
 * triggers need no re-read: dueOptimizingKind takes `now` and the metrics carry the oldest
 * change's time.
 */
export class TableMetricsCache {
  readonly #warehouse: OptimizingWarehouse;
  readonly #entries = new Map<number, Entry>();

  constructor(warehouse: OptimizingWarehouse) {
    this.#warehouse = warehouse;
  }

  /** The tick's reads, once for all tables instead of resolving each table's head and epoch. */
  tickReads(): TickReads {
    return { heads: this.#warehouse.branchHeads('main'), fileEpochs: this.#warehouse.fileEpochs(), watermark: this.#warehouse.lowWatermark() };
  }

  get(table: TableMetadata, tick: TickReads): OptimizingMetrics {
    const headId = tick.heads.get(table.id);
    const fileEpoch = tick.fileEpochs.get(table.id) ?? 0;
    const e = this.#entries.get(table.id);
    if (e !== undefined && e.headId === headId && e.fileEpoch === fileEpoch) {
      const next = e.metrics.nextFoldableSeq;
      if (next === undefined || next >= tick.watermark) return e.metrics;
    }
    const metrics = this.#warehouse.optimizingMetrics(table);
    this.#entries.set(table.id, { headId, fileEpoch, metrics });
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
