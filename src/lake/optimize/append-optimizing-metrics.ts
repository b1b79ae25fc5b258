import type { FileRecord } from '../catalog/catalog.js';
import { isLogPath } from '../log/log-locator.js';
import { deletionVectorsByTarget } from '../table/deletion-vectors.js';
import type { NodeOptimizingMetrics, OptimizingMetrics } from './optimize-result.js';
import { oldestCommitMicros } from './oldest-commit.js';
import { compactableSmallFiles } from './plan-append-rewrites.js';
import type { SizeSettings } from './plan-append-rewrites.js';

/**
 * The commit time of the oldest log-located data file (rows still in the log store, which
 * only a minor moves into Parquet); undefined when there is none or its time is unknown.
 */
export function oldestLogFileMicros(files: readonly FileRecord[], commitMicros: (snapshotId: bigint) => bigint | undefined): bigint | undefined {
  return oldestCommitMicros(files.filter((f) => f.store === 'base' && isLogPath(f.path)).map((f) => f.addedIn), commitMicros);
}

/**
 * OptimizingMetrics of an append table from the files visible at a head: no change store
 * (nothing merged on read), one entry per partition. smallFiles counts only files a minor
 * can combine (compactableSmallFiles), duplicateRatio is deleted rows over data rows, and
 * oldestPendingChangeMicros is the oldest log-located file's commit (rows waiting to leave
 * the log), so dueOptimizingKind reports a table due exactly when compactAppendTable with
 * the same triggers has work.
 */
export function appendOptimizingMetrics(
  files: readonly FileRecord[], s: SizeSettings, commitMicros: (snapshotId: bigint) => bigint | undefined = () => undefined,
): OptimizingMetrics {
  const dvs = deletionVectorsByTarget(files);
  const parts = new Map<string, { files: number; rows: number; bytes: number; deleted: number }>();
  let rows = 0;
  let bytes = 0;
  let dataFiles = 0;
  let deletedRows = 0;
  for (const f of files) {
    if (f.store !== 'base' || f.path === '') continue;
    let p = parts.get(f.partitionKey);
    if (p === undefined) parts.set(f.partitionKey, p = { files: 0, rows: 0, bytes: 0, deleted: 0 });
    p.files++;
    p.rows += f.rowCount;
    p.bytes += f.sizeBytes;
    const deleted = dvs.get(f.fileId)?.dvPositions?.length ?? 0;
    p.deleted += deleted;
    dataFiles++;
    rows += f.rowCount;
    bytes += f.sizeBytes;
    deletedRows += deleted;
  }
  const nodes: NodeOptimizingMetrics[] = [...parts].map(([partitionKey, p]) => ({
    partitionKey, node: { mask: 0, index: 0 }, changeFiles: 0, changeRows: 0, changeBytes: 0, foldableChangeFiles: 0,
    oldestChangeMicros: undefined, baseFiles: p.files, baseRows: p.rows, baseBytes: p.bytes, deletedRows: p.deleted,
  }));
  return {
    keyed: false, pendingChangeFiles: 0, pendingChangeRows: 0, pendingChangeBytes: 0, oldestPendingChangeMicros: oldestLogFileMicros(files, commitMicros),
    baseFiles: dataFiles, baseRows: rows, baseBytes: bytes, smallFiles: compactableSmallFiles(files, s),
    duplicateRatio: rows === 0 ? 0 : deletedRows / rows, readAmplification: 0, nodes,
  };
}
