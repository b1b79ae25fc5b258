import type { ConstraintModes } from './constraint-modes.js';
import { randomUUID } from 'node:crypto';
import type { RecordBatch } from 'apache-arrow';
import { FloeError, isFloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { endSpan, startSpan } from '../../common/latency-spans.js';
import { buildBatch } from '../arrow/batch-builder.js';
import { encodeKeyAccessors } from '../bucket/key-encoding.js';
import type { EncodedKeys } from '../bucket/key-encoding.js';
import { pickKeys, sameKey } from '../bucket/key-set.js';
import type { CommitRequest, FileRecord, NewFileRecord } from '../catalog/catalog.js';
import { HEAD_MOVED } from '../catalog/catalog.js';
import { checkNotNull, encodeDataFile, fileColumns, storeDataFile } from '../format/data-file-writer.js';
import { checkMergeEngineWrite, mergeEngineOf, mergesRows } from '../merge/merge-engine.js';
import type { EncodedFile, FilePlacement } from '../format/data-file-writer.js';
import { writableBranch } from '../refs/resolve-branch.js';
import type { Snapshot } from '../refs/snapshot.js';
import { toSnapshot } from '../refs/to-snapshot.js';
import { snapshotsSince } from '../refs/snapshots-since.js';
import { changelogProducer } from '../table/changelog-properties.js';
import { encodeKeyMoves, KEY_MOVES_SUMMARY } from '../table/key-moves.js';
import { KEYS_ADDED_OR_REMOVED_SUMMARY } from '../table/complete-changelog.js';
import { frontierByPartition } from '../table/frontier.js';
import type { FrontierNode } from '../table/frontier.js';
import { isKeyed, keyTypesOf } from '../table/table-layout.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import { nowMicros } from '../warehouse/lake-context.js';
import { keyBitmapOf, keyBitmapOfAll } from '../bucket/key-bitmap.js';
import { checkKeyConflicts } from './check-conflicts.js';
import { UniqueLedger } from './check-unique.js';
import { checkConcurrentInserts, checkUniqueInsert } from './check-unique-keys.js';
import { filesReadAt, filesWithRowsOf } from '../log/tiered-files.js';
import type { InsertedKeys } from './check-unique-keys.js';
import { KeyRangeFilter } from './key-range-filter.js';
import { lookupChangelogRows } from './lookup-changelog.js';
import type { ChangelogRows } from './lookup-changelog.js';
import type { BeginOptions, LakeTransaction, TxnIsolation, TxnSavepoint } from './lake-transaction.js';
import { gather, routeRows } from './route-rows.js';
import type { RoutedGroup } from './route-rows.js';
import { stagedFileIndex } from './staged-file-id.js';
import { deletesAtHead } from './deletes-at-head.js';
import { pendingDataFile } from '../log/pending-data-file.js';
import { coalescePendingFiles } from '../log/coalesce-pending-files.js';
import type { PendingDataFile } from '../log/pending-data-file.js';
import type { SubscriptionProgress } from '../subscription/subscription-metadata.js';
import type { MaterializedViewProgress } from '../table/materialized-view-metadata.js';

/** What one transaction has staged for one (table, branch). */
interface TableWrite {
  table: TableMetadata;
  readonly ref: string;
  /** The branch head when the transaction first touched it: its read snapshot. */
  readonly pinned: bigint;
  readonly frontier: Map<string, FrontierNode[]>;
  readonly files: NewFileRecord[];
  /** Data files staged in memory, for the log store to carry (stored as files only if something must read them). */
  readonly pending: PendingDataFile[];
  rmw: boolean;
  /** Key hashes of every statement, one array each (a Set is built only for the read-modify-write check). */
  readonly keyHashes: Uint32Array[];
  /** Append tables: deleted positions per file id. */
  readonly deletes: Map<number, Set<number>>;
  rows: number;
  /** Keys of checked inserts, checked again at commit against later commits. */
  readonly inserted: InsertedKeys[];
  /** Snapshots after the pinned one whose files the commit-time insert check has covered (snapshots-since.ts). */
  checkedSnapshots: Set<string> | undefined;
  /** UPDATEs that changed a key: offsets of each row's -D and +I, flat (key-moves.ts). */
  readonly keyMoves: number[];
  /** Change rows stored as +I or -D: under the lookup changelog, keys that appeared or went (KEYS_ADDED_OR_REMOVED_SUMMARY). */
  keysAddedOrRemoved: number;
}

/** What a TableWrite held when a savepoint was taken; a write first touched later has none. */
interface TableWriteMark {
  /**
   * The transaction's next row offset at the mark: staged files and in-memory rows from it
   * on came later. (Not counts: storing in-memory rows moves them into the files, and a
   * statement past the log's limit stores files while earlier rows are still in memory.)
   */
  readonly offset: number;
  readonly rows: number;
  readonly rmw: boolean;
  readonly keyHashes: number;
  readonly deletes: ReadonlyMap<number, ReadonlySet<number>>;
  readonly inserted: number;
  readonly keyMoves: number;
  readonly keysAddedOrRemoved: number;
}

const MAX_COMMIT_ATTEMPTS = 20;

export class LakeTransactionImpl implements LakeTransaction {
  readonly id: string;
  readonly seq: bigint;
  #state: 'open' | 'committed' | 'aborted' = 'open';
  readonly #ctx: LakeContext;
  readonly #writes = new Map<string, TableWrite>();
  #offset = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #savepoints: Map<string, TableWriteMark>[] = [];
  /** UNIQUE constraints: checked per write, re-checked at commit (check-unique.ts). */
  readonly #unique: UniqueLedger;
  readonly #isolation: TxnIsolation;
  /** Bytes of rows staged in memory across the transaction's writes (the log store's limit). */
  #pendingBytes = 0;
  /** readAtOrBefore: tables touched later pin their newest snapshot at or below this id. */
  #readBound: bigint | undefined;
  /** A subscription's position, committed with the data (recordSubscriptionProgress). */
  #progress: SubscriptionProgress | undefined;
  /** A materialized view's refresh, committed with its rows (recordViewRefresh). */
  #viewRefresh: MaterializedViewProgress | undefined;

  private constructor(ctx: LakeContext, id: string, seq: bigint, heartbeatMs: number, isolation: TxnIsolation, modes: ConstraintModes | undefined) {
    this.#ctx = ctx;
    this.#isolation = isolation;
    this.#unique = new UniqueLedger(modes);
    this.id = id;
    this.seq = seq;
    this.#timer = setInterval(() => {
      try { ctx.catalog.heartbeatTxn(id, nowMicros()); } catch { /* the next commit reports it */ }
    }, heartbeatMs);
    this.#timer.unref();
  }

  static begin(ctx: LakeContext, opts: BeginOptions = {}): LakeTransactionImpl {
    const started = startSpan();
    const id = randomUUID();
    const seq = ctx.catalog.beginTxn(id, process.pid, nowMicros(), BigInt(ctx.staleTransactionMs) * 250n);
    endSpan('lake.beginTxn', started);
    return new LakeTransactionImpl(ctx, id, seq, opts.heartbeatMs ?? Math.max(50, Math.floor(ctx.staleTransactionMs / 4)), opts.isolation ?? 'read committed', opts.constraintModes);
  }

  async setConstraintModes(modes: ConstraintModes): Promise<void> {
    this.#checkOpen();
    await this.#unique.setModes(this.#ctx, this, modes);
  }

  get state(): 'open' | 'committed' | 'aborted' {
    return this.#state;
  }

  #checkOpen(): void {
    if (this.#state !== 'open') {
      throw new FloeError(SqlState.invalidTransactionState, `transaction is already ${this.#state}`);
    }
  }

  /** The (table, branch) write state, pinning the branch head as the read snapshot on first touch. */
  #write(table: TableMetadata, ref: string): TableWrite {
    this.#checkOpen();
    const key = `${table.id}\u0000${ref}`;
    let w = this.#writes.get(key);
    if (w === undefined) {
      const head = writableBranch(this.#ctx.catalog, table, ref);
      const bound = this.#readBound;
      const pinned = bound === undefined || head.snapshotId <= bound
        ? head.snapshotId
        : this.#ctx.catalog.ancestors(table.id, head.snapshotId).find((id) => id <= bound) ?? head.snapshotId;
      w = {
        table, ref, pinned,
        frontier: frontierByPartition(this.#ctx.catalog.visibleFiles(table.id, head.snapshotId)),
        // Repeatable read and serializable: every write is checked against later commits (40001).
        files: [], pending: [], rmw: this.#isolation !== 'read committed', keyHashes: [], deletes: new Map(), rows: 0, inserted: [], checkedSnapshots: undefined,
        keyMoves: [], keysAddedOrRemoved: 0,
      };
      this.#writes.set(key, w);
    }
    return w;
  }

  readAtOrBefore(snapshotId: bigint): void {
    this.#checkOpen();
    this.#readBound = snapshotId;
  }

  /** Read snapshot of a branch inside this transaction (pins it). */
  pinnedSnapshot(table: TableMetadata, ref: string): bigint {
    return this.#write(table, ref).pinned;
  }

  /** Files staged but not committed, for reads inside this transaction (storePending first). */
  stagedFiles(tableId: number, ref: string): readonly NewFileRecord[] {
    const w = this.#writes.get(`${tableId}\u0000${ref}`);
    if (w !== undefined && w.pending.length > 0) {
      throw new FloeError(SqlState.internalError, `staged rows of table ${tableId} are read before they were stored`);
    }
    return w?.files ?? [];
  }

  /**
   * Stores the rows staged in memory for (table, branch) as data files, so a read inside
   * the transaction can plan over them. Reads are rare between a transaction's writes and
   * its commit; a commit carries staged rows in its log record without storing them.
   */
  async storePending(tableId: number, ref: string): Promise<void> {
    const w = this.#writes.get(`${tableId}\u0000${ref}`);
    if (w !== undefined) await this.#storePendingOf(w);
  }

  async #storePendingOf(w: TableWrite): Promise<void> {
    while (w.pending.length > 0) {
      const p = w.pending[0]!;
      const file = encodeDataFile(p.batch, w.table.columns);
      const placement = { partitionKey: p.file.partitionKey, partitionValues: p.file.partitionValues, node: { mask: p.file.nodeMask, index: p.file.nodeIndex } };
      w.files.push(await storeDataFile(this.#ctx.storage, w.table.id, { ...file, keyBitmap: p.file.keyBitmap }, placement, p.file.store, p.file.seq, p.file.firstOffset));
      w.pending.shift();
      this.#pendingBytes -= p.ipc.byteLength;
    }
  }

  stagedDeletes(tableId: number, ref: string): ReadonlyMap<number, ReadonlySet<number>> {
    return this.#writes.get(`${tableId}\u0000${ref}`)?.deletes ?? new Map();
  }

  async insert(table: TableMetadata, ref: string, columns: readonly (readonly unknown[])[]): Promise<void> {
    // A merge engine that combines rows takes every write as an upsert (as Paimon does): no key check.
    await this.#writeRows(table, ref, columns, undefined, isKeyed(table) && !mergesRows(mergeEngineOf(table)) ? 0 : undefined);
  }

  async upsert(table: TableMetadata, ref: string, columns: readonly (readonly unknown[])[]): Promise<void> {
    if (isKeyed(table) && changelogProducer(table) === 'lookup') await this.#writeLookedUp(table, ref, columns, undefined);
    else await this.#writeRows(table, ref, columns, undefined);
  }

  async deleteKeys(table: TableMetadata, ref: string, keyColumns: readonly (readonly unknown[])[]): Promise<void> {
    if (!isKeyed(table)) {
      throw new FloeError(SqlState.wrongObjectType, `table "${table.name}" has no primary key; delete its rows by row id`);
    }
    if (keyColumns.length !== table.primaryKey.length) {
      throw new FloeError(SqlState.syntaxError, `expected ${table.primaryKey.length} key columns, got ${keyColumns.length}`);
    }
    checkMergeEngineWrite(table, 'delete');
    const n = keyColumns[0]?.length ?? 0;
    const full = table.columns.map((c) => {
      const k = table.primaryKey.indexOf(c.name);
      return k >= 0 ? keyColumns[k]! : new Array<null>(n).fill(null);
    });
    const ops = new Array<string>(n).fill('-D');
    if (changelogProducer(table) === 'lookup') await this.#writeLookedUp(table, ref, full, ops);
    else await this.#writeRows(table, ref, full, ops);
  }

  /**
   * A blind write to a table whose changelog producer is `lookup`: each key's row before it
   * is looked up and stored with the change (lookup-changelog.ts).
   */
  async #writeLookedUp(table: TableMetadata, ref: string, columns: readonly (readonly unknown[])[], ops: readonly string[] | undefined): Promise<void> {
    this.#checkShape(table, columns);
    if (ops === undefined) checkNotNull(table.columns, columns, table.name);
    else checkNotNull(table.columns.filter((c) => table.primaryKey.includes(c.name)), table.columns.flatMap((c, i) => (table.primaryKey.includes(c.name) ? [columns[i]!] : [])), table.name);
    const rows = await this.#lookUp(table, ref, columns, ops);
    await this.#writeRows(table, ref, rows.columns, rows.ops);
  }

  /**
   * The changes rows (upserts, or '-D' deletes) make, with their before-images as this
   * transaction sees the table. Those are the pinned snapshot's, so the table's writes are
   * checked like read-modify-write ones: a later commit that wrote one of the keys fails
   * this commit with 40001.
   */
  async #lookUp(table: TableMetadata, ref: string, columns: readonly (readonly unknown[])[], ops: readonly string[] | undefined): Promise<ChangelogRows> {
    const w = this.#write(table, ref);
    w.rmw = true;
    if ((columns[0]?.length ?? 0) === 0) return { columns: table.columns.map(() => []), ops: [], sources: [] };
    await this.#storePendingOf(w);
    const { catalog, storage } = this.#ctx;
    const visible = filesReadAt(catalog, table.id, w.pinned, catalog.visibleFiles(table.id, w.pinned));
    return lookupChangelogRows(storage, table, { visible, staged: w.files, frontier: w.frontier }, columns, ops, this.seq);
  }

  async update(table: TableMetadata, ref: string, before: readonly (readonly unknown[])[], after: readonly (readonly unknown[])[]): Promise<void> {
    if (!isKeyed(table)) {
      throw new FloeError(SqlState.wrongObjectType, `table "${table.name}" has no primary key; update it by deleting row ids and inserting`);
    }
    this.#checkShape(table, before);
    this.#checkShape(table, after);
    const n = before[0]?.length ?? 0;
    if ((after[0]?.length ?? 0) !== n) throw new FloeError(SqlState.syntaxError, 'update needs as many after-images as before-images');
    if (n > 0) checkMergeEngineWrite(table, 'update');
    // A row whose key changes is a delete of the old key (with its before-image) and a
    // checked insert of the new one; the inserts go last, so their uniqueness is judged
    // at the end of the statement (SET id = id + 1 shifts every row).
    const keyIdx = table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k));
    const keysOf = (cols: readonly (readonly unknown[])[]): EncodedKeys =>
      encodeKeyAccessors(keyTypesOf(table), keyIdx.map((k) => ({ get: (i: number) => cols[k]![i] })), n, table.primaryKey);
    const bk = keysOf(before);
    const ak = keysOf(after);
    const moved: number[] = [];
    for (let i = 0; i < n; i++) if (!sameKey(bk, i, ak, i)) moved.push(i);
    if (moved.length > 0) checkMergeEngineWrite(table, 'moveKey');
    const width = 2 * n - moved.length;
    const cols = table.columns.map(() => new Array<unknown>(width));
    const ops = new Array<string>(width);
    let at = 0;
    const put = (src: readonly (readonly unknown[])[], i: number, op: string): void => {
      for (let c = 0; c < cols.length; c++) cols[c]![at] = src[c]![i];
      ops[at++] = op;
    };
    const isMoved = new Uint8Array(n);
    for (const i of moved) isMoved[i] = 1;
    if (changelogProducer(table) === 'lookup') {
      // The before-images are looked up as a blind write's are: the same rows as the statement
      // read, unless a younger transaction's write hides this one (then nothing is stored).
      const intent = table.columns.map((_, c) => Array.from({ length: n }, (_, i) => (isMoved[i] === 1 ? before : after)[c]![i]));
      const looked = await this.#lookUp(table, ref, intent, Array.from({ length: n }, (_, i) => (isMoved[i] === 1 ? '-D' : '+I')));
      // A moved row's -D is missing when its old key was hidden (lookup-changelog.ts): its +I stands alone.
      const deletedAt = new Map<number, number>();
      looked.ops.forEach((op, r) => { if (op === '-D') deletedAt.set(looked.sources[r]!, r); });
      const checkFrom = looked.ops.length;
      for (const i of moved) {
        for (let c = 0; c < cols.length; c++) looked.columns[c]!.push(after[c]![i]);
        looked.ops.push('+I');
      }
      const placed = await this.#writeRows(table, ref, looked.columns, looked.ops, moved.length > 0 ? checkFrom : undefined);
      this.#recordKeyMoves(table, ref, placed, moved.map((i, k) => [deletedAt.get(i), checkFrom + k]));
      return;
    }
    const deletedAt = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      if (isMoved[i] === 1) { deletedAt.set(i, at); put(before, i, '-D'); }
      else { put(before, i, '-U'); put(after, i, '+U'); }
    }
    const checkFrom = at;
    for (const i of moved) put(after, i, '+I');
    const placed = await this.#writeRows(table, ref, cols, ops, moved.length > 0 ? checkFrom : undefined);
    this.#recordKeyMoves(table, ref, placed, moved.map((i, k) => [deletedAt.get(i), checkFrom + k]));
  }

  /** Keeps the offsets of each moved row's -D and +I (`pairs`: their rows in the statement) for the commit's summary. */
  #recordKeyMoves(table: TableMetadata, ref: string, placed: PlacedRows | undefined, pairs: readonly (readonly [number | undefined, number])[]): void {
    if (placed === undefined || pairs.length === 0) return;
    const offsets = rowOffsets(placed);
    const w = this.#write(table, ref);
    for (const [d, i] of pairs) if (d !== undefined) w.keyMoves.push(offsets[d]!, offsets[i]!);
  }

  async deleteRows(table: TableMetadata, ref: string, rowIds: readonly bigint[]): Promise<void> {
    if (isKeyed(table)) {
      throw new FloeError(SqlState.wrongObjectType, `table "${table.name}" has a primary key; delete by key`);
    }
    const w = this.#write(table, ref);
    for (const id of rowIds) {
      if (typeof id !== 'bigint') throw new FloeError(SqlState.datatypeMismatch, 'row ids are int8 values');
      const fileId = Number(id >> 32n);
      const pos = Number(id & 0xffffffffn);
      let s = w.deletes.get(fileId);
      if (s === undefined) w.deletes.set(fileId, s = new Set());
      s.add(pos);
    }
  }

  releaseReadSnapshots(): void {
    for (const [key, w] of this.#writes) {
      if (w.files.length === 0 && w.pending.length === 0 && w.deletes.size === 0 && !w.rmw && w.rows === 0) this.#writes.delete(key);
    }
  }

  markReadModifyWrite(table: TableMetadata, ref: string): void {
    this.#write(table, ref).rmw = true;
  }

  #checkShape(table: TableMetadata, columns: readonly (readonly unknown[])[]): void {
    if (columns.length !== table.columns.length) {
      throw new FloeError(SqlState.syntaxError, `table "${table.name}" has ${table.columns.length} columns but ${columns.length} were supplied`);
    }
    const n = columns[0]?.length ?? 0;
    for (let c = 0; c < columns.length; c++) {
      if (!Array.isArray(columns[c]) || columns[c]!.length !== n) {
        throw new FloeError(SqlState.syntaxError, `column "${table.columns[c]!.name}" has ${columns[c]?.length} values, expected ${n}`);
      }
    }
  }

  /**
   * Validates and encodes every file of the statement before storing any, so bad input
   * leaves nothing behind; then stores them (durable, not yet visible).
   */
  async #writeRows(
    table: TableMetadata, ref: string, columns: readonly (readonly unknown[])[], ops: readonly string[] | undefined, checkFrom?: number,
  ): Promise<PlacedRows | undefined> {
    this.#checkShape(table, columns);
    const w = this.#write(table, ref);
    const n = columns[0]?.length ?? 0;
    if (n === 0) return undefined;
    const started = startSpan();
    try {
      return await this.#writeRowsOf(w, table, columns, ops, n, checkFrom);
    } finally {
      endSpan('lake.writeRows', started);
    }
  }

  async #writeRowsOf(
    w: TableWrite, table: TableMetadata, columns: readonly (readonly unknown[])[], ops: readonly string[] | undefined, n: number, checkFrom: number | undefined,
  ): Promise<PlacedRows> {
    const keyed = isKeyed(table);
    const keyIdx = table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k));
    if (ops === undefined) checkNotNull(table.columns, columns, table.name);
    else {
      checkNotNull(table.columns.filter((c) => table.primaryKey.includes(c.name)), keyIdx.map((i) => columns[i]!), table.name);
      const plus: number[] = [];
      for (let i = 0; i < n; i++) if (ops[i] === '+U' || ops[i] === '+I') plus.push(i);
      if (plus.length > 0) checkNotNull(table.columns, gather(columns, plus), table.name);
    }
    // Awaited only when there is work: every await ends the synchronous run, and the first
    // catalog read of each run pays PRAGMA data_version (sqlite-catalog.ts), so the insert
    // check below reads its files in the run that pinned them.
    if (hasUniqueConstraint(table)) await this.#unique.checkWrite(this.#ctx, this, table, w.ref, columns, ops);
    const keyTypes = keyTypesOf(table);
    // key hashes once per statement: routing, each file's key bitmap and the conflict set share them
    const keys = keyed ? encodeKeyAccessors(keyTypes, keyIdx.map((k) => ({ get: (i: number) => columns[k]![i] })), n, table.primaryKey) : undefined;
    const allHashes = keys?.hashes;
    const groups = routeRows(table, columns, n, keyed ? keyIdx : undefined, keyTypes, (p) => w.frontier.get(p), allHashes);
    if (keys !== undefined && checkFrom !== undefined && checkFrom < n) {
      if (w.pending.length > 0) await this.#storePendingOf(w);
      await this.#checkInserts(w, columns, ops, keys, keyIdx, groups, checkFrom);
    }
    const fcols = fileColumns(table.columns, table.primaryKey, keyed ? 'change' : 'append');
    const batches: { batch: RecordBatch; keyBitmap: Uint8Array | undefined; placement: FilePlacement }[] = [];
    for (const g of groups) {
      const vals = gather(columns, g.rows);
      if (keyed) {
        const rows = g.rows?.length ?? n;
        vals.push(ops === undefined ? new Array<string>(rows).fill('+I') : (g.rows === undefined ? ops : g.rows.map((i) => ops[i]!)));
      }
      let batch: RecordBatch;
      try {
        batch = buildBatch(fcols, vals);
      } catch (e) {
        throw withSqlNames(e, table);
      }
      const keyBitmap = keyed ? keyBitmapOf(g.rows === undefined ? allHashes! : Uint32Array.from(g.rows, (i) => allHashes![i]!)) : undefined;
      batches.push({ batch, keyBitmap, placement: g.placement });
    }
    if (allHashes !== undefined) w.keyHashes.push(allHashes);
    if (keyed) w.keysAddedOrRemoved += ops === undefined ? n : ops.reduce((t, op) => (op === '+I' || op === '-D' ? t + 1 : t), 0);
    const placed: PlacedRows = { firstOffset: this.#offset, groups, numRows: n };
    if (this.#stagesInMemory(table)) {
      const staged = batches.map((b, i) => pendingDataFile(keyed ? 'change' : 'base', b.batch, table.columns, b.placement, b.keyBitmap, this.seq,
        this.#offset + batches.slice(0, i).reduce((r, x) => r + x.batch.numRows, 0)));
      const bytes = staged.reduce((t, p) => t + p.ipc.byteLength, 0);
      if (this.#pendingBytes + bytes <= this.#ctx.log!.maxTransactionBytes) {
        for (const p of staged) {
          w.pending.push(p);
          this.#offset += p.file.rowCount;
          w.rows += p.file.rowCount;
        }
        this.#pendingBytes += bytes;
        return placed;
      }
    }
    const encoded = batches.map((b) => {
      const file = encodeDataFile(b.batch, table.columns);
      return { file: b.keyBitmap === undefined ? file : { ...file, keyBitmap: b.keyBitmap }, placement: b.placement };
    });
    for (const e of encoded) {
      const rec = await storeDataFile(this.#ctx.storage, table.id, e.file, e.placement, keyed ? 'change' : 'base', this.seq, this.#offset);
      this.#offset += e.file.rowCount;
      w.files.push(rec);
      w.rows += e.file.rowCount;
    }
    return placed;
  }

  /**
   * Tables whose writes commit through the log keep small statements' rows in memory:
   * a keyed table's as change files, an append table's as base files. Tables with UNIQUE
   * constraints do not: their checks plan reads over the transaction's staged files.
   */
  #stagesInMemory(table: TableMetadata): boolean {
    return this.#ctx.log !== undefined && !hasUniqueConstraint(table);
  }

  /** Rows [checkFrom, n) are inserts: 23505 when a key is live (check-unique-keys.ts); kept for the commit's check. */
  async #checkInserts(
    w: TableWrite, columns: readonly (readonly unknown[])[], ops: readonly string[] | undefined, keys: EncodedKeys,
    keyIdx: readonly number[], groups: readonly RoutedGroup[], checkFrom: number,
  ): Promise<void> {
    const n = keys.length;
    let partitionOf: (r: number) => string;
    if (groups.length === 1) {
      const only = groups[0]!.placement.partitionKey;
      partitionOf = () => only;
    } else {
      const parts = new Array<string>(n);
      for (const g of groups) for (const r of g.rows ?? []) parts[r] = g.placement.partitionKey;
      partitionOf = (r) => parts[r]!;
    }
    const keyValues = (r: number): unknown[] => keyIdx.map((k) => columns[k]![r]);
    const range = KeyRangeFilter.of(w.table.columns[keyIdx[0]!]!.type, columns[keyIdx[0]!]!.slice(checkFrom));
    await checkUniqueInsert(this.#ctx.storage, w.table, filesReadAt(this.#ctx.catalog, w.table.id, w.pinned, this.#ctx.catalog.visibleFiles(w.table.id, w.pinned)), w.files, w.frontier, {
      keys, checkFrom, ops, keyValues, range, partitionOf, seq: this.seq, firstOffset: this.#offset,
    });
    if (checkFrom === 0) w.inserted.push({ keys, keyValues, range });
    else {
      const rows = Int32Array.from({ length: n - checkFrom }, (_, i) => checkFrom + i);
      w.inserted.push({ keys: pickKeys(keys, rows), keyValues: (r) => keyValues(checkFrom + r), range });
    }
  }

  recordSubscriptionProgress(p: SubscriptionProgress): void {
    this.#checkOpen();
    this.#progress = p;
  }

  recordViewRefresh(p: MaterializedViewProgress): void {
    this.#checkOpen();
    this.#viewRefresh = p;
  }

  savepoint(): TxnSavepoint {
    this.#checkOpen();
    const marks = new Map<string, TableWriteMark>();
    for (const [key, w] of this.#writes) {
      marks.set(key, {
        offset: this.#offset, rows: w.rows, rmw: w.rmw, keyHashes: w.keyHashes.length, inserted: w.inserted.length, keyMoves: w.keyMoves.length,
        keysAddedOrRemoved: w.keysAddedOrRemoved,
        deletes: new Map([...w.deletes].map(([f, ps]) => [f, new Set(ps)])),
      });
    }
    this.#savepoints.push(marks);
    this.#unique.mark();
    return { txnId: this.id, ordinal: this.#savepoints.length - 1 };
  }

  async rollbackTo(mark: TxnSavepoint | undefined): Promise<void> {
    this.#checkOpen();
    if (mark !== undefined && (mark.txnId !== this.id || this.#savepoints[mark.ordinal] === undefined)) {
      throw new FloeError(SqlState.invalidTransactionState, 'savepoint does not belong to this transaction');
    }
    const marks = mark === undefined ? new Map<string, TableWriteMark>() : this.#savepoints[mark.ordinal]!;
    this.#savepoints.length = mark === undefined ? 0 : mark.ordinal + 1;
    this.#unique.rollbackTo(mark?.ordinal);
    const dropped: NewFileRecord[] = [];
    for (const [key, w] of this.#writes) {
      const m = marks.get(key);
      // The entry itself stays: it pins the read snapshot, which a rollback to a savepoint keeps.
      const later = (firstOffset: number) => m === undefined || firstOffset >= m.offset;
      dropped.push(...w.files.filter((f) => later(f.firstOffset)));
      w.files.splice(0, w.files.length, ...w.files.filter((f) => !later(f.firstOffset)));
      for (const p of w.pending.filter((x) => later(x.file.firstOffset))) this.#pendingBytes -= p.ipc.byteLength;
      w.pending.splice(0, w.pending.length, ...w.pending.filter((x) => !later(x.file.firstOffset)));
      w.rows = m?.rows ?? 0;
      w.rmw = m?.rmw ?? this.#isolation !== 'read committed';
      w.inserted.length = m?.inserted ?? 0;
      w.keyHashes.length = m?.keyHashes ?? 0;
      w.keyMoves.length = m?.keyMoves ?? 0;
      w.keysAddedOrRemoved = m?.keysAddedOrRemoved ?? 0;
      w.deletes.clear();
      for (const [f, ps] of m?.deletes ?? []) w.deletes.set(f, new Set(ps));
    }
    // Offsets only grow, so rows staged after this still order after everything kept.
    for (const f of dropped) await this.#ctx.storage.delete(f.path).catch(() => undefined);
  }

  async commit(): Promise<Snapshot | undefined> {
    this.#checkOpen();
    this.#stopHeartbeat();
    const writes = [...this.#writes.values()].filter((w) => w.files.length > 0 || w.pending.length > 0 || w.deletes.size > 0);
    const { catalog } = this.#ctx;
    try {
      if (writes.length === 0) {
        if (this.#progress !== undefined) catalog.recordSubscriptionProgress(this.#progress, nowMicros());
        if (this.#viewRefresh !== undefined) catalog.recordMaterializedViewProgress(this.#viewRefresh);
        catalog.endTxn(this.id, nowMicros());
        this.#state = 'committed';
        return undefined;
      }
      const commitStarted = performance.now();
      await this.#unique.checkDeferred(this.#ctx, this);
      const inline = writes.map((w) => coalescePendingFiles(w.pending, w.table.columns));
      for (let attempt = 1; ; attempt++) {
        let started = startSpan();
        const requests: CommitRequest[] = [];
        for (const [i, w] of writes.entries()) requests.push(await this.#request(w, inline[i]!.length));
        // One request carries the position: the whole commit is one catalog transaction (or one logged record).
        if (this.#progress !== undefined) requests[requests.length - 1] = { ...requests[requests.length - 1]!, subscriptionProgress: this.#progress };
        if (this.#viewRefresh !== undefined) requests[requests.length - 1] = { ...requests[requests.length - 1]!, viewRefresh: this.#viewRefresh };
        endSpan('lake.commit.request', started);
        started = startSpan();
        try {
          const { log } = this.#ctx;
          const snaps = log === undefined
            ? catalog.commit(requests, this.id, nowMicros())
            : await log.commit({
              txnId: this.id, seq: this.seq,
              parts: requests.map((request, i) => {
                const w = writes[i]!;
                // Its checks (a keyed table's keys, an append table's files it deletes from, the values
                // its UNIQUE constraints hold) may be rebased in the group commit past commits that
                // touched none of them.
                return isKeyed(w.table)
                  ? { request, inline: inline[i]!, rebaseKeys: this.#rebaseKeys(w) }
                  : { request, inline: inline[i]!, rebaseKeys: this.#rebaseKeys(w, request), byRowId: true };
              }),
            });
          this.#state = 'committed';
          endSpan('lake.commit.apply', started);
          this.#ctx.commitObserver?.committed({
            seconds: (performance.now() - commitStarted) / 1000, rows: writes.reduce((n, w) => n + w.rows, 0), tables: writes.length,
          });
          return toSnapshot(snaps[snaps.length - 1]!);
        } catch (e) {
          if (isFloeError(e) && e.detail === HEAD_MOVED && attempt < MAX_COMMIT_ATTEMPTS) continue;
          throw e;
        }
      }
    } catch (e) {
      // A log that failed to write may still hold this commit's record, which a replay
      // would apply: its stored files must outlive it (orphan cleanup takes them if not).
      await this.#discard(isFloeError(e) && e.sqlstate === SqlState.ioError);
      throw e;
    }
  }

  /**
   * What a rebase compares (LogCommitPart.rebaseKeys): a keyed table's written keys; an
   * append table's files whose deletion vectors the request replaces (a pure append has
   * none: it touches no existing row); plus the unique values written when the table has
   * UNIQUE constraints.
   */
  #rebaseKeys(w: TableWrite, appendRequest?: CommitRequest): readonly Uint32Array[] {
    const own = appendRequest === undefined ? w.keyHashes : [dvTargetsOf(appendRequest)];
    return hasUniqueConstraint(w.table) ? [...own, this.#unique.writtenValueHashes(w.table, w.ref)] : own;
  }

  /** `inlineFiles`: how many files the log record carries for this write (coalescePendingFiles). */
  async #request(w: TableWrite, inlineFiles: number): Promise<CommitRequest> {
    const { catalog, storage } = this.#ctx;
    const current = catalog.getTableById(w.table.id);
    if (current === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${w.table.name}" was dropped`);
    // ADD PRIMARY KEY / dropping it rewrote the table in another layout since this transaction wrote.
    if (current.primaryKey.join('\u0000') !== w.table.primaryKey.join('\u0000')) {
      throw new FloeError(SqlState.serializationFailure, `could not serialize access: the primary key of "${w.table.name}" changed`, { hint: 'Retry the transaction.' });
    }
    const head = writableBranch(catalog, w.table, w.ref).snapshotId;
    const addFiles: NewFileRecord[] = [...w.files];
    const removeFileIds: number[] = [];
    let expectHead: bigint | undefined;
    // Row ids name files as the transaction read them; a compaction may have moved the rows since.
    const visible = w.deletes.size > 0 ? catalog.visibleFiles(w.table.id, head) : [];
    const { deletes, deletedSince } = deletesAtHead(catalog, w.table.id, visible, w.deletes);
    if (w.rmw) {
      const written = new Set<number>();
      for (const hs of w.keyHashes) for (const h of hs) written.add(h);
      await checkKeyConflicts(catalog, storage, w.table, w.pinned, head, written, deletedSince);
      expectHead = head;
    }
    if (w.inserted.length > 0) {
      // Inserts are checked again against what committed since: a moved head fails the
      // commit with HEAD_MOVED, and the retry checks the newer snapshots too.
      const checked = w.checkedSnapshots ??= new Set();
      const newer = snapshotsSince(catalog, w.table.id, head, w.pinned, checked);
      const writes = newer.filter((s) => catalog.getSnapshot(w.table.id, s)?.operation !== 'optimize');
      if (writes.length > 0) await checkConcurrentInserts(storage, w.table, filesWithRowsOf(catalog, w.table.id, writes), w.inserted, this.seq);
      for (const s of newer) checked.add(String(s));
      expectHead = head;
    }
    if (await this.#unique.checkCommit(this.#ctx, w.table, w.ref, w.pinned, head)) expectHead = head;
    if (w.deletes.size > 0) {
      // A deletion vector replaces the file's previous one, so it is merged at the head
      // and the commit insists on that head (retried when it moved).
      expectHead = head;
      const byId = new Map<number, FileRecord>(visible.map((f) => [f.fileId, f]));
      for (const [fileId, positions] of deletes) {
        const staged = stagedFileIndex(fileId);
        const target = staged === undefined ? byId.get(fileId) : w.files[staged];
        if (target === undefined || target.store !== 'base') {
          throw new FloeError(SqlState.serializationFailure, `row ids of data file ${fileId} are no longer valid`, { hint: 'Retry the transaction.' });
        }
        const merged = new Set(positions);
        for (const dv of staged === undefined ? visible : []) {
          if (dv.store === 'dv' && dv.dvTarget === fileId) {
            for (const p of dv.dvPositions ?? []) merged.add(p);
            removeFileIds.push(dv.fileId);
          }
        }
        const arr = Uint32Array.from([...merged].filter((p) => p < target.rowCount).sort((a, b) => a - b));
        addFiles.push({
          store: 'dv', path: '', partitionKey: target.partitionKey, partitionValues: target.partitionValues,
          nodeMask: target.nodeMask, nodeIndex: target.nodeIndex, rowCount: arr.length, sizeBytes: arr.byteLength,
          seq: this.seq, firstOffset: 0, stats: {}, dvTarget: fileId, dvPositions: arr, rowGroups: undefined, keyBitmap: undefined,
        });
      }
    }
    // A keyed write whose checks rest on its keys alone may commit past other writers'
    // commits of other keys, from any process (CommitRequest.rebaseKeyBitmap).
    const rebaseKeyBitmap = expectHead !== undefined && isKeyed(w.table) && w.deletes.size === 0 && !hasUniqueConstraint(w.table)
      ? keyBitmapOfAll(w.keyHashes) : undefined;
    const rows = w.rows;
    return {
      tableId: w.table.id, branch: w.ref, operation: isKeyed(w.table) ? 'write' : (w.deletes.size > 0 ? 'delete' : 'append'),
      summary: {
        'added-files': String(w.files.length + inlineFiles), 'added-rows': String(rows), seq: String(this.seq),
        // Readers of the changelog (a publication) learn from the commit, not the table's current property, what its rows hold.
        ...(isKeyed(w.table) && changelogProducer(w.table) === 'lookup'
          ? { 'changelog-producer': 'lookup', [KEYS_ADDED_OR_REMOVED_SUMMARY]: String(w.keysAddedOrRemoved) } : {}),
        // A publication sends each pair as one UPDATE, as PostgreSQL does (key-moves.ts).
        ...keyMovesSummary(w.keyMoves),
      },
      schemaId: current.schemaId, addFiles, removeFileIds, ...(expectHead === undefined ? {} : { expectHead }),
      ...(rebaseKeyBitmap === undefined ? {} : { rebaseKeyBitmap }),
    };
  }

  async abort(): Promise<void> {
    if (this.#state !== 'open') return;
    this.#stopHeartbeat();
    await this.#discard();
  }

  #stopHeartbeat(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #discard(keepFiles = false): Promise<void> {
    this.#state = 'aborted';
    try { this.#ctx.catalog.endTxn(this.id, nowMicros()); } catch { /* a stale sweep may have removed it */ }
    // Staged files are not referenced by any snapshot; delete them now rather than
    // waiting for orphan cleanup. Failure here only leaves orphans.
    if (keepFiles) return;
    for (const w of this.#writes.values()) {
      for (const f of w.files) await this.#ctx.storage.delete(f.path).catch(() => undefined);
    }
  }
}

/** Where one #writeRows call put its rows: its groups, stored one after another from `firstOffset`, each in input order. */
interface PlacedRows {
  readonly firstOffset: number;
  readonly groups: readonly RoutedGroup[];
  readonly numRows: number;
}

/** Each input row's offset in the transaction. */
function rowOffsets(p: PlacedRows): Float64Array {
  const out = new Float64Array(p.numRows);
  let next = p.firstOffset;
  for (const g of p.groups) {
    if (g.rows === undefined) for (let r = 0; r < p.numRows; r++) out[r] = next++;
    else for (const r of g.rows) out[r] = next++;
  }
  return out;
}

function keyMovesSummary(pairs: readonly number[]): Record<string, string> {
  const text = encodeKeyMoves(pairs);
  return text === undefined ? {} : { [KEY_MOVES_SUMMARY]: text };
}

function hasUniqueConstraint(table: TableMetadata): boolean {
  return table.constraints?.some((c) => c.kind === 'unique') ?? false;
}

/** Errors from building a file batch name physical columns ("c3"); users need SQL names. */
function withSqlNames(e: unknown, table: TableMetadata): unknown {
  if (!isFloeError(e)) return e;
  const message = e.message.replace(/"c(\d+)"/g, (m, id: string) => {
    const col = table.columns.find((c) => c.fieldId === Number(id));
    return col === undefined ? m : `"${col.name}"`;
  });
  return new FloeError(e.sqlstate, message, { detail: e.detail, hint: e.hint, cause: e });
}

/** The committed files an append table's request puts a new deletion vector on (its own staged files are nobody else's). */
function dvTargetsOf(request: CommitRequest): Uint32Array {
  const targets: number[] = [];
  for (const f of request.addFiles) if (f.store === 'dv' && f.dvTarget !== undefined && f.dvTarget > 0) targets.push(f.dvTarget);
  return Uint32Array.from(targets);
}
