import { isAncestorOrSelf, nodeKey } from '../bucket/bucket-node.js';
import type { Catalog } from '../catalog/catalog.js';
import { decodeStatValue } from '../stats/column-stats.js';
import type { BucketNodeInfo, DataFileInfo } from '../warehouse/warehouse.js';
import { deletionVectorsByTarget } from './deletion-vectors.js';
import { frontierByPartition } from './frontier.js';
import { physicalName } from './table-layout.js';
import type { TableMetadata } from './table-metadata.js';

/** t$files: the data files visible at a snapshot (markers and deletion vectors folded in). */
export function describeFiles(catalog: Catalog, table: TableMetadata, snapshotId: bigint): DataFileInfo[] {
  const files = catalog.visibleFiles(table.id, snapshotId);
  const dvs = deletionVectorsByTarget(files);
  return files.filter((f) => f.store !== 'dv' && f.path !== '').map((f) => {
    const columnStats: Record<string, { min: unknown; max: unknown; nullCount: number }> = {};
    for (const c of table.columns) {
      const s = f.stats[physicalName(c.fieldId)];
      if (s === undefined) continue;
      columnStats[c.name] = {
        min: s.min === null ? null : decodeStatValue(c.type, s.min),
        max: s.max === null ? null : decodeStatValue(c.type, s.max),
        nullCount: s.nullCount,
      };
    }
    return {
      fileId: f.fileId, path: f.path, store: f.store as 'change' | 'base', partitionKey: f.partitionKey,
      partitionValues: f.partitionValues, node: { mask: f.nodeMask, index: f.nodeIndex }, rowCount: f.rowCount,
      sizeBytes: f.sizeBytes, seq: f.seq, firstOffset: f.firstOffset, addedIn: f.addedIn,
      deletedRows: dvs.get(f.fileId)?.rowCount ?? 0, columnStats,
    };
  });
}

/** t$buckets: every node holding files, with what is pending on it. */
export function describeBucketTree(catalog: Catalog, table: TableMetadata, snapshotId: bigint): BucketNodeInfo[] {
  void table;
  const files = catalog.visibleFiles(table.id, snapshotId);
  const frontier = frontierByPartition(files);
  const out = new Map<string, { partitionKey: string; node: { mask: number; index: number }; isFrontier: boolean; baseFiles: number; baseRows: number; baseBytes: number; changeFiles: number; changeRows: number }>();
  const entry = (pk: string, mask: number, index: number) => {
    const k = `${pk}|${mask}:${index}`;
    let e = out.get(k);
    if (e === undefined) {
      const isFrontier = (frontier.get(pk) ?? []).some((n) => n.node.mask === mask && n.node.index === index);
      out.set(k, e = { partitionKey: pk, node: { mask, index }, isFrontier, baseFiles: 0, baseRows: 0, baseBytes: 0, changeFiles: 0, changeRows: 0 });
    }
    return e;
  };
  for (const [pk, nodes] of frontier) for (const n of nodes) entry(pk, n.node.mask, n.node.index);
  for (const f of files) {
    if (f.store === 'base' && f.path !== '') {
      const e = entry(f.partitionKey, f.nodeMask, f.nodeIndex);
      e.baseFiles++; e.baseRows += f.rowCount; e.baseBytes += f.sizeBytes;
    } else if (f.store === 'change') {
      // Pending only while some frontier node on its line has not folded it.
      const node = { mask: f.nodeMask, index: f.nodeIndex };
      const pending = (frontier.get(f.partitionKey) ?? []).some((n) =>
        (isAncestorOrSelf(node, n.node) || isAncestorOrSelf(n.node, node)) && f.seq >= n.baseSeq);
      if (!pending) continue;
      const e = entry(f.partitionKey, f.nodeMask, f.nodeIndex);
      e.changeFiles++; e.changeRows += f.rowCount;
    }
  }
  void nodeKey;
  return [...out.values()].sort((a, b) => (a.partitionKey < b.partitionKey ? -1 : a.partitionKey > b.partitionKey ? 1 : a.node.mask - b.node.mask || a.node.index - b.node.index));
}
