import type { FileRecord } from '../catalog/catalog.js';
import { isLogPath } from '../log/log-locator.js';
import type { OptimizingSettings } from '../table/optimizing-properties.js';
import type { OptimizeKind } from './optimize-result.js';

/** What decides a file's size class: undersized below targetSize / fragmentRatio. */
export type SizeSettings = Pick<OptimizingSettings, 'targetSize' | 'fragmentRatio'>;

/** Data files of one partition rewritten together into one file. */
export interface AppendRewriteGroup {
  readonly partitionKey: string;
  /** In file-id (commit) order, so the output keeps the rows roughly in the order they arrived. */
  readonly files: readonly FileRecord[];
  /** Per file, its deletion vector's positions (empty when none). */
  readonly deleted: readonly Uint32Array[];
}

/** An append table's data files and deletion vectors at one snapshot, by partition. */
interface PartitionFiles {
  readonly data: FileRecord[];
  readonly dv: Map<number, Uint32Array>;
}

function byPartition(files: readonly FileRecord[]): Map<string, PartitionFiles> {
  const out = new Map<string, PartitionFiles>();
  const part = (k: string): PartitionFiles => {
    let p = out.get(k);
    if (p === undefined) out.set(k, p = { data: [], dv: new Map() });
    return p;
  };
  for (const f of files) {
    if (f.store === 'dv' && f.dvTarget !== undefined) part(f.partitionKey).dv.set(f.dvTarget, f.dvPositions ?? new Uint32Array(0));
    else if (f.store === 'base' && f.path !== '') part(f.partitionKey).data.push(f);
  }
  for (const p of out.values()) p.data.sort((a, b) => a.fileId - b.fileId);
  return out;
}

/** A log-located file (a small commit's rows in the log store) is small whatever its size: minor moves it into Parquet. */
function isSmall(f: FileRecord, s: SizeSettings): boolean {
  return isLogPath(f.path) || f.sizeBytes < s.targetSize / s.fragmentRatio;
}

/**
 * A group worth rewriting in a minor: it combines files, or it moves rows out of the log
 * (a lone log file still holds its log segment and is read by IPC decode, without row groups).
 */
function worthRewriting(g: readonly FileRecord[]): boolean {
  return g.length >= 2 || g.some((f) => isLogPath(f.path));
}

/** The share of a file's rows its deletion vector deletes. */
function deletedShare(p: PartitionFiles, f: FileRecord): number {
  return f.rowCount === 0 ? 1 : (p.dv.get(f.fileId)?.length ?? 0) / f.rowCount;
}

/** Files in order, packed into groups of up to the target size by live bytes (size less the deleted share). */
function pack(p: PartitionFiles, files: readonly FileRecord[], s: SizeSettings): FileRecord[][] {
  const groups: FileRecord[][] = [];
  let cur: FileRecord[] = [];
  let bytes = 0;
  for (const f of files) {
    const live = f.sizeBytes * (1 - deletedShare(p, f));
    if (cur.length > 0 && bytes + live > s.targetSize) {
      groups.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(f);
    bytes += live;
  }
  if (cur.length > 0) groups.push(cur);
  return groups;
}

/**
 * Small files a minor compaction can combine: those its packing puts in a group with
 * another, and log-located files, which minor moves into Parquet even alone. A lone small
 * Parquet file (a quiet day's partition) has nothing to combine with, so counting it would
 * make the table look due for ever; the scheduler's metric and the planner's trigger both
 * use this count, so a table reported due always has work.
 */
export function compactableSmallFiles(files: readonly FileRecord[], s: SizeSettings): number {
  let n = 0;
  for (const p of byPartition(files).values()) {
    for (const g of pack(p, p.data.filter((f) => isSmall(f, s)), s)) if (worthRewriting(g)) n += g.length;
  }
  return n;
}

/**
 * Which files of an append table a compaction of `kind` rewrites, grouped into outputs of
 * up to the target size (by live bytes: a file's size less its deleted share):
 * - minor: undersized files (under target-size / fragment-ratio) of each partition with
 *   at least two, or with a log-located file; with triggers, only once the table has
 *   minorFileCount of them, or `logDue` (appendLogDue: its oldest log file waited past
 *   the minor interval);
 * - major: minor's, plus every file whose deleted share reached the duplicate ratio;
 * - full: every file.
 * Every rewrite drops the deleted rows it reads. A group that would rewrite one file with
 * nothing deleted gains nothing and is left out (except in full, which rewrites every file
 * under the current schema).
 */
export function planAppendRewrites(
  files: readonly FileRecord[], kind: OptimizeKind, s: OptimizingSettings, triggered: boolean, logDue = false,
): AppendRewriteGroup[] {
  const parts = byPartition(files);
  const smallGate = !triggered || logDue || compactableSmallFiles(files, s) >= s.minorFileCount;
  const groups: AppendRewriteGroup[] = [];
  for (const [pk, p] of parts) {
    const share = (f: FileRecord): number => deletedShare(p, f);
    let chosen: FileRecord[];
    if (kind === 'full') chosen = p.data;
    else {
      const small = p.data.filter((f) => isSmall(f, s));
      const picked = new Set<FileRecord>(smallGate && worthRewriting(small) ? small : []);
      if (kind === 'major') for (const f of p.data) if (share(f) > 0 && share(f) >= s.majorDuplicateRatio) picked.add(f);
      chosen = p.data.filter((f) => picked.has(f));
    }
    for (const g of pack(p, chosen, s)) {
      const deleted = g.map((f) => p.dv.get(f.fileId) ?? new Uint32Array(0));
      if (kind === 'full' || worthRewriting(g) || deleted[0]!.length > 0) groups.push({ partitionKey: pk, files: g, deleted });
    }
  }
  return groups;
}
