import { randomUUID } from 'node:crypto';
import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BucketNode } from '../bucket/bucket-node.js';
import { childrenOf, isAncestorOrSelf, nodeKey } from '../bucket/bucket-node.js';
import type { FileRecord, NewFileRecord } from '../catalog/catalog.js';
import { OptimizerConflict } from '../catalog/optimizer-conflict.js';
import { readDataFile } from '../format/data-file-reader.js';
import { encodeDataFile, nodeMarker, storeDataFile } from '../format/data-file-writer.js';
import type { FilePlacement } from '../format/data-file-writer.js';
import { mergeOnRead } from '../merge/merge-on-read.js';
import type { ChangeInput } from '../merge/merge-on-read.js';
import { writableBranch } from '../refs/resolve-branch.js';
import { frontierByPartition } from '../table/frontier.js';
import type { FrontierNode } from '../table/frontier.js';
import { OP_COLUMN, SEQ_FILE_COLUMN, isKeyed, keyColumnsOf, physicalName, targetFileSize } from '../table/table-layout.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import { nowMicros, toTableMetadata } from '../warehouse/lake-context.js';
import { BASE_ROW_GROUP_ROWS, sortByReversedHash, sortByReversedHashSplit } from './hash-order.js';
import type { OptimizeOptions, OptimizeResult } from './optimize-result.js';
import { compactAppendTable } from './compact-append-table.js';

const MAX_ATTEMPTS = 3;

interface NodeWork {
  readonly partitionKey: string;
  readonly partitionValues: readonly unknown[];
  readonly frontier: FrontierNode;
  /** Change files on the node's line, not yet folded, below the low watermark. */
  readonly changes: FileRecord[];
  readonly split: boolean;
}

/**
 * Folds change files below the low watermark W into base files, node by node, and
 * splits nodes whose base data passed write.target-file-size.
 *
 * Why this never loses or reorders a concurrent change: every transaction with a seq
 * below W has finished (W is the smallest start seq of any open transaction), so all
 * changes below W that will ever exist on this branch are already in the head read
 * here; a new base records W as its file seq and readers skip change files below it.
 * Changes at or above W stay in the change store, and keep winning over base rows by
 * (seq, offset) against the per-row _seq. The commit names every file it replaces as
 * "must still be visible": only another optimizer can remove those, so only another
 * optimizer commit on the same node conflicts, and then this run re-plans.
 */
export async function optimizeTable(ctx: LakeContext, tableIn: TableMetadata, opts: OptimizeOptions): Promise<OptimizeResult> {
  const { catalog } = ctx;
  const rec = catalog.getTableById(tableIn.id);
  if (rec === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${tableIn.name}" does not exist`);
  const table = toTableMetadata(rec);
  const ref = opts.ref ?? 'main';
  catalog.abortStaleTxns(nowMicros() - BigInt(ctx.staleTransactionMs) * 1000n);
  let conflicts = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      const r = await optimizeOnce(ctx, table, ref, opts);
      return { ...r, conflicts };
    } catch (e) {
      if (e instanceof OptimizerConflict && attempt < MAX_ATTEMPTS) {
        conflicts++;
        continue;
      }
      if (e instanceof OptimizerConflict) {
        throw new FloeError(SqlState.serializationFailure, `optimize of "${table.name}" kept conflicting with concurrent optimizer commits`, { hint: 'Run it again.' });
      }
      throw e;
    }
  }
}

async function optimizeOnce(ctx: LakeContext, table: TableMetadata, ref: string, opts: OptimizeOptions): Promise<Omit<OptimizeResult, 'conflicts'>> {
  const { catalog } = ctx;
  // W first, then the head: every transaction below W finished before the head was read.
  const watermark = catalog.lowWatermark();
  const head = writableBranch(catalog, table, ref).snapshotId;
  const empty = { kind: 'minor' as const, snapshotId: undefined, nodesOptimized: 0, nodesSplit: 0, nodesMerged: 0, changeFilesFolded: 0, baseFilesWritten: 0, filesIn: 0, bytesIn: 0, rowsIn: 0, filesOut: 0, bytesOut: 0, rowsOut: 0, lowWatermark: watermark };
  if (!isKeyed(table)) return compactAppendTable(ctx, table, ref, opts);
  // Registered like a transaction while it runs, so orphan cleanup spares the base files
  // it has written but not yet committed (its seq is at or above W: it holds nothing back).
  const txnId = `optimize-${randomUUID()}`;
  catalog.beginTxn(txnId, process.pid, nowMicros());
  const heartbeat = setInterval(() => {
    try { catalog.heartbeatTxn(txnId, nowMicros()); } catch { /* the commit reports it */ }
  }, Math.max(50, Math.floor(ctx.staleTransactionMs / 4)));
  heartbeat.unref();
  try {
    return await optimizeNodes(ctx, table, ref, opts, watermark, head, txnId);
  } finally {
    clearInterval(heartbeat);
    try { catalog.endTxn(txnId); } catch { /* already gone */ }
  }
}

async function optimizeNodes(
  ctx: LakeContext, table: TableMetadata, ref: string, opts: OptimizeOptions, watermark: bigint, head: bigint, txnId: string,
): Promise<Omit<OptimizeResult, 'conflicts'>> {
  const { catalog, storage } = ctx;
  const empty = { kind: 'minor' as const, snapshotId: undefined, nodesOptimized: 0, nodesSplit: 0, nodesMerged: 0, changeFilesFolded: 0, baseFilesWritten: 0, filesIn: 0, bytesIn: 0, rowsIn: 0, filesOut: 0, bytesOut: 0, rowsOut: 0, lowWatermark: watermark };
  const files = catalog.visibleFiles(table.id, head);
  const frontiers = frontierByPartition(files);
  const target = targetFileSize(table);
  const work: NodeWork[] = [];
  for (const [pk, nodes] of frontiers) {
    const pfiles = files.filter((f) => f.partitionKey === pk);
    for (const fn of nodes) {
      const changes = pfiles.filter((f) => f.store === 'change' && f.seq >= fn.baseSeq && f.seq < watermark && onLine(f, fn.node));
      const baseBytes = fn.baseFiles.reduce((n, f) => n + f.sizeBytes, 0);
      const split = baseBytes > target && fn.node.mask < 0x7fffffff;
      if (changes.length === 0 && !split) continue;
      work.push({ partitionKey: pk, partitionValues: pfiles[0]!.partitionValues, frontier: fn, changes, split });
    }
  }
  opts.onProgress?.({ phase: 'plan', nodesDone: 0, nodesTotal: work.length });
  if (work.length === 0) {
    opts.onProgress?.({ phase: 'done', nodesDone: 0, nodesTotal: 0 });
    return empty;
  }

  const keyCols = keyColumnsOf(table);
  const keyNames = keyCols.map((c) => physicalName(c.fieldId));
  const keyTypes = keyCols.map((c) => c.type);
  const written: NewFileRecord[] = [];
  const removed = new Set<number>();
  const requireVisible = new Set<number>();
  const newFrontier = new Map<string, { node: BucketNode; baseSeq: bigint }[]>();
  for (const [pk, nodes] of frontiers) newFrontier.set(pk, nodes.map((n) => ({ node: n.node, baseSeq: n.baseSeq })));
  let nodesSplit = 0;
  let folded = 0;
  try {
    for (let i = 0; i < work.length; i++) {
      const w = work[i]!;
      const fn = w.frontier;
      opts.onProgress?.({ phase: 'node', partition: w.partitionKey, node: nodeKey(fn.node), nodesDone: i, nodesTotal: work.length });
      const base: RecordBatch[] = [];
      for (const f of fn.baseFiles) if (f.path !== '') base.push(...await readDataFile(storage, f.path, table.columns, [SEQ_FILE_COLUMN]));
      const changes: ChangeInput[] = [];
      const ordered = [...w.changes].sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : a.firstOffset - b.firstOffset));
      for (const f of ordered) {
        let offset = f.firstOffset;
        for (const batch of await readDataFile(storage, f.path, table.columns, [OP_COLUMN])) {
          changes.push({ batch, seq: f.seq, firstOffset: offset, ...(f.nodeMask < fn.node.mask ? { hashFilter: fn.node } : {}) });
          offset += batch.numRows;
        }
      }
      const merged = mergeOnRead({ base, changes, keyColumns: keyNames, keyTypes });
      const place = (node: BucketNode): FilePlacement => ({ partitionKey: w.partitionKey, partitionValues: w.partitionValues, node });
      const outputs: { node: BucketNode; batches: RecordBatch[]; ranges?: [number, number][] }[] = [];
      const whole = merged.filter((b) => b.numRows > 0);
      const encodeSorted = (batches: readonly RecordBatch[]) => {
        const sorted = sortByReversedHash(batches, keyNames, keyTypes);
        return encodeDataFile(sorted.batches, table.columns, { rows: BASE_ROW_GROUP_ROWS, ranges: sorted.ranges });
      };
      // Inputs already past the target (Parquet like the output) split without first
      // encoding the whole node, which would be thrown away: at SF 1 that is most of the time
      // and memory of optimizing a big table.
      const inputBytes = fn.baseFiles.reduce((n, f) => n + f.sizeBytes, 0) + w.changes.reduce((n, f) => n + f.sizeBytes, 0);
      const splitNow = (w.split || inputBytes > target) && fn.node.mask < 0x7fffffff;
      const encodedWhole = whole.length === 0 || splitNow ? undefined : encodeSorted(whole);
      if ((splitNow || (encodedWhole !== undefined && encodedWhole.bytes.length > target)) && fn.node.mask < 0x7fffffff) {
        const [c0, c1] = childrenOf(fn.node);
        // one hashing and sort for both children, straight into each file's row groups
        const parts = sortByReversedHashSplit(whole, keyNames, keyTypes, c0);
        outputs.push({ node: c0, batches: parts[0].batches, ranges: parts[0].ranges }, { node: c1, batches: parts[1].batches, ranges: parts[1].ranges });
        nodesSplit++;
      } else {
        outputs.push({ node: fn.node, batches: whole });
      }
      for (const o of outputs) {
        const rows = o.batches.reduce((n, b) => n + b.numRows, 0);
        if (rows === 0) written.push(nodeMarker(place(o.node), watermark));
        else {
          const enc = outputs.length === 1 && encodedWhole !== undefined ? encodedWhole
            : o.ranges !== undefined ? encodeDataFile(o.batches, table.columns, { rows: BASE_ROW_GROUP_ROWS, ranges: o.ranges })
              : encodeSorted(o.batches);
          written.push(await storeDataFile(storage, table.id, enc, place(o.node), 'base', watermark, 0));
        }
      }
      for (const f of fn.baseFiles) { removed.add(f.fileId); requireVisible.add(f.fileId); }
      for (const f of w.changes) {
        requireVisible.add(f.fileId);
        // Changes at the node or below are fully folded here; an ancestor's changes also
        // belong to sibling nodes and are removed below once every node under it has them.
        if (f.nodeMask >= fn.node.mask) { removed.add(f.fileId); folded++; }
      }
      const nodes = newFrontier.get(w.partitionKey)!;
      const idx = nodes.findIndex((n) => n.node.mask === fn.node.mask && n.node.index === fn.node.index);
      nodes.splice(idx, 1, ...outputs.map((o) => ({ node: o.node, baseSeq: watermark })));
    }
    // Ancestor change files every frontier node under them has folded are garbage now.
    for (const f of files) {
      if (f.store !== 'change' || removed.has(f.fileId)) continue;
      const fnode = { mask: f.nodeMask, index: f.nodeIndex };
      const under = (newFrontier.get(f.partitionKey) ?? []).filter((n) => isAncestorOrSelf(fnode, n.node));
      if (under.length > 0 && under.every((n) => n.baseSeq > f.seq)) {
        removed.add(f.fileId);
        requireVisible.add(f.fileId);
        folded++;
        for (const fn of frontiers.get(f.partitionKey) ?? []) {
          if (isAncestorOrSelf(fnode, fn.node)) for (const b of fn.baseFiles) if (!removed.has(b.fileId)) requireVisible.add(b.fileId);
        }
      }
    }
    opts.onProgress?.({ phase: 'commit', nodesDone: work.length, nodesTotal: work.length });
    const [snap] = catalog.commit([{
      tableId: table.id, branch: ref, operation: 'optimize', schemaId: catalog.getTableById(table.id)?.schemaId ?? table.schemaId,
      summary: { 'nodes-optimized': String(work.length), 'nodes-split': String(nodesSplit), 'change-files-folded': String(folded), 'low-watermark': String(watermark) },
      addFiles: written, removeFileIds: [...removed], requireVisible: [...requireVisible],
    }], txnId, nowMicros());
    opts.onProgress?.({ phase: 'done', nodesDone: work.length, nodesTotal: work.length });
    return {
      kind: 'minor', snapshotId: snap!.id, nodesOptimized: work.length, nodesSplit, nodesMerged: 0, changeFilesFolded: folded,
      baseFilesWritten: written.filter((f) => f.path !== '').length, lowWatermark: watermark,
      // counted by the lake-optimize rework (issue 23)
      filesIn: 0, bytesIn: 0, rowsIn: 0, filesOut: 0, bytesOut: 0, rowsOut: 0,
    };
  } catch (e) {
    for (const f of written) if (f.path !== '') await storage.delete(f.path).catch(() => undefined);
    throw e;
  }
}

function onLine(f: FileRecord, node: BucketNode): boolean {
  const n = { mask: f.nodeMask, index: f.nodeIndex };
  return isAncestorOrSelf(n, node) || isAncestorOrSelf(node, n);
}
