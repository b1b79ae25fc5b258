import type { Snapshot } from '../refs/snapshot.js';
import type { TableMetadata } from './table-metadata.js';
import type { MaterializedViewMetadata } from './materialized-view-metadata.js';

/** What the lag reads of the warehouse (src/lake's Warehouse satisfies it). */
export interface LagSource {
  branchHeads(branch?: string): ReadonlyMap<number, bigint>;
  getTableById(id: number): TableMetadata | undefined;
  listSnapshots(table: TableMetadata, ids?: { readonly from: bigint; readonly to: bigint; readonly limit?: number }): Snapshot[];
}

/**
 * How far a materialized view's rows lag its base tables, in microseconds at `nowMicros`: the
 * age of the oldest base commit its positions do not include (0 when they include every
 * one). Optimizer commits change no rows, so they do not count. Undefined while it is not
 * populated, or when a base table is gone.
 */
export function materializedViewLagMicros(w: LagSource, mv: MaterializedViewMetadata, nowMicros: bigint, heads = w.branchHeads('main')): bigint | undefined {
  if (!mv.populated) return undefined;
  let oldest: bigint | undefined;
  for (const [id, position] of Object.entries(mv.positions)) {
    const head = heads.get(Number(id));
    if (head === undefined) return undefined;
    if (head <= BigInt(position)) continue;
    const table = w.getTableById(Number(id));
    if (table === undefined) return undefined;
    // Snapshot ids grow with commits across tables: the first data commit after the position is the oldest missing one.
    const after = w.listSnapshots(table, { from: BigInt(position) + 1n, to: head })
      .find((s) => s.branch === 'main' && s.operation !== 'optimize' && s.operation !== 'create');
    if (after !== undefined && (oldest === undefined || after.committedAtMicros < oldest)) oldest = after.committedAtMicros;
  }
  return oldest === undefined ? 0n : nowMicros > oldest ? nowMicros - oldest : 0n;
}
