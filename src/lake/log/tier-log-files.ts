import { Int64, makeData } from 'apache-arrow';
import type { Field, RecordBatch } from 'apache-arrow';
import { batchFromData, buildBatch } from '../arrow/batch-builder.js';
import { hashKeyBatch } from '../bucket/key-hash.js';
import { readDataFile } from '../format/data-file-reader.js';
import { encodeDataFile, fileColumns, storeDataFile } from '../format/data-file-writer.js';
import { keyBitmapOf } from '../scan/key-bitmap.js';
import { OP_COLUMN, SEQ_FILE_COLUMN, SNAPSHOT_FILE_COLUMN, keyColumnsOf, keyTypesOf, physicalName } from '../table/table-layout.js';
import { frontierByPartition } from '../table/frontier.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import { toTableMetadata } from '../warehouse/lake-context.js';
import { tieringGroups } from './tiering-groups.js';
import type { TieringGroup, TieringInputs } from './tiering-groups.js';
import { changeFileExtras, isTieredFile, tieredRows } from './tiered-rows.js';
import { nodeKey } from '../bucket/bucket-node.js';
import { isLogPath } from './log-locator.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';

/** What one tiering pass over a table did. */
export interface TierResult {
  /** Log files swapped out. */
  readonly filesIn: number;
  /** Tiered Parquet change files swapped in. */
  readonly filesOut: number;
  readonly rows: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** Groups another writer (a fold, another tiering) changed first: their output was deleted. */
  readonly conflicts: number;
}

export interface TierOptions {
  /** Only these branches (default: every branch of the table). */
  readonly branches?: readonly string[];
  /** Called after a group's file is stored and before its swap (tests kill the process here). */
  readonly beforeSwap?: () => void | Promise<void>;
}

/**
 * Rewrites the log files live at each branch head of a keyed table into tiered Parquet
 * change files, one per (partition, node), of the log files below the low watermark and
 * above every base seq on their line (tieringGroups says why): rows in (seq, offset)
 * order with their `_seq` and `_snapshot`, swapped for the log files in place (no new
 * snapshot: what every snapshot reads is unchanged; docs/design-notes.md, "Tiering"). The
 * swap is refused when a fold, an expiry or another tiering changed the group's files or
 * its line's base files since they were read. The new file is durable before the swap, so
 * killing the process at any point leaves either the log files or the tiered file in the
 * catalog, and at worst an orphan Parquet file.
 */
export async function tierLogFiles(ctx: LakeContext, table: TableMetadata, opts: TierOptions = {}): Promise<TierResult> {
  return tierChangeGroups(ctx, table, 'log', opts);
}

/** Which groups a pass rewrites beyond tieringGroups' rules. */
export interface TierSelection {
  /** Only groups of these (partition, node) keys (`${partitionKey}\u0000${nodeKey(node)}`). */
  readonly nodes?: ReadonlySet<string>;
  /**
   * Size tiers: a group's largest file stays out when it holds more than this many times the
   * rows of the rest, so a compaction does not rewrite its big earlier output for a few new
   * rows (the files then form levels, each a few times the next).
   */
  readonly levelRatio?: number;
  /** Groups of fewer files are left alone (default 1). */
  readonly minFiles?: number;
}

/**
 * One pass of tieringGroups' groups of `inputs` over the table's branches, each rewritten into
 * one tiered change file swapped in place. Tiering passes 'log'; the optimizer's change
 * compaction passes 'change' with its nodes (compact-change-files.ts).
 */
export async function tierChangeGroups(
  ctx: LakeContext, table: TableMetadata, inputs: TieringInputs, opts: TierOptions & TierSelection = {},
): Promise<TierResult> {
  const counters = { filesIn: 0, filesOut: 0, rows: 0, bytesIn: 0, bytesOut: 0, conflicts: 0 };
  const { catalog } = ctx;
  const rec = catalog.getTableById(table.id);
  if (rec === undefined || rec.primaryKey.length === 0) return counters;
  const current = toTableMetadata(rec);
  const allBranches = catalog.listRefs(table.id).filter((r) => r.kind === 'branch');
  const branches = allBranches.filter((r) => opts.branches === undefined || opts.branches.includes(r.name));
  for (const ref of branches) {
    // W first, then the heads (as the optimizer reads them): see tieringGroups. A removal by
    // a snapshot newer than `newest` is a fold committed since the heads were read.
    const watermark = catalog.lowWatermark();
    const newest = catalog.newestSnapshotId(table.id) ?? 0n;
    const head = catalog.getRef(table.id, ref.name)?.snapshotId;
    if (head === undefined) continue;
    // A log file may be live on other branches too, whose folds judge it by their own base seqs.
    const heads = allBranches.map((r) => catalog.getRef(table.id, r.name)?.snapshotId).filter((h): h is bigint => h !== undefined);
    const frontiers = [...new Set([head, ...heads])].map((h) => frontierByPartition(catalog.visibleFiles(table.id, h)));
    const groups = tieringGroups(catalog.visibleFiles(table.id, head), watermark, frontiers, inputs)
      .filter((g) => opts.nodes === undefined || opts.nodes.has(groupNodeKey(g)))
      .map((g) => (opts.levelRatio === undefined ? g : withoutTopLevel(g, opts.levelRatio)))
      .filter((g) => g.files.length >= (opts.minFiles ?? 1));
    if (groups.length === 0) continue;
    const order = new Map(catalog.ancestors(table.id, head).map((s, i) => [s, i]));
    for (const group of groups) await tierGroup(ctx, current, group, newest, order, counters, opts);
  }
  return counters;
}

function groupNodeKey(g: TieringGroup): string {
  const f = g.files[0]!;
  return `${f.partitionKey}\u0000${nodeKey({ mask: f.nodeMask, index: f.nodeIndex })}`;
}

/** The group without its largest file when that one holds more than `ratio` times the rest's rows. */
function withoutTopLevel(g: TieringGroup, ratio: number): TieringGroup {
  let top = g.files[0]!;
  let rows = 0;
  for (const f of g.files) {
    rows += f.rowCount;
    if (f.rowCount > top.rowCount) top = f;
  }
  if (top.rowCount <= ratio * (rows - top.rowCount)) return g;
  // A transaction's rows on a line stay in one file (tieringGroups): one that wrote two files here keeps both in.
  if (g.files.some((f) => f !== top && f.seq === top.seq)) return g;
  return { ...g, files: g.files.filter((f) => f !== top) };
}

async function tierGroup(
  ctx: LakeContext, table: TableMetadata, group: TieringGroup, newest: bigint, order: ReadonlyMap<bigint, number>,
  counters: { filesIn: number; filesOut: number; rows: number; bytesIn: number; bytesOut: number; conflicts: number },
  opts: TierOptions,
): Promise<void> {
  const { catalog, storage } = ctx;
  const { files } = group;
  const fields = tieredFields(table);
  const keyNames = keyColumnsOf(table).map((c) => physicalName(c.fieldId));
  // Runs of rows of one seq, from every input: a log or Parquet change file is one run (its
  // transaction's), a tiered input one per seq it holds. Stably ordered by seq they give the
  // file's (seq, offset) order, as one transaction's rows come from one input.
  const runs: { readonly seq: bigint; readonly batch: RecordBatch }[] = [];
  const hashes: Uint32Array[] = [];
  const commits = new Set<bigint>();
  let maxSeq = files[0]!.seq;
  let addedIn = files[0]!.addedIn;
  for (const f of files) {
    if (f.seq > maxSeq) maxSeq = f.seq;
    // The output is visible from its oldest input's commit on (every other is its descendant).
    if ((order.get(f.addedIn) ?? -1) > (order.get(addedIn) ?? -1)) addedIn = f.addedIn;
    // Only a tiered Parquet file carries per-row seqs and snapshots; a log file is one commit.
    const tiered = isTieredFile(f) && !isLogPath(f.path);
    for (const s of tiered ? f.snapshots! : [f.addedIn]) commits.add(s);
    for (const b of await readDataFile(storage, f.path, table.columns, tiered ? changeFileExtras(f, OP_COLUMN) : [OP_COLUMN])) {
      const n = b.numRows;
      hashes.push(hashKeyBatch(b, keyNames, keyTypesOf(table)));
      const seqs = tiered ? tieredRows(b).seqs : undefined;
      if (tiered && seqs === undefined) throw new FloeError(SqlState.dataCorrupted, `tiered change file ${f.path} has no ${SEQ_FILE_COLUMN} column`);
      if (seqs !== undefined) {
        const rows = batchFromData(fields, b.data.children, n);
        for (let start = 0; start < n;) {
          let end = start + 1;
          while (end < n && seqs[end] === seqs[start]) end++;
          runs.push({ seq: seqs[start]!, batch: rows.slice(start, end) });
          start = end;
        }
        continue;
      }
      const seq = makeData({ type: new Int64(), length: n, nullCount: 0, data: new BigInt64Array(n).fill(f.seq) });
      const snapshot = makeData({ type: new Int64(), length: n, nullCount: 0, data: new BigInt64Array(n).fill(f.addedIn) });
      runs.push({ seq: f.seq, batch: batchFromData(fields, [...b.data.children, seq, snapshot], n) });
    }
  }
  runs.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
  const batches = runs.map((r) => r.batch);
  // Oldest first; commits an expiry squashed out of the lineage (no order) last.
  const rank = (s: bigint): number => order.get(s) ?? -1;
  const snapshots = [addedIn, ...[...commits].filter((s) => s !== addedIn).sort((a, b) => rank(b) - rank(a))];
  const all = new Uint32Array(hashes.reduce((n, h) => n + h.length, 0));
  hashes.reduce((at, h) => { all.set(h, at); return at + h.length; }, 0);
  const encoded = { ...encodeDataFile(batches, table.columns), keyBitmap: keyBitmapOf(all) };
  const first = files[0]!;
  const placement = { partitionKey: first.partitionKey, partitionValues: first.partitionValues, node: { mask: first.nodeMask, index: first.nodeIndex } };
  const stored = await storeDataFile(storage, table.id, encoded, placement, 'change', maxSeq, 0);
  await opts.beforeSwap?.();
  const swapped = catalog.replaceFilesInPlace(table.id, files.map((f) => f.fileId), { ...stored, snapshots }, addedIn,
    { fileIds: group.lineBaseFiles, notRemovedAfter: newest });
  if (swapped === undefined) {
    // A fold, another tiering or an expiry changed these files or their nodes first: this output is not needed.
    await storage.delete(stored.path).catch(() => undefined);
    counters.conflicts++;
    return;
  }
  counters.filesIn += files.length;
  counters.filesOut++;
  counters.rows += encoded.rowCount;
  counters.bytesIn += files.reduce((n, f) => n + f.sizeBytes, 0);
  counters.bytesOut += encoded.bytes.length;
}

/** A tiered change file's Arrow fields: a change file's (table columns, `_op`), then `_seq` and `_snapshot`. */
function tieredFields(table: TableMetadata): Field[] {
  const cols = [
    ...fileColumns(table.columns, table.primaryKey, 'change'),
    { name: SEQ_FILE_COLUMN, type: { kind: 'int8' as const }, fieldId: -2, nullable: false },
    { name: SNAPSHOT_FILE_COLUMN, type: { kind: 'int8' as const }, fieldId: -3, nullable: false },
  ];
  return buildBatch(cols, cols.map(() => [])).schema.fields;
}
