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
import type { TieringGroup } from './tiering-groups.js';

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
    const groups = tieringGroups(catalog.visibleFiles(table.id, head), watermark, frontiers);
    if (groups.length === 0) continue;
    const order = new Map(catalog.ancestors(table.id, head).map((s, i) => [s, i]));
    for (const group of groups) await tierGroup(ctx, current, group, newest, order, counters, opts);
  }
  return counters;
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
  const batches: RecordBatch[] = [];
  const hashes: Uint32Array[] = [];
  let maxSeq = files[0]!.seq;
  for (const f of files) {
    if (f.seq > maxSeq) maxSeq = f.seq;
    for (const b of await readDataFile(storage, f.path, table.columns, [OP_COLUMN])) {
      const n = b.numRows;
      const seq = makeData({ type: new Int64(), length: n, nullCount: 0, data: new BigInt64Array(n).fill(f.seq) });
      const snapshot = makeData({ type: new Int64(), length: n, nullCount: 0, data: new BigInt64Array(n).fill(f.addedIn) });
      batches.push(batchFromData(fields, [...b.data.children, seq, snapshot], n));
      hashes.push(hashKeyBatch(b, keyNames, keyTypesOf(table)));
    }
  }
  // Oldest first: the file is visible from its oldest commit on (every other is its descendant).
  const snapshots = [...new Set(files.map((f) => f.addedIn))].sort((a, b) => (order.get(b) ?? 0) - (order.get(a) ?? 0));
  const all = new Uint32Array(hashes.reduce((n, h) => n + h.length, 0));
  hashes.reduce((at, h) => { all.set(h, at); return at + h.length; }, 0);
  const encoded = { ...encodeDataFile(batches, table.columns), keyBitmap: keyBitmapOf(all) };
  const first = files[0]!;
  const placement = { partitionKey: first.partitionKey, partitionValues: first.partitionValues, node: { mask: first.nodeMask, index: first.nodeIndex } };
  const stored = await storeDataFile(storage, table.id, encoded, placement, 'change', maxSeq, 0);
  await opts.beforeSwap?.();
  const swapped = catalog.replaceFilesInPlace(table.id, files.map((f) => f.fileId), { ...stored, snapshots }, snapshots[0]!,
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
