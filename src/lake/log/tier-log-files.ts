import { keyColumnsOf, keyTypesOf, physicalName } from '../table/table-layout.js';
import { frontierByPartition } from '../table/frontier.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import { toTableMetadata } from '../warehouse/lake-context.js';
import { tieringGroups } from './tiering-groups.js';
import type { TieringGroup, TieringInputs } from './tiering-groups.js';
import { isTieredFile } from './tiered-rows.js';
import { nodeKey } from '../bucket/bucket-node.js';
import { isLogPath } from './log-locator.js';
import type { ChangeGroupRewriteResult, ChangeGroupRewriteTask } from './change-group-rewrite-task.js';
import { executeChangeGroupRewrite } from './execute-change-group-rewrite.js';

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
  /** Runs a group's rewrite (the optimizer passes its worker threads); default: on the calling thread. */
  readonly runTask?: (task: ChangeGroupRewriteTask) => Promise<ChangeGroupRewriteResult>;
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
   * Size tiers: a group's largest files stay out while the largest holds more than this many
   * times the rows of the rest, so a compaction does not rewrite its big earlier outputs for a
   * few new rows (the files then form levels, each a few times the next).
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
      .map((g) => (opts.levelRatio === undefined ? g : withoutUpperLevels(g, opts.levelRatio)))
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

/**
 * The group without its upper levels: while its largest file holds more than `ratio` times
 * the rows of the rest, that file stays out, so a compaction reads only the files of about
 * the newest level's size and never rewrites an earlier, bigger output for a few new rows.
 */
function withoutUpperLevels(g: TieringGroup, ratio: number): TieringGroup {
  const files = [...g.files];
  let rows = files.reduce((n, f) => n + f.rowCount, 0);
  for (;;) {
    let top = files[0]!;
    for (const f of files) if (f.rowCount > top.rowCount) top = f;
    if (files.length < 2 || top.rowCount <= ratio * (rows - top.rowCount)) break;
    // A transaction's rows on a line stay in one file (tieringGroups): one that wrote two files here keeps both in.
    if (files.some((f) => f !== top && f.seq === top.seq)) break;
    files.splice(files.indexOf(top), 1);
    rows -= top.rowCount;
  }
  return files.length === g.files.length ? g : { ...g, files };
}

async function tierGroup(
  ctx: LakeContext, table: TableMetadata, group: TieringGroup, newest: bigint, order: ReadonlyMap<bigint, number>,
  counters: { filesIn: number; filesOut: number; rows: number; bytesIn: number; bytesOut: number; conflicts: number },
  opts: TierOptions,
): Promise<void> {
  const { catalog, storage } = ctx;
  const { files } = group;
  const commits = new Set<bigint>();
  let maxSeq = files[0]!.seq;
  let addedIn = files[0]!.addedIn;
  for (const f of files) {
    if (f.seq > maxSeq) maxSeq = f.seq;
    // The output is visible from its oldest input's commit on (every other is its descendant).
    if ((order.get(f.addedIn) ?? -1) > (order.get(addedIn) ?? -1)) addedIn = f.addedIn;
    for (const s of tieredInput(f) ? f.snapshots! : [f.addedIn]) commits.add(s);
  }
  // Oldest first; commits an expiry squashed out of the lineage (no order) last.
  const rank = (s: bigint): number => order.get(s) ?? -1;
  const snapshots = [addedIn, ...[...commits].filter((s) => s !== addedIn).sort((a, b) => rank(b) - rank(a))];
  const first = files[0]!;
  const task: ChangeGroupRewriteTask = {
    kind: 'change-group', storage: ctx.storageConfig, tableId: table.id, columns: table.columns, primaryKey: table.primaryKey,
    keyNames: keyColumnsOf(table).map((c) => physicalName(c.fieldId)), keyTypes: keyTypesOf(table),
    inputs: files.map((f) => ({ path: f.path, seq: f.seq, addedIn: f.addedIn, firstOffset: f.firstOffset, tiered: tieredInput(f) })),
    placement: { partitionKey: first.partitionKey, partitionValues: first.partitionValues, node: { mask: first.nodeMask, index: first.nodeIndex } },
    seq: maxSeq,
  };
  const { file: stored } = await (opts.runTask ?? executeChangeGroupRewrite)(task);
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
  counters.rows += stored.rowCount;
  counters.bytesIn += files.reduce((n, f) => n + f.sizeBytes, 0);
  counters.bytesOut += stored.sizeBytes;
}

/** Only a tiered Parquet file carries per-row seqs and snapshots; a log file is one commit whatever its record lists. */
function tieredInput(f: { readonly path: string; readonly snapshots?: readonly bigint[] | undefined }): boolean {
  return isTieredFile(f) && !isLogPath(f.path);
}
