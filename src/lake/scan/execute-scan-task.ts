import { Field, Int64, makeData } from 'apache-arrow';
import type { Data, RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { arrowFieldOf } from '../arrow/arrow-type.js';
import { batchFromData } from '../arrow/batch-builder.js';
import type { SelectedBatch } from '../arrow/selected-batch.js';
import { decodeDataFile, decodeDataFileSelected } from '../format/data-file-reader.js';
import type { RowPicker } from '../format/data-file-reader.js';
import type { DecodeForm } from '../format/native-parquet-reader.js';
import { openDataFileSource } from '../format/data-file-source.js';
import { isLogPath } from '../log/log-locator.js';
import { TIERED_COLUMNS, selectTieredRows, tieredRows } from '../log/tiered-rows.js';
import { mergeChoices, mergeOnReadSelected } from '../merge/merge-on-read.js';
import type { ChangeInput } from '../merge/merge-on-read.js';
import { openStorage } from '../storage/open-storage.js';
import type { Storage } from '../storage/storage.js';
import { OP_COLUMN, SEQ_FILE_COLUMN, physicalName } from '../table/table-layout.js';
import type { ColumnMetadata } from '../table/table-metadata.js';
import { ROW_ID_COLUMN, SEQ_COLUMN } from './scan-types.js';
import type { ScanTask } from './scan-types.js';
import { filterSelection } from './filter-batch.js';
import { sliceBatch } from '../arrow/record-batch-of.js';
import { takeRows } from './take-rows.js';
import { baseOlderThanChanges } from './base-older-than-changes.js';
import { cachedRowGroupStats, physicalTypes, rowGroupsMatching } from './row-group-stats.js';
import { textFiltersTyped } from './typed-selection.js';
import { cachedChangeFile, cachedRowGroupSizes, selectCachedRowGroups } from './cached-row-groups.js';
import { mergeMemoKey, rememberMergePositions, rememberedMergePositions } from './merge-position-memo.js';
import type { MergePositions } from './merge-position-memo.js';
import { decodedPositions, isAscending, skippingDeleted } from './deleted-positions.js';
import { MAX_CACHED_CHANGE_FILE_BYTES, sharedRowGroupCache } from './row-group-cache.js';
import { rowsWithKeyHashes, searchingKeyHashes } from './key-hash-search.js';
import { hashKeyBatch } from '../bucket/key-hash.js';
import { rowsByNode } from '../bucket/bucket-node.js';
import type { ScanFilter } from './scan-types.js';

/**
 * What a task read, for EXPLAIN ANALYZE: row groups decoded, and row groups whose
 * footer statistics proved no row passes the task's filters (never decoded).
 * Row groups a point read skips by key hash are counted when the scan is planned.
 */
export interface ScanTaskCounters {
  rowGroupsRead: number;
  rowGroupsSkippedByStats: number;
  /** Point reads: row groups taken decoded from the row-group cache (row-group-cache.ts). */
  rowGroupCacheHits?: number;
  /** Tasks that merged base and change rows, and of those, the ones that took kept merge positions (merge-position-memo.ts). */
  merges?: number;
  mergesKept?: number;
}

/** Adds `from`'s counts to `into` (a worker's to its query's). */
export function addScanTaskCounters(into: ScanTaskCounters, from: ScanTaskCounters): void {
  into.rowGroupsRead += from.rowGroupsRead;
  into.rowGroupsSkippedByStats += from.rowGroupsSkippedByStats;
  if (from.rowGroupCacheHits !== undefined) into.rowGroupCacheHits = (into.rowGroupCacheHits ?? 0) + from.rowGroupCacheHits;
  if (from.merges !== undefined) into.merges = (into.merges ?? 0) + from.merges;
  if (from.mergesKept !== undefined) into.mergesKept = (into.mergesKept ?? 0) + from.mergesKept;
}


/** The task's key columns as its files name them (physical names), with their types. */
function taskKeyColumns(task: ScanTask): { names: string[]; types: SqlType[] } {
  const cols = task.keyColumns.map((k) => task.columns.find((c) => c.name === k)!);
  return { names: cols.map((c) => physicalName(c.fieldId)), types: cols.map((c) => c.type) };
}

const everyRow: RowPicker = () => undefined;

/** A base file's batches, decoding only the row groups the filters cannot rule out by their statistics. */
async function readPruned(
  storage: Storage, f: ScanTask['baseFiles'][number], task: ScanTask, filters: readonly ScanFilter[], extra: readonly string[],
  counters: ScanTaskCounters | undefined, pick?: RowPicker, reads?: ReadonlySet<string>, byCode?: ReadonlyMap<string, boolean>, form?: DecodeForm,
): Promise<{ selected: SelectedBatch[]; groups: number[] | undefined; groupRows: number[] | undefined }> {
  const hasDeletes = (f.deletedPositions ?? []).length > 0;
  // Through the cache: a point read's candidate row groups, or a small scan's whole Parquet file.
  const cached = task.cacheRowGroups === true && (f.rowGroups !== undefined ? pick !== undefined : !isLogPath(f.path) && (pick !== undefined || !hasDeletes));
  // A point read or key lookup picks its keys' rows by hash (looked up in a cached row group read before).
  if (task.keyHashes !== undefined && pick !== undefined) {
    const key = taskKeyColumns(task);
    pick = searchingKeyHashes(pick, key.names, key.types, task.keyHashes);
  }
  if (cached) {
    const open = () => openDataFileSource(storage, f.path);
    // A small scan's file is read whole: its row groups are counted from the (cached) footer.
    const sizes = hasDeletes || f.rowGroups === undefined ? await cachedRowGroupSizes(f.path, open) : undefined;
    const groups = f.rowGroups === undefined ? sizes!.map((_n, g) => g) : [...f.rowGroups];
    const groupRows = sizes;
    const skipping = hasDeletes ? skippingDeleted(pick!, f.deletedPositions!, groups, groupRows) : undefined;
    const selected = await selectCachedRowGroups(sharedRowGroupCache(), open, f, groups, task, extra, form, skipping ?? pick ?? everyRow, counters);
    if (skipping !== undefined) checkAllDecoded(f, skipping.decoded(), groups, groupRows);
    return { selected, groups, groupRows };
  }
  const source = await openDataFileSource(storage, f.path);
  // A log file has no footer statistics to prune by. Deleted positions need the row group sizes.
  const stats = (filters.length > 0 || counters !== undefined || hasDeletes) && !isLogPath(f.path) ? cachedRowGroupStats(f.path, source.footer, physicalTypes(task.columns)) : undefined;
  let groups = f.rowGroups === undefined ? undefined : [...f.rowGroups];
  if (stats !== undefined && filters.length > 0) {
    const kept = rowGroupsMatching(stats, groups, filters, task.columns);
    const before = groups?.length ?? stats.length;
    if (counters) counters.rowGroupsSkippedByStats += before - kept.length;
    if (kept.length < before) groups = kept;
  }
  if (counters) counters.rowGroupsRead += groups?.length ?? stats?.length ?? 0;
  const groupRows = stats?.map((g) => g.numRows);
  // A picker drops deleted rows as it picks; without one the caller drops them by position.
  const skipping = pick !== undefined && hasDeletes ? skippingDeleted(pick, f.deletedPositions!, groups, groupRows) : undefined;
  const picker = skipping ?? pick;
  const selected = picker === undefined
    ? (await decodeDataFile(source, f.path, task.columns, extra, groups, form)).map((batch) => ({ batch, rows: undefined }))
    : await decodeDataFileSelected(source, f.path, task.columns, extra, groups, picker, reads, byCode, form);
  if (skipping !== undefined) checkAllDecoded(f, skipping.decoded(), groups, groupRows);
  return { selected, groups, groupRows };
}

/** A deletion vector applied by position needs the picker to have seen every row decoded. */
function checkAllDecoded(f: ScanTask['baseFiles'][number], seen: number, groups: readonly number[] | undefined, groupRows: readonly number[] | undefined): void {
  const decoded = groups === undefined ? f.rowCount : groups.reduce((n, g) => n + groupRows![g]!, 0);
  if (seen !== decoded) throw new FloeError(SqlState.internalError, `the deletion vector of "${f.path}" could not be applied: the decoder skipped rows`);
}

/**
 * The task reading only the columns it projects, filters on or merges by: files
 * are decoded column by column, so a scan filtering and summing 4 of a table's 16 columns reads those 4, not all.
 */
function withNeededColumns(task: ScanTask, merging: boolean): ScanTask {
  const needed = new Set<string>([...task.projection, ...(merging ? task.keyColumns : []), ...task.filters.map((f) => f.column)]);
  const engine = task.mergeEngine;
  if (merging && engine?.kind === 'partial-update') {
    // a sequence group's columns are folded by its sequence columns, so those are read too
    const sqlName = new Map(task.columns.map((c) => [physicalName(c.fieldId), c.name]));
    for (const g of engine.groups) {
      if ([...g.sequenceColumns, ...g.columns].some((c) => needed.has(sqlName.get(c)!))) for (const c of g.sequenceColumns) needed.add(sqlName.get(c)!);
    }
  }
  const columns = task.columns.filter((c) => needed.has(c.name));
  return columns.length === task.columns.length ? task : { ...task, columns };
}

/**
 * Runs one scan task: reads its files, merges (keyed tables) or applies deletion
 * vectors (append tables), and yields batches of the projected columns under their
 * SQL names. Needs nothing but the task, so it runs in a worker thread.
 */
export async function* executeScanTask(whole: ScanTask, counters?: ScanTaskCounters): AsyncIterable<RecordBatch> {
  for await (const { batch, rows } of executeScanTaskSelected(whole, counters)) yield rows === undefined ? batch : takeRows(batch, rows);
}

/**
 * The rows among `rows` (all when undefined) of a scan batch — projected, under SQL
 * names — that the consumer's next filters may keep (its runtime join filters).
 * It sees each batch as decoded, before the merge, and must only read it.
 */
export type RowNarrower = ((batch: RecordBatch, rows: Int32Array | undefined) => Int32Array | undefined) & {
  /** The projected columns (SQL names) it reads; absent: any. Known, the others are decoded after it. */
  readonly columns?: readonly string[];
};

/**
 * executeScanTask without the filter's copy: each batch comes with the rows that
 * passed, so a consumer that narrows them further (runtime join filters, residual
 * predicates) copies each column once at the end, and columns it drops never.
 * `narrow` lets the consumer drop rows as they are decoded: they are then neither
 * copied out of the decoder nor merged (a join's runtime filter can keep 0.1% of a large table's rows).
 * Every row it keeps still comes to the consumer, which applies its filters again.
 */
export async function* executeScanTaskSelected(whole: ScanTask, counters?: ScanTaskCounters, narrow?: RowNarrower): AsyncIterable<SelectedBatch> {
  // Without change files a keyed task has nothing to merge: its base rows are the answer
  // as they stand, so neither the key columns nor the sequence column need decoding.
  const merging = whole.keyColumns.length > 0 && whole.changeFiles.length > 0;
  // A task read in the caller's thread through the row-group cache is small: its merge is not kept.
  // Positions are found only for a scan nothing narrows: the merge that finds them reads every base row.
  const byPositions = merging && whole.cacheRowGroups !== true && (whole.mergePositions !== undefined || (whole.keepMergePositions === true && narrow === undefined));
  const memoKey = byPositions ? mergeMemoKey(whole) : undefined;
  const task = withNeededColumns(whole, merging && memoKey === undefined);
  const storage = openStorage(task.storage);
  if (merging && counters !== undefined) counters.merges = (counters.merges ?? 0) + 1;
  const { selected, filtered } = memoKey !== undefined
    ? { selected: await rowsByMergePositions(storage, whole, task, memoKey, counters, narrow), filtered: true }
    : merging
      ? { selected: await mergedRows(storage, task, counters, narrow), filtered: false }
      : await unmergedRows(storage, task, counters, narrow);
  let remaining = task.limit ?? Number.POSITIVE_INFINITY;
  for (const { batch: b, rows: picked } of selected) {
    if (remaining <= 0) return;
    let rows = filtered ? picked : filterSelection(b, task.filters, task.columns, picked);
    let count = rows?.length ?? b.numRows;
    if (count === 0) continue;
    if (count > remaining) {
      rows = rows === undefined ? undefined : rows.subarray(0, remaining);
      count = remaining;
    }
    const out = project(b, task);
    remaining -= count;
    if (rows === undefined && count < b.numRows) yield { batch: sliceBatch(out, 0, count), rows: undefined };
    else yield { batch: out, rows };
  }
}

/**
 * The physical columns passingRows reads (the filters' and the narrowing's; a key lookup's
 * key columns, which its picker hashes), or undefined when the narrowing does not say which it reads.
 */
function passingRowsReads(task: ScanTask, narrow: RowNarrower | undefined): ReadonlySet<string> | undefined {
  if (narrow !== undefined && narrow.columns === undefined) return undefined;
  const reads = new Set<string>();
  const keys = task.keyHashes === undefined ? [] : task.keyColumns;
  for (const name of [...task.filters.map((f) => f.column), ...(narrow?.columns ?? []), ...keys]) {
    const c = task.columns.find((x) => x.name === name);
    if (c === undefined) return undefined;
    reads.add(physicalName(c.fieldId));
  }
  return reads;
}

/** Rows of a decoded batch passing the task's filters and then the consumer's narrowing (undefined: all). */
function passingRows(b: RecordBatch, task: ScanTask, narrow: RowNarrower | undefined): Int32Array | undefined {
  const rows = filterSelection(b, task.filters, task.columns);
  return narrow === undefined ? rows : narrow(project(b, task), rows);
}

/** Base rows are cut before the merge by non-key filters only when at least this share fails them. */
const EARLY_CUT_MIN_DROP = 0.5;

async function mergedRows(storage: Storage, task: ScanTask, counters: ScanTaskCounters | undefined, narrow: RowNarrower | undefined): Promise<SelectedBatch[]> {
  // Filters on key columns can run before the merge: rows of different keys never
  // interact, so dropping other keys early cannot change a surviving key's outcome.
  const keyFilters = task.filters.filter((f) => task.keyColumns.includes(f.column));
  // Every filter may drop base rows (and skip base row groups) before the merge: change
  // rows are always newer than base rows, so a base row failing a filter either loses
  // to a change of its key or comes out of the merge as itself and is dropped after it.
  // Change rows keep all but key filters until then: a failing change still replaces its base row.
  // The consumer's runtime filters are such filters too. Base rows are cut as they are
  // decoded, so the rows dropped are mostly never copied.
  // A merge engine that combines rows (merge-engine.ts) makes a key's row out of several,
  // so a base row failing a filter may still be part of a row that passes: only key filters cut early.
  const combines = task.mergeEngine !== undefined;
  const pick: RowPicker = (b) => {
    if (combines) return filterSelection(b, keyFilters, task.columns);
    const all = passingRows(b, task, narrow);
    // Key filters must cut here (see keptRuns for changes); the others are repeated after the
    // merge, so they only cut when that spares the merge most of its rows.
    return all === undefined || all.length <= b.numRows * (1 - EARLY_CUT_MIN_DROP) ? all : filterSelection(b, keyFilters, task.columns);
  };
  const base: RecordBatch[] = [];
  const reads = combines ? undefined : passingRowsReads(task, narrow);
  const baseOlder = !combines && baseOlderThanChanges(task);
  const baseExtra = baseOlder ? [] : [SEQ_FILE_COLUMN];
  for (const f of task.baseFiles) {
    for (const { batch, rows } of (await readPruned(storage, f, task, combines ? keyFilters : task.filters, baseExtra, counters, pick, reads)).selected) {
      base.push(rows === undefined ? batch : takeRows(batch, rows));
    }
  }
  const key = taskKeyColumns(task);
  const changes = (await changeInputs(storage, task, keyFilters)).map((c) => c.input);
  // A piece of a split merge reads row groups that straddle its hash range.
  const baseNode = task.baseFiles.some((f) => f.filterByHash) ? task.node : undefined;
  return mergeOnReadSelected({
    base, changes, keyColumns: key.names, keyTypes: key.types, ...(baseNode === undefined ? {} : { baseNode }),
    ...(task.mergeEngine === undefined ? {} : { engine: task.mergeEngine }),
    ...(baseOlder ? { baseOlder } : {}),
  });
}

/** A change input of a task's merge, with the change file it came from and its rows' positions there. */
interface ChangeRows {
  readonly input: ChangeInput;
  /** Index into the task's change files. */
  readonly file: number;
  /** Position in the file of the input's first row... */
  readonly start: number;
  /** ...and of row r, start + positions[r]; absent: start + r. */
  readonly positions?: Int32Array;
}

/**
 * The task's change files as merge inputs: decoded with `_op` (and a tiered file's own
 * columns), each batch one input that knows its rows' offsets, cut by the key filters
 * and, for a file read for one node, by key hash.
 */
async function changeInputs(storage: Storage, task: ScanTask, keyFilters: readonly ScanFilter[]): Promise<ChangeRows[]> {
  const key = taskKeyColumns(task);
  const out: ChangeRows[] = [];
  for (const [file, f] of task.changeFiles.entries()) {
    let offset = f.firstOffset;
    let start = 0;
    const extra = f.tiered === true ? [OP_COLUMN, ...TIERED_COLUMNS] : [OP_COLUMN];
    const decode = () => openDataFileSource(storage, f.path).then((source) => decodeDataFile(source, f.path, task.columns, extra));
    for (const decoded of task.cacheRowGroups === true ? await cachedChangeFile(sharedRowGroupCache(), f, task, extra, decode) : await decode()) {
      // A tiered file's rows bring their own seq; a read at an older snapshot drops the newer commits' rows.
      let rows = tieredRows(decoded, f.keepSnapshots);
      // The rows kept go in as one input that knows each one's offset in the file.
      const kept = keyFilters.length === 0 ? undefined : filterSelection(rows.batch, keyFilters, task.columns);
      if (kept !== undefined) rows = selectTieredRows(rows, kept);
      // A key lookup's other keys are dropped before the merge (a key's rows never meet another's),
      // found through the cached file's key-hash index from its second read on.
      if (task.keyHashes !== undefined && rows.batch.numRows > 0) {
        const wanted = rowsWithKeyHashes(rows.batch, key.names, key.types, task.keyHashes);
        if (wanted.length < rows.batch.numRows) rows = selectTieredRows(rows, wanted);
      }
      // Rows of other nodes are dropped before the merge encodes their keys: a piece of a
      // split merge reads every change file of its node and keeps a quarter of the rows.
      if (f.filterByHash && rows.batch.numRows > 0) {
        const inNode = rowsByNode(hashKeyBatch(rows.batch, key.names, key.types), task.node, true);
        if (inNode.length < rows.batch.numRows) rows = selectTieredRows(rows, inNode);
      }
      if (rows.batch.numRows > 0) {
        const input: ChangeInput = {
          batch: rows.batch, seq: f.seq, firstOffset: offset, ...(rows.positions === undefined ? {} : { offsets: rows.positions }),
          ...(rows.seqs === undefined ? {} : { seqs: rows.seqs }), ...(f.filterByHash ? { hashFilter: task.node } : {}),
        };
        out.push({ input, file, start, ...(rows.positions === undefined ? {} : { positions: rows.positions }) });
      }
      offset += decoded.numRows;
      start += decoded.numRows;
    }
  }
  return out;
}

/**
 * The rows of a task whose merge positions are kept (merge-position-memo.ts): the base rows
 * but those dropped, read as through a deletion vector, and each change file's winning
 * rows, both already through the task's filters. Only the columns the scan returns or
 * filters on are decoded; on a miss the merge runs once over the key columns to find the positions.
 */
async function rowsByMergePositions(
  storage: Storage, whole: ScanTask, task: ScanTask, key: string, counters: ScanTaskCounters | undefined, narrow: RowNarrower | undefined,
): Promise<SelectedBatch[]> {
  const kept = whole.mergePositions ?? rememberedMergePositions(key);
  if (kept !== undefined && counters !== undefined) counters.mergesKept = (counters.mergesKept ?? 0) + 1;
  const positions = kept ?? await mergePositionsOf(storage, whole, key);
  const out: SelectedBatch[] = [];
  const pick: RowPicker = (b) => passingRows(b, task, narrow);
  const reads = passingRowsReads(task, narrow);
  for (const f of task.baseFiles) {
    const dropped = positions.baseDropped.get(f.path);
    const file = dropped === undefined ? f : { ...f, deletedPositions: unionPositions(f.deletedPositions, dropped) };
    out.push(...(await readPruned(storage, file, task, task.filters, [], counters, pick, reads)).selected);
  }
  for (const [j, f] of task.changeFiles.entries()) {
    const winners = positions.changeWinners[j]!;
    if (winners.length === 0) continue;
    let start = 0;
    let w = 0;
    // Each piece of a split node reads the whole file: the decoded columns are kept for the others.
    const decode = () => openDataFileSource(storage, f.path).then((source) => decodeDataFile(source, f.path, task.columns, []));
    const batches = f.filterByHash ? await cachedChangeFile(sharedRowGroupCache(), { ...f, keepSnapshots: undefined }, task, [], decode, MAX_CACHED_CHANGE_FILE_BYTES) : await decode();
    for (const batch of batches) {
      const end = start + batch.numRows;
      const from = w;
      while (w < winners.length && winners[w]! < end) w++;
      // Base rows were filtered as they were decoded (pick); change rows are filtered here, so the caller need not filter again.
      if (w > from) out.push({ batch, rows: filterSelection(batch, task.filters, task.columns, winners.subarray(from, w).map((p) => p - start)) });
      start = end;
    }
  }
  return out;
}

/** Runs a task's merge over its key columns for the positions it decides, and keeps them. */
async function mergePositionsOf(storage: Storage, whole: ScanTask, memoKey: string): Promise<MergePositions> {
  const key = taskKeyColumns(whole);
  const keyTask: ScanTask = { ...whole, columns: whole.columns.filter((c) => whole.keyColumns.includes(c.name)) };
  const baseOlder = baseOlderThanChanges(whole);
  // Base rows as the merge sees them, each batch with where its rows are in the file:
  // rows a deletion vector names are not there (as when they are read to be merged).
  const base: RecordBatch[] = [];
  const baseOf: { path: string; position: (r: number) => number }[] = [];
  for (const f of whole.baseFiles) {
    const source = await openDataFileSource(storage, f.path);
    const groups = f.rowGroups === undefined ? undefined : [...f.rowGroups];
    const decoded = groups === undefined ? undefined : decodedPositions(groups, await cachedRowGroupSizes(f.path, async () => source));
    const deleted = new Set(f.deletedPositions ?? []);
    let start = 0;
    for (const batch of await decodeDataFile(source, f.path, keyTask.columns, baseOlder ? [] : [SEQ_FILE_COLUMN], groups)) {
      const first = start;
      const inFile = (r: number): number => (decoded === undefined ? first + r : decoded[first + r]!);
      start += batch.numRows;
      if (deleted.size === 0) {
        base.push(batch);
        baseOf.push({ path: f.path, position: inFile });
        continue;
      }
      const live = new Int32Array(batch.numRows);
      let k = 0;
      for (let r = 0; r < batch.numRows; r++) if (!deleted.has(inFile(r))) live[k++] = r;
      const rows = live.subarray(0, k);
      base.push(takeRows(batch, rows));
      baseOf.push({ path: f.path, position: (r) => inFile(rows[r]!) });
    }
  }
  const changes = await changeInputs(storage, keyTask, []);
  const baseNode = whole.baseFiles.some((f) => f.filterByHash) ? whole.node : undefined;
  const choices = mergeChoices({
    base, changes: changes.map((c) => c.input), keyColumns: key.names, keyTypes: key.types,
    ...(baseNode === undefined ? {} : { baseNode }), ...(baseOlder ? { baseOlder } : {}),
  });
  const dropped = new Map<string, Int32Array[]>();
  choices.baseDropped.forEach((rows, i) => {
    if (rows === undefined) return;
    const { path, position } = baseOf[i]!;
    let parts = dropped.get(path);
    if (parts === undefined) dropped.set(path, parts = []);
    parts.push(rows.map(position));
  });
  const winners: Int32Array[][] = whole.changeFiles.map(() => []);
  choices.changeWinners.forEach((rows, i) => {
    const c = changes[i]!;
    winners[c.file]!.push(rows.map((r) => c.start + (c.positions === undefined ? r : c.positions[r]!)));
  });
  const positions: MergePositions = {
    baseDropped: new Map([...dropped].map(([path, parts]) => [path, concatPositions(parts)])),
    changeWinners: winners.map(concatPositions),
  };
  rememberMergePositions(memoKey, positions);
  return positions;
}

/** Ascending runs of positions, each after the last, as one shared array (merge-position-memo.ts keeps it as is). */
function concatPositions(parts: readonly Int32Array[]): Int32Array {
  const out = new Int32Array(new SharedArrayBuffer(parts.reduce((n, p) => n + p.byteLength, 0)));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** A file's deletion vector and the positions a merge dropped, as one ascending list. */
function unionPositions(deleted: readonly number[] | Int32Array | undefined, dropped: Int32Array): Int32Array {
  if (deleted === undefined || deleted.length === 0) return dropped;
  // Stored ascending: copied and sorted only when not.
  const a = isAscending(deleted) ? deleted : Int32Array.from(deleted).sort();
  const out = new Int32Array(a.length + dropped.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length || j < dropped.length) {
    const next = j >= dropped.length || (i < a.length && a[i]! <= dropped[j]!) ? a[i++]! : dropped[j++]!;
    if (k === 0 || out[k - 1] !== next) out[k++] = next;
  }
  return out.subarray(0, k);
}

/**
 * Rows nothing merges go to the consumer as decoded, numerics narrowed to Decimal64 where
 * stored as INT64 (see DecodeForm). Merged rows keep Decimal128: base and change rows meet
 * in one output there, and their widths must agree.
 */
const UNMERGED_FORM: DecodeForm = { narrowDecimals: true };

/** Base rows as stored, less deleted positions: an append table's scan, or a keyed task without change files. */
async function unmergedRows(
  storage: Storage, task: ScanTask, counters: ScanTaskCounters | undefined, narrow: RowNarrower | undefined,
): Promise<{ selected: SelectedBatch[]; filtered: boolean }> {
  const wantRowId = task.projection.includes(ROW_ID_COLUMN);
  const extra = task.projection.includes(SEQ_COLUMN) ? [SEQ_FILE_COLUMN] : [];
  // Rows are cut as they are decoded (so the rows dropped are never copied, deleted ones
  // included) unless something needs every row's position in its file: row ids.
  const cutEarly = (task.filters.length > 0 || narrow !== undefined || task.keyHashes !== undefined) && !wantRowId;
  const pick: RowPicker | undefined = cutEarly ? (b) => passingRows(b, task, narrow) : undefined;
  const reads = cutEarly ? passingRowsReads(task, narrow) : undefined;
  const byCode = reads === undefined ? undefined : textFilteredByCode(task, narrow);
  const out: SelectedBatch[] = [];
  for (const f of task.baseFiles) {
    const deleted = new Set(f.deletedPositions ?? []);
    const { selected, groups, groupRows } = await readPruned(storage, f, task, task.filters, extra, counters, pick, reads, byCode, UNMERGED_FORM);
    if (cutEarly) {
      out.push(...selected);
      continue;
    }
    // Row positions in the file (the decoded rows are the chosen row groups, back to back),
    // needed only for row ids and deletion vectors.
    const position = !wantRowId && deleted.size === 0 ? undefined : decodedPositions(groups, groupRows);
    let pos = 0;
    for (let { batch: b } of selected) {
      const start = pos;
      pos += b.numRows;
      const at = (i: number): number => (position === undefined ? start + i : position[start + i]!);
      if (wantRowId) {
        const ids = new BigInt64Array(b.numRows);
        const hi = BigInt(f.fileId) << 32n;
        for (let i = 0; i < b.numRows; i++) ids[i] = hi | BigInt(at(i));
        const data = makeData({ type: new Int64(), length: b.numRows, data: ids });
        b = batchFromData([...b.schema.fields, new Field(ROW_ID_COLUMN, new Int64(), false)], [...b.data.children, data], b.numRows);
      }
      if (deleted.size > 0) {
        const keep: number[] = [];
        for (let i = 0; i < b.numRows; i++) if (!deleted.has(at(i))) keep.push(i);
        if (keep.length < b.numRows) b = takeRows(b, keep);
      }
      out.push({ batch: b, rows: undefined });
    }
  }
  return { selected: out, filtered: cutEarly };
}

/**
 * The text columns (physical names) the task's filters compare as bytes, all of them,
 * and neither the consumer's narrowing nor a key lookup reads: their rows are chosen by dictionary code.
 * True for a projected one, whose strings are built for the rows kept; false for one
 * only the filters read, whose strings are never built (`shipinstruct = '…' AND shipmode IN (…)`
 * in a WHERE that no output reads; a shipmode the query also groups by is projected).
 */
function textFilteredByCode(task: ScanTask, narrow: RowNarrower | undefined): ReadonlyMap<string, boolean> | undefined {
  const out = new Map<string, boolean>();
  for (const name of new Set(task.filters.map((f) => f.column))) {
    const c = task.columns.find((x) => x.name === name);
    // A key lookup's picker hashes its key columns' values: they are decoded as strings.
    if (c === undefined || narrow?.columns?.includes(name) || (task.keyHashes !== undefined && task.keyColumns.includes(name))) continue;
    if (textFiltersTyped(task.filters.filter((f) => f.column === name), c.type)) out.set(physicalName(c.fieldId), task.projection.includes(name));
  }
  return out.size === 0 ? undefined : out;
}

/** The projected columns under their SQL names. */
function project(b: RecordBatch, task: ScanTask): RecordBatch {
  const index = new Map<string, number>();
  b.schema.fields.forEach((f, i) => index.set(f.name, i));
  const fields: Field[] = [];
  const children: Data[] = [];
  for (const name of task.projection) {
    if (name === SEQ_COLUMN || name === ROW_ID_COLUMN) {
      const i = index.get(name === SEQ_COLUMN ? SEQ_FILE_COLUMN : ROW_ID_COLUMN)!;
      fields.push(new Field(name, new Int64(), false));
      children.push(b.data.children[i]!);
      continue;
    }
    const col: ColumnMetadata = task.columns.find((c) => c.name === name)!;
    const child = b.data.children[index.get(physicalName(col.fieldId))!]!;
    const field = arrowFieldOf({ name: col.name, type: col.type, fieldId: col.fieldId, nullable: col.nullable });
    // The field takes the data's own type: an unmerged numeric is Decimal64 where the
    // column's type says Decimal128, and whoever copies the batch by its schema (the
    // worker transfer) must lay out the values the data has.
    fields.push(field.type === child.type ? field : new Field(field.name, child.type, field.nullable, field.metadata));
    children.push(child);
  }
  return batchFromData(fields, children, b.numRows);
}
