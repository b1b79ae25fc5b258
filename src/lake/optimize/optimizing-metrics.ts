import { isAncestorOrSelf } from '../bucket/bucket-node.js';
import type { BucketNode } from '../bucket/bucket-node.js';
import { appendOptimizingMetrics } from './append-optimizing-metrics.js';
import { oldestCommitMicros } from './oldest-commit.js';
import type { FileRecord } from '../catalog/catalog.js';
import { deletionVectorsByTarget } from '../table/deletion-vectors.js';
import { frontierByPartition } from '../table/frontier.js';
import type { OptimizingSettings } from '../table/optimizing-properties.js';
import { optimizingSettings } from '../table/optimizing-properties.js';
import { isKeyed } from '../table/table-layout.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import type { NodeOptimizingMetrics, OptimizingMetrics } from './optimize-result.js';

/** What the metrics are computed from: one visibleFiles read and the snapshots' commit times, no file opens. */
export interface OptimizingMetricsInput {
  /** Visible files at the branch head. */
  readonly files: readonly FileRecord[];
  readonly keyed: boolean;
  readonly watermark: bigint;
  readonly settings: Pick<OptimizingSettings, 'targetSize' | 'fragmentRatio'>;
  /** Commit time of a snapshot (a change file's added_in); undefined when unknown. */
  readonly commitMicros: (snapshotId: bigint) => bigint | undefined;
}

/**
 * Warehouse.optimizingMetrics: the table's optimizing state at a branch head (a table
 * with no commit on it has none pending). Cheap enough to call every second per table.
 */
export function optimizingMetrics(ctx: LakeContext, table: TableMetadata, opts: { ref?: string } = {}): OptimizingMetrics {
  const { catalog } = ctx;
  const current = catalog.getTableById(table.id) ?? table;
  // W before the head, as the optimizer reads them: what counts as foldable here is foldable there
  const watermark = catalog.lowWatermark();
  const head = catalog.getRef(table.id, opts.ref ?? 'main');
  const files = head === undefined ? [] : catalog.visibleFiles(table.id, head.snapshotId);
  const times = new Map<bigint, bigint | undefined>();
  const commitMicros = (id: bigint): bigint | undefined => {
    if (!times.has(id)) times.set(id, catalog.getSnapshot(table.id, id)?.committedAtMicros);
    return times.get(id);
  };
  return computeOptimizingMetrics({ files, keyed: isKeyed(current), watermark, settings: optimizingSettings(current), commitMicros });
}

/**
 * A table's optimizing state. Keyed tables, per frontier node: the change files a scan of
 * the node merges (its line — ancestors, itself, descendants — at or above its base seq,
 * as planScan picks them), how many are below the low watermark, the oldest one's commit
 * time, and its base. An ancestor's change file counts whole for each node under it (its
 * rows per node are unknown without opening it). Append tables: data files, small files
 * and the share of rows deletion vectors removed.
 */
export function computeOptimizingMetrics(input: OptimizingMetricsInput): OptimizingMetrics {
  const { files, settings } = input;
  const smallBytes = settings.targetSize / settings.fragmentRatio;
  if (!input.keyed) return appendOptimizingMetrics(files, settings, input.commitMicros);

  const changesByPartition = new Map<string, FileRecord[]>();
  const dvs = deletionVectorsByTarget(files);
  for (const f of files) {
    if (f.store !== 'change') continue;
    let list = changesByPartition.get(f.partitionKey);
    if (list === undefined) changesByPartition.set(f.partitionKey, list = []);
    list.push(f);
  }
  const nodes: NodeOptimizingMetrics[] = [];
  const pending = new Set<FileRecord>();
  let baseFiles = 0;
  let baseRows = 0;
  let baseBytes = 0;
  let smallFiles = 0;
  let readAmplification = 0;
  for (const [partitionKey, frontier] of frontierByPartition(files)) {
    const changes = changesByPartition.get(partitionKey) ?? [];
    for (const fn of frontier) {
      let changeFiles = 0;
      let changeRows = 0;
      let changeBytes = 0;
      let foldable = 0;
      const added: bigint[] = [];
      for (const f of changes) {
        if (f.seq < fn.baseSeq || !onLine(f, fn.node)) continue;
        changeFiles++;
        changeRows += f.rowCount;
        changeBytes += f.sizeBytes;
        if (f.seq < input.watermark) foldable++;
        added.push(f.addedIn);
        pending.add(f);
      }
      const oldest = oldestCommitMicros(added, input.commitMicros);
      const data = fn.baseFiles.filter((f) => f.path !== '');
      const rows = data.reduce((n, f) => n + f.rowCount, 0);
      const bytes = data.reduce((n, f) => n + f.sizeBytes, 0);
      baseFiles += data.length;
      baseRows += rows;
      baseBytes += bytes;
      smallFiles += data.filter((f) => f.sizeBytes < smallBytes).length;
      readAmplification = Math.max(readAmplification, changeFiles);
      nodes.push({
        partitionKey, node: fn.node, changeFiles, changeRows, changeBytes, foldableChangeFiles: foldable,
        oldestChangeMicros: oldest, baseFiles: data.length, baseRows: rows, baseBytes: bytes,
        deletedRows: data.reduce((n, f) => n + (dvs.get(f.fileId)?.rowCount ?? 0), 0),
      });
    }
  }
  let oldestPending: bigint | undefined;
  for (const n of nodes) if (n.oldestChangeMicros !== undefined && (oldestPending === undefined || n.oldestChangeMicros < oldestPending)) oldestPending = n.oldestChangeMicros;
  const list = [...pending];
  let nextFoldableSeq: bigint | undefined;
  for (const f of list) if (f.seq >= input.watermark && (nextFoldableSeq === undefined || f.seq < nextFoldableSeq)) nextFoldableSeq = f.seq;
  return {
    keyed: true,
    pendingChangeFiles: list.length,
    pendingChangeRows: list.reduce((n, f) => n + f.rowCount, 0),
    pendingChangeBytes: list.reduce((n, f) => n + f.sizeBytes, 0),
    oldestPendingChangeMicros: oldestPending,
    baseFiles, baseRows, baseBytes, smallFiles, duplicateRatio: 0, readAmplification, nodes,
    ...(nextFoldableSeq === undefined ? {} : { nextFoldableSeq }),
  };
}

/** A change file belongs to a frontier node's scan when its node is on the node's line. */
export function onLine(f: Pick<FileRecord, 'nodeMask' | 'nodeIndex'>, node: BucketNode): boolean {
  const n = { mask: f.nodeMask, index: f.nodeIndex };
  return isAncestorOrSelf(n, node) || isAncestorOrSelf(node, n);
}
