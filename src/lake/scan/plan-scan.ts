import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BucketNode } from '../bucket/bucket-node.js';
import { isAncestorOrSelf } from '../bucket/bucket-node.js';
import { hashKey } from '../bucket/key-hash.js';
import type { FileRecord } from '../catalog/catalog.js';
import { resolveMergeEngine } from '../merge/merge-engine.js';
import { mayMatch, transformResultType } from '../partition/partition-transform.js';
import type { PartitionPredicate } from '../partition/partition-transform.js';
import { ROW_GROUP_ROWS } from '../format/parquet-io.js';
import { reverseBits32 } from '../optimize/hash-order.js';
import { rankBelow } from '../optimize/replaced-position.js';
import { ancestryOf } from '../log/tiered-files.js';
import { tieredScanFile } from '../log/tiered-scan-file.js';
import { resolveSnapshotRecord } from '../refs/resolve-snapshot.js';
import { decodeStatValue, statsMayMatch } from '../stats/column-stats.js';
import type { StatPredicate } from '../stats/column-stats.js';
import { deletionVectorsByTarget } from '../table/deletion-vectors.js';
import { frontierByPartition } from '../table/frontier.js';
import { isKeyed, physicalName } from '../table/table-layout.js';
import type { ColumnMetadata, TableMetadata } from '../table/table-metadata.js';
import { LakeTransactionImpl } from '../txn/lake-transaction-impl.js';
import { stagedFileId } from '../txn/staged-file-id.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import { toTableMetadata } from '../warehouse/lake-context.js';
import { isExactFilter } from './filter-batch.js';
import { mergePieces, rowGroupsMeeting } from './split-merge-task.js';
import { keepsMergePositions, mergeMemoKey, plannedBefore, rememberedMergePositions } from './merge-position-memo.js';
import { keyBitmapMayHold } from '../bucket/key-bitmap.js';
import { bloomMayHold } from '../stats/value-bloom.js';
import { ROW_ID_COLUMN, SEQ_COLUMN } from './scan-types.js';
import type { ScanFile, ScanFilter, ScanPlan, ScanRequest, ScanTask } from './scan-types.js';

/**
 * Plans a merge-on-read scan: one task per (partition, frontier node) for keyed tables,
 * one per base file for append tables. Pruning never opens a file: partitions by their
 * transform values, nodes by the hash of a full-key equality, files by catalog min/max.
 * Min/max prunes single files only on key columns (a key's rows never interact with
 * another key's); on other columns it prunes a whole task only when no file of the
 * task can hold a matching row, because a change file can override a base row. A
 * table whose merge engine combines rows (merge-engine.ts) makes values no file holds
 * (a sum, a row patched from several), so a task with change files is pruned by key
 * filters only.
 */
export function planScan(ctx: LakeContext, req: ScanRequest): ScanPlan {
  const rec = ctx.catalog.getTableById(req.table.id);
  if (rec === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${req.table.namespace}.${req.table.name}" does not exist`);
  const table = toTableMetadata(rec);
  const keyed = isKeyed(table);
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  const extra = keyed ? SEQ_COLUMN : ROW_ID_COLUMN;
  const projection = req.projection ?? table.columns.map((c) => c.name);
  for (const p of projection) {
    if (!byName.has(p) && p !== extra) throw new FloeError(SqlState.undefinedColumn, `column "${p}" of relation "${table.name}" does not exist`);
  }
  const filters = req.filters ?? [];
  for (const f of filters) {
    if (!byName.has(f.column)) throw new FloeError(SqlState.undefinedColumn, `column "${f.column}" of relation "${table.name}" does not exist`);
  }

  const { snapshotId, staged, stagedDeletes } = readPoint(ctx, table, req);
  const files: FileRecord[] = ctx.catalog.visibleFiles(table.id, snapshotId);
  const isAncestor = ancestryOf(ctx.catalog, table.id, snapshotId);
  const allFiles = [...files, ...staged];

  const partitions = new Map<string, FileRecord[]>();
  for (const f of allFiles) {
    let l = partitions.get(f.partitionKey);
    if (l === undefined) partitions.set(f.partitionKey, l = []);
    l.push(f);
  }
  const indexes = indexesFor(table, filters);
  const stats = {
    partitionsTotal: partitions.size, partitionsPruned: 0, filesTotal: 0, filesPruned: 0, nodesScanned: 0, nodesPruned: 0, changeFiles: 0, baseFiles: 0,
    rowGroupsTotal: 0, rowGroupsPruned: 0, filesPrunedByIndex: 0, nodesSplit: 0, merges: 0, mergesKept: 0, ...(indexes.length > 0 ? { indexes } : {}),
  };
  // Files a plain index's value filters rule out that min/max statistics alone would have kept.
  const byIndexOnly = (fs: readonly FileRecord[], any: boolean): void => {
    if (indexes.length > 0 && filesMayMatch(fs, table, filters, any, false)) stats.filesPrunedByIndex += fs.length;
  };
  // Row groups of the files a task will read; a point read's key-hash ranges skip some of them here.
  const countGroups = (f: FileRecord, read?: readonly number[]): void => {
    const n = rowGroupCount(f);
    stats.rowGroupsTotal += n;
    if (read !== undefined) stats.rowGroupsPruned += n - read.length;
  };
  for (const f of allFiles) if (f.store !== 'dv' && f.path !== '') stats.filesTotal++;

  const tasks: ScanTask[] = [];
  const mergeEngine = keyed ? resolveMergeEngine(table) : undefined;
  const base = {
    tableId: table.id, storage: ctx.storageConfig, columns: table.columns, keyColumns: table.primaryKey,
    projection, filters: filters.filter((f) => isExactFilter(f, byName.get(f.column)!)), ...(req.limit === undefined ? {} : { limit: req.limit }),
    ...(mergeEngine === undefined ? {} : { mergeEngine }),
  };
  const frontiers = keyed ? frontierByPartition(files) : undefined;
  // A full-key point read's one hash, or the keys a join asked for (req.keyLookup): the nodes,
  // files and row groups none of them hashes into are not read.
  const keyHashes = keyed ? keyHashesOf(table, filters, req.keyLookup) : undefined;
  const revHashes = keyHashes === undefined ? undefined : Uint32Array.from(keyHashes, reverseBits32).sort();

  for (const [pk, pfiles] of partitions) {
    const dataFiles = pfiles.filter((f) => f.store !== 'dv' && f.path !== '');
    if (!partitionMayMatch(table, pfiles[0]!.partitionValues, filters)) {
      stats.partitionsPruned++;
      stats.filesPruned += dataFiles.length;
      continue;
    }
    // Deletion vectors: an append table's deletes, or the rows a keyed table's delta folds superseded.
    // Positions are copied out only for the files a task reads, not for every file that has a vector.
    const dvs = deletionVectorsByTarget(pfiles);
    const deletedIn = (fileId: number): number[] | undefined => {
      const positions = dvs.get(fileId)?.dvPositions;
      return positions === undefined ? undefined : Array.from(positions);
    };
    if (!keyed) {
      for (const f of dataFiles) {
        if (!filesMayMatch([f], table, filters)) { stats.filesPruned++; byIndexOnly([f], false); continue; }
        const deleted = new Set(dvs.get(f.fileId)?.dvPositions ?? []);
        for (const p of stagedDeletes.get(f.fileId) ?? []) deleted.add(p);
        stats.baseFiles++;
        stats.nodesScanned++;
        countGroups(f);
        tasks.push({ ...base, partitionKey: pk, node: { mask: 0, index: 0 }, baseFiles: [scanFile(f, false, [...deleted])], changeFiles: [] });
      }
      continue;
    }
    const frontier = frontiers!.get(pk) ?? [{ node: { mask: 0, index: 0 }, baseSeq: 0n, baseFiles: [] }];
    for (const fn of frontier) {
      const nodeHashes = keyHashes === undefined ? undefined : hashesInNode(keyHashes, fn.node);
      if (nodeHashes !== undefined && nodeHashes.length === 0) {
        stats.nodesPruned++;
        continue;
      }
      const baseFiles = fn.baseFiles.filter((f) => f.path !== '');
      const changeFiles = pfiles.filter((f) => f.store === 'change' && f.seq >= fn.baseSeq && onLine(f, fn.node));
      const keep = (f: FileRecord): boolean => {
        if (nodeHashes !== undefined && f.keyBitmap !== undefined && !nodeHashes.some((h) => keyBitmapMayHold(f.keyBitmap!, h))) {
          stats.filesPruned++;
          return false;
        }
        if (filesMayMatch([f], table, filters.filter((x) => table.primaryKey.includes(x.column)))) return true;
        stats.filesPruned++;
        return false;
      };
      const b = baseFiles.filter(keep);
      const c = changeFiles.filter(keep);
      const taskFilters = mergeEngine !== undefined && c.length > 0 ? filters.filter((x) => table.primaryKey.includes(x.column)) : filters;
      if (b.length + c.length === 0 || !filesMayMatch([...b, ...c], table, taskFilters, true)) {
        if (b.length + c.length > 0) byIndexOnly([...b, ...c], true);
        stats.nodesPruned++;
        stats.filesPruned += b.length + c.length;
        continue;
      }
      stats.nodesScanned++;
      stats.baseFiles += b.length;
      stats.changeFiles += c.length;
      for (const f of c) countGroups(f);
      const sortedChanges = () => c.sort((x, y) => (x.seq < y.seq ? -1 : x.seq > y.seq ? 1 : x.firstOffset - y.firstOffset));
      // A whole-node merge is cut into key-hash pieces, each its own task, so that more than one worker merges it.
      const wholeMerge = c.length > 0 && keyHashes === undefined && base.limit === undefined && mergeEngine === undefined;
      // Its decisions may be kept for the next scan of the same files, unless it returns each row's _seq.
      const memo = wholeMerge && !projection.includes(SEQ_COLUMN) ? { memoizeMerge: true as const } : {};
      // Only a scan without filters is cut in pieces (and finds positions to keep: withKeptMergePositions):
      // on the CH-benCHmark's filtered scans under a stream both cost more than they saved (docs/design-notes.md).
      const pieces = wholeMerge && filters.length === 0 ? mergePieces(fn.node, b) : undefined;
      if (pieces !== undefined) {
        for (const f of b) countGroups(f);
        stats.nodesSplit++;
        for (const piece of pieces) {
          const pieceBase = b.map((f) => ({ f, groups: rowGroupsMeeting(f, piece) })).filter((x) => x.groups.length > 0);
          tasks.push({
            ...base, ...memo, partitionKey: pk, node: piece,
            baseFiles: pieceBase.map(({ f, groups }) => scanFile(f, true, deletedIn(f.fileId), groups)),
            changeFiles: sortedChanges().map((f) => ({ ...scanFile(f, true), ...tieredScanFile(f, isAncestor) })),
          });
        }
        continue;
      }
      const groupsOf = (f: FileRecord): number[] | undefined => {
        const read = revHashes === undefined ? undefined : rowGroupsHolding(f, revHashes);
        countGroups(f, read);
        return read;
      };
      const only = b.length === 1 && c.length === 0 && keyHashes === undefined && base.limit === undefined ? b[0]! : undefined;
      if (only !== undefined && only.rowGroups !== undefined && only.rowGroups.length >= 2 * SPLIT_MIN_ROW_GROUPS) {
        // A base-only task (nothing to merge: each key is in exactly one row group) is
        // split into row-group ranges so that more than one worker can decode it.
        countGroups(only);
        const deleted = deletedIn(only.fileId);
        for (const groups of rowGroupRanges(only.rowGroups.length)) {
          tasks.push({ ...base, partitionKey: pk, node: fn.node, baseFiles: [scanFile(only, false, deleted, groups)], changeFiles: [] });
        }
        continue;
      }
      tasks.push({
        ...base, ...memo, partitionKey: pk, node: fn.node, ...(nodeHashes === undefined ? {} : { keyHashes: nodeHashes }),
        baseFiles: b.map((f) => scanFile(f, false, deletedIn(f.fileId), groupsOf(f))),
        changeFiles: sortedChanges().map((f) => ({ ...scanFile(f, f.nodeMask < fn.node.mask), ...tieredScanFile(f, isAncestor) })),
      });
    }
  }
  const planned = tasks.map((t) => withKeptMergePositions(t, filters.length === 0));
  stats.merges = planned.filter((t) => t.changeFiles.length > 0 && keyed).length;
  stats.mergesKept = planned.filter((t) => t.mergePositions !== undefined).length;
  return { snapshotId, tasks: planned, pushdown: filters.map((f) => (isExactFilter(f, byName.get(f.column)!) ? 'exact' : 'inexact')), stats };
}

/**
 * The task with the positions an earlier scan of its files kept; or, the second time its
 * files are planned by a scan without filters (`mayKeep`), asked to keep them. A change
 * set met once (a stream commits between two scans) is merged as before, at no extra cost.
 */
function withKeptMergePositions(task: ScanTask, mayKeep: boolean): ScanTask {
  if (!mayKeep && !keepsMergePositions()) return task;
  const key = mergeMemoKey(task);
  if (key === undefined) return task;
  const kept = rememberedMergePositions(key);
  if (kept !== undefined) return { ...task, mergePositions: kept };
  return mayKeep && plannedBefore(key) ? { ...task, keepMergePositions: true } : task;
}

function readPoint(ctx: LakeContext, table: TableMetadata, req: ScanRequest): {
  snapshotId: bigint; staged: FileRecord[]; stagedDeletes: ReadonlyMap<number, ReadonlySet<number>>;
} {
  const txn = req.txn;
  if (txn instanceof LakeTransactionImpl && (req.at === undefined || req.at.kind === 'ref')) {
    const refName = req.at?.kind === 'ref' ? req.at.name : 'main';
    const ref = ctx.catalog.getRef(table.id, refName);
    if (ref !== undefined && ref.kind === 'branch') {
      const snapshotId = txn.pinnedSnapshot(table, refName);
      const staged: FileRecord[] = txn.stagedFiles(table.id, refName).map((f, i) => ({ ...f, fileId: stagedFileId(i), tableId: table.id, addedIn: -1n }));
      return { snapshotId, staged, stagedDeletes: txn.stagedDeletes(table.id, refName) };
    }
  }
  return { snapshotId: resolveSnapshotRecord(ctx.catalog, table, req.at).id, staged: [], stagedDeletes: new Map() };
}

/** A change file belongs to a frontier node's task when its node is on the node's line. */
function onLine(f: FileRecord, node: BucketNode): boolean {
  const n = { mask: f.nodeMask, index: f.nodeIndex };
  return isAncestorOrSelf(n, node) || isAncestorOrSelf(node, n);
}

/**
 * Fewest row groups worth a task of their own (dispatch and decoder start-up are not
 * free). Two keep a 150k-row table (5 row groups) on both
 * workers instead of one.
 */
const SPLIT_MIN_ROW_GROUPS = 2;
/** At most this many pieces per task: the pool is sized to the cores, and this machine class has 2. */
const SPLIT_MAX_TASKS = 4;

/** Row-group indexes 0..n-1 as contiguous ranges, each at least SPLIT_MIN_ROW_GROUPS long. */
export function rowGroupRanges(n: number): number[][] {
  const parts = Math.max(1, Math.min(SPLIT_MAX_TASKS, Math.floor(n / SPLIT_MIN_ROW_GROUPS)));
  const out: number[][] = [];
  for (let p = 0; p < parts; p++) {
    const lo = Math.floor((p * n) / parts);
    const hi = Math.floor(((p + 1) * n) / parts);
    out.push(Array.from({ length: hi - lo }, (_, i) => lo + i));
  }
  return out;
}

/** Row groups in a file: recorded for hash-ordered base files, else the writer's fixed cut. */
function rowGroupCount(f: FileRecord): number {
  if (f.rowGroups !== undefined) return f.rowGroups.length;
  return f.rowCount === 0 ? 0 : Math.ceil(f.rowCount / ROW_GROUP_ROWS);
}

/** Row groups of a hash-sorted base file whose reversed-hash range holds one of the keys' reversed hashes (ascending). */
function rowGroupsHolding(f: FileRecord, revHashes: Uint32Array): number[] | undefined {
  if (f.rowGroups === undefined) return undefined;
  const out: number[] = [];
  f.rowGroups.forEach(([lo, hi], i) => {
    const at = rankBelow(revHashes, lo);
    if (at < revHashes.length && revHashes[at]! <= hi) out.push(i);
  });
  return out;
}

/** The hashes (ascending) that fall into a bucket node. */
function hashesInNode(hashes: Uint32Array, node: BucketNode): Uint32Array {
  return node.mask === 0 ? hashes : hashes.filter((h) => ((h & node.mask) >>> 0) === node.index);
}

function scanFile(f: FileRecord, filterByHash: boolean, deletedPositions?: number[], rowGroups?: number[]): ScanFile {
  return {
    ...(rowGroups === undefined ? {} : { rowGroups }),
    fileId: f.fileId, path: f.path, store: f.store === 'change' ? 'change' : 'base', rowCount: f.rowCount,
    sizeBytes: f.sizeBytes, seq: f.seq, firstOffset: f.firstOffset, node: { mask: f.nodeMask, index: f.nodeIndex },
    filterByHash, ...(deletedPositions !== undefined && deletedPositions.length > 0 ? { deletedPositions } : {}),
  };
}

/**
 * The key hashes a keyed scan is limited to (ascending, distinct): a full-key equality's
 * one, else those of the keys a join asked for. Undefined: no limit. A key with a NULL
 * matches no row and is left out; one whose values the key's types cannot hash (not a
 * case the executor makes) lifts the limit rather than fail the read.
 */
function keyHashesOf(table: TableMetadata, filters: readonly ScanFilter[], lookup: ScanRequest['keyLookup']): Uint32Array | undefined {
  const types: SqlType[] = table.primaryKey.map((k) => table.columns.find((c) => c.name === k)!.type);
  const point = table.primaryKey.map((k) => filters.find((x) => x.column === k && x.op === '=')?.value);
  if (point.every((v) => v !== null && v !== undefined)) return Uint32Array.of(hashKey(types, point));
  if (lookup === undefined) return undefined;
  const out = new Uint32Array(lookup.length);
  let n = 0;
  for (const key of lookup) {
    if (key.length !== types.length) return undefined;
    if (key.some((v) => v === null || v === undefined)) continue;
    try {
      out[n++] = hashKey(types, key);
    } catch {
      return undefined;
    }
  }
  const sorted = out.subarray(0, n).sort();
  let d = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[d - 1]) sorted[d++] = sorted[i]!;
  return sorted.slice(0, d);
}

function statPredicate(f: ScanFilter): StatPredicate | undefined {
  switch (f.op) {
    case 'isNull': case 'isNotNull': return { op: f.op };
    case 'in': return f.values === undefined ? undefined : { op: 'in', values: f.values };
    default: return f.value === null || f.value === undefined ? undefined : { op: f.op, value: f.value };
  }
}

/**
 * True unless the filters prove no row of these files matches. With `any`, the files
 * are one task: it can match when any file can. With `useIndexes`, the value filters of
 * indexed columns (plain indexes) count too.
 */
function filesMayMatch(files: readonly FileRecord[], table: TableMetadata, filters: readonly ScanFilter[], any = false, useIndexes = true): boolean {
  if (filters.length === 0) return true;
  const check = (f: FileRecord): boolean => {
    for (const flt of filters) {
      const col = table.columns.find((c) => c.name === flt.column)!;
      const s = f.stats[physicalName(col.fieldId)];
      if (s === undefined) continue;
      const pred = statPredicate(flt);
      if (pred === undefined) continue;
      try {
        const decoded = { min: s.min === null ? null : decodeStatValue(col.type, s.min), max: s.max === null ? null : decodeStatValue(col.type, s.max), nullCount: s.nullCount };
        if (!statsMayMatch(decoded, col.type, pred, f.rowCount)) return false;
      } catch {
        continue;
      }
      if (useIndexes && col.indexed === true && s.bloom !== undefined && !valueFilterMayMatch(s.bloom, col, flt)) return false;
    }
    return true;
  };
  return any ? files.some(check) : files.every(check);
}

/** False when an equality or IN filter's values are all absent from the file's value filter. */
function valueFilterMayMatch(bloom: string, col: ColumnMetadata, f: ScanFilter): boolean {
  if (f.op === '=') return bloomMayHold(bloom, col.type, f.value);
  if (f.op === 'in' && f.values !== undefined && f.values.length > 0) return f.values.some((v) => bloomMayHold(bloom, col.type, v));
  return true;
}

/** The plain indexes whose value filters an equality or IN filter can use. */
function indexesFor(table: TableMetadata, filters: readonly ScanFilter[]): string[] {
  const looked = new Set(filters.filter((f) => f.op === '=' || f.op === 'in').map((f) => f.column));
  return table.constraints.filter((c) => c.kind === 'index' && c.columns.some((x) => looked.has(x))).map((c) => c.name);
}

function partitionMayMatch(table: TableMetadata, values: readonly unknown[], filters: readonly ScanFilter[]): boolean {
  for (let i = 0; i < table.partitionBy.length; i++) {
    const pf = table.partitionBy[i]!;
    const col: ColumnMetadata | undefined = table.columns.find((c) => c.name === pf.sourceColumn);
    if (col === undefined) continue;
    const raw = values[i];
    for (const f of filters) {
      if (f.column !== pf.sourceColumn) continue;
      let pred: PartitionPredicate | undefined;
      if (f.op === 'in' && f.values !== undefined) pred = { op: 'in', values: f.values };
      else if ((f.op === '=' || f.op === '<' || f.op === '<=' || f.op === '>' || f.op === '>=') && f.value !== null && f.value !== undefined) pred = { op: f.op, value: f.value };
      if (pred === undefined) continue;
      try {
        const pv = raw === null ? null : decodeStatValue(transformResultType(pf.transform, col.type), raw);
        if (!mayMatch(pf.transform, col.type, pv, pred)) return false;
      } catch {
        continue;
      }
    }
  }
  return true;
}
