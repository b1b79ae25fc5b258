import type { RecordBatch } from 'apache-arrow';
import { childrenOf } from '../bucket/bucket-node.js';
import type { BucketNode } from '../bucket/bucket-node.js';
import type { NewFileRecord } from '../catalog/catalog.js';
import { readDataFile } from '../format/data-file-reader.js';
import { encodeDataFile, nodeMarker, storeDataFile } from '../format/data-file-writer.js';
import type { EncodedFile, FilePlacement } from '../format/data-file-writer.js';
import { changeFileExtras, tieredRows } from '../log/tiered-rows.js';
import { mergeOnRead } from '../merge/merge-on-read.js';
import type { ChangeInput } from '../merge/merge-on-read.js';
import { openStorage } from '../storage/open-storage.js';
import type { Storage } from '../storage/storage.js';
import { OP_COLUMN, SEQ_FILE_COLUMN } from '../table/table-layout.js';
import { skippingDeleted } from '../scan/deleted-positions.js';
import { takeRows } from '../scan/take-rows.js';
import { deltaDeletionVectors } from './delta-deletion-vectors.js';
import { BASE_ROW_GROUP_ROWS, sortByReversedHash, sortByReversedHashSplit } from './hash-order.js';
import type { KeyedNodeRewriteResult, KeyedNodeRewriteTask } from './keyed-node-rewrite-task.js';

const MAX_MASK = 0x7fffffff;

/**
 * Rewrites one node: reads each part's base and change files, merges them on read, sorts
 * the live rows by reversed key hash and stores them as one base file at the task's node,
 * or as one per child when the output passes the target size. Needs nothing but the task
 * (no catalog), so it runs on a worker thread. On failure it deletes what it wrote.
 */
export async function executeNodeRewrite(task: KeyedNodeRewriteTask): Promise<KeyedNodeRewriteResult> {
  const storage = openStorage(task.storage);
  const counters = { filesRead: 0, bytesRead: 0, rowsRead: 0 };
  const merged = await mergeParts(storage, task, counters);
  const live = merged.live.filter((b) => b.numRows > 0);
  if (task.delta !== undefined) return deltaFold(storage, task, live, merged.changes, counters);
  const place = (node: BucketNode): FilePlacement => ({ partitionKey: task.partitionKey, partitionValues: task.partitionValues, node });
  const { keyNames, keyTypes, columns } = task;
  const canSplit = task.node.mask < MAX_MASK;
  const encodeSorted = (batches: readonly RecordBatch[]): EncodedFile => {
    const sorted = sortByReversedHash(batches, keyNames, keyTypes);
    return encodeDataFile(sorted.batches, columns, { rows: BASE_ROW_GROUP_ROWS, ranges: sorted.ranges });
  };
  // Inputs already past the target split without first encoding the whole node, which
  // would be thrown away: for a big table that is most of the time and memory of optimizing.
  const splitNow = task.split && canSplit;
  const whole = live.length === 0 || splitNow ? undefined : encodeSorted(live);
  const outputs: { node: BucketNode; file: EncodedFile | undefined }[] = [];
  if (canSplit && (splitNow || (whole !== undefined && whole.bytes.length > task.targetSizeBytes))) {
    const [c0, c1] = childrenOf(task.node);
    // one hashing and sort for both children, straight into each file's row groups
    const halves = sortByReversedHashSplit(live, keyNames, keyTypes, c0);
    halves.forEach((h, i) => {
      const rows = h.batches.reduce((n, b) => n + b.numRows, 0);
      outputs.push({ node: i === 0 ? c0 : c1, file: rows === 0 ? undefined : encodeDataFile(h.batches, columns, { rows: BASE_ROW_GROUP_ROWS, ranges: h.ranges }) });
    });
  } else {
    outputs.push({ node: task.node, file: whole });
  }
  const files: NewFileRecord[] = [];
  try {
    for (const o of outputs) {
      files.push(o.file === undefined ? nodeMarker(place(o.node), task.watermark) : await storeDataFile(storage, task.tableId, o.file, place(o.node), 'base', task.watermark, 0));
    }
  } catch (e) {
    await deleteWritten(storage, files);
    throw e;
  }
  return resultOf(files, outputs.length === 2, counters);
}

function resultOf(files: NewFileRecord[], split: boolean, counters: RewriteCounters, deletionVectors?: NewFileRecord[]): KeyedNodeRewriteResult {
  const written = files.filter((f) => f.path !== '');
  return {
    kind: 'keyed-node', files, split, ...counters,
    filesOut: written.length,
    bytesOut: written.reduce((n, f) => n + f.sizeBytes, 0),
    rowsOut: written.reduce((n, f) => n + f.rowCount, 0),
    ...(deletionVectors === undefined ? {} : { deletionVectors }),
  };
}

/**
 * A delta fold: the node's small base files and its changes become one base file (none
 * when no row is left), and the large base files stay, the rows the changes supersede
 * added to their deletion vectors. Costs the changes, the small files and the large
 * files' key columns, not a rewrite of the node.
 */
async function deltaFold(
  storage: Storage, task: KeyedNodeRewriteTask, live: readonly RecordBatch[], changes: readonly ChangeInput[], counters: RewriteCounters,
): Promise<KeyedNodeRewriteResult> {
  const deletionVectors = await deltaDeletionVectors(storage, task, changes);
  for (const f of task.delta!) { counters.filesRead++; counters.rowsRead += f.rowCount; }
  const files: NewFileRecord[] = [];
  const place = { partitionKey: task.partitionKey, partitionValues: task.partitionValues, node: task.node };
  if (live.length > 0) {
    const sorted = sortByReversedHash(live, task.keyNames, task.keyTypes);
    const file = encodeDataFile(sorted.batches, task.columns, { rows: BASE_ROW_GROUP_ROWS, ranges: sorted.ranges });
    files.push(await storeDataFile(storage, task.tableId, file, place, 'base', task.watermark, 0));
  } else if (task.delta!.length === 0) {
    // nothing kept and nothing left: the node stays on the frontier by its marker
    files.push(nodeMarker(place, task.watermark));
  }
  return resultOf(files, false, counters, deletionVectors);
}

type RewriteCounters = { filesRead: number; bytesRead: number; rowsRead: number };

/**
 * The live rows (table columns + _seq) of all parts, in one merge so every output batch
 * has one schema. That is the same as merging each part alone: a part's own and
 * descendant change files hold only its keys, and an ancestor's carries the part's hash
 * filter, so no change reaches a key of the other part (whose base seq may differ).
 */
async function mergeParts(storage: Storage, task: KeyedNodeRewriteTask, counters: RewriteCounters): Promise<{ live: RecordBatch[]; changes: ChangeInput[] }> {
  const base: RecordBatch[] = [];
  const changes: ChangeInput[] = [];
  // an ancestor's change file is on both merged siblings' lines: read it once
  const read = new Map<string, RecordBatch[]>();
  for (const part of task.parts) {
    for (const f of part.baseFiles) {
      if (f.path === '') continue;
      base.push(...withoutDeleted(await readDataFile(storage, f.path, task.columns, [SEQ_FILE_COLUMN]), f.deletedPositions));
      count(counters, f);
    }
    for (const f of part.changeFiles) {
      let batches = read.get(f.path);
      if (batches === undefined) {
        read.set(f.path, batches = await readDataFile(storage, f.path, task.columns, changeFileExtras(f, OP_COLUMN)));
        count(counters, f);
      }
      let offset = f.firstOffset;
      for (const decoded of batches) {
        const { batch, seqs, positions } = tieredRows(decoded, f.snapshots);
        changes.push({
          batch, seq: f.seq, firstOffset: offset, ...(positions === undefined ? {} : { offsets: positions }), ...(seqs === undefined ? {} : { seqs }),
          ...(f.hashFilter !== undefined ? { hashFilter: f.hashFilter } : {}),
        });
        offset += decoded.numRows;
      }
    }
  }
  const live = mergeOnRead({ base, changes, keyColumns: task.keyNames, keyTypes: task.keyTypes, ...(task.mergeEngine === undefined ? {} : { engine: task.mergeEngine }) });
  return { live, changes };
}

/** A whole base file's batches (in file order) less the rows its deletion vector names. */
function withoutDeleted(batches: RecordBatch[], deleted: readonly number[] | undefined): RecordBatch[] {
  if (deleted === undefined || deleted.length === 0) return batches;
  const keep = skippingDeleted(() => undefined, deleted, undefined, undefined);
  return batches.map((b) => {
    const rows = keep(b);
    return rows === undefined ? b : takeRows(b, rows);
  });
}

function count(c: RewriteCounters, f: { sizeBytes: number; rowCount: number }): void {
  c.filesRead++;
  c.bytesRead += f.sizeBytes;
  c.rowsRead += f.rowCount;
}

/** Removes files a failed or abandoned rewrite stored (markers have no file). */
export async function deleteWritten(storage: Storage, files: readonly NewFileRecord[]): Promise<void> {
  for (const f of files) if (f.path !== '') await storage.delete(f.path).catch(() => undefined);
}
