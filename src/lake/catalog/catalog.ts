import type { SequenceMetadata, SequenceOwner, SequenceParameters } from '../sequence/sequence-metadata.js';
import type {
  NewOptimizingRun, OptimizerGroup, OptimizerRecord, OptimizingRun, OptimizingTableState, SchedulingPolicy,
} from '../optimize/optimizing-records.js';
import type { ColumnMetadata, TableConstraint, TableMetadata } from '../table/table-metadata.js';
import type { RelationComment, ViewDefinition, ViewMetadata } from '../table/view-metadata.js';
import type { MaterializedViewDefinition, MaterializedViewMetadata, MaterializedViewProgress } from '../table/materialized-view-metadata.js';
import type { UserTypeMetadata } from '../table/user-type-metadata.js';
import type { EnumLabelPosition } from '../table/alter-enum-labels.js';
import type { ReplicationCatalog } from '../replication/replication-catalog.js';
import type { RoleCatalog } from '../security/role-catalog.js';
import type { PrivilegeCatalog } from '../security/object-acl.js';
import type { RowPolicyCatalog } from '../security/row-policies.js';
import type {
  NewSubscription, SubscriptionMetadata, SubscriptionPatch, SubscriptionProgress, SubscriptionRunner, SubscriptionStatus,
} from '../subscription/subscription-metadata.js';

/**
 * The narrow catalog interface: everything src/lake keeps in a database goes through
 * it, so a PostgreSQL catalog can replace SQLite without touching callers. Each method
 * is one database transaction; `commit` is the only write path for snapshots and files.
 * It is synchronous because better-sqlite3 is; a networked catalog would sit behind a
 * synchronous cache for reads, and commits are the only calls on hot paths.
 */
/** FloeError detail of a commit whose expected branch head moved: the caller may re-check and retry. */
export const HEAD_MOVED = 'branch head moved';
/**
 * FloeError detail of applyLoggedCommits refused because the writer's row is gone or has
 * applied past the first commit: another process replayed its log (its heartbeat lapsed).
 */
export const LOG_WRITER_TAKEN_OVER = 'log writer taken over';

/** The catalog's row for a table: the public metadata plus the next field id to hand out. */
export interface TableRecord extends TableMetadata {
  readonly nextFieldId: number;
}

/** What updateTable may change; a change of columns writes a new schema version. */
export interface TablePatch {
  readonly name?: string;
  readonly columns?: readonly ColumnMetadata[];
  readonly properties?: Readonly<Record<string, string>>;
  readonly constraints?: readonly TableConstraint[];
  readonly nextFieldId?: number;
  /** ALTER TABLE … SET SCHEMA: the table and the sequences it owns move together. */
  readonly namespace?: string;
}

export interface SnapshotRecord {
  readonly tableId: number;
  readonly id: bigint;
  readonly parentId: bigint | undefined;
  readonly branch: string;
  readonly committedAtMicros: bigint;
  readonly operation: string;
  readonly summary: Readonly<Record<string, string>>;
  readonly schemaId: number;
  /** Expired snapshots stay as lineage links (files name them in added_in) but cannot be read. */
  readonly expired: boolean;
  /** Set when expired ancestors were merged into this snapshot: the oldest commit time among them. */
  readonly squashedFromMicros?: bigint;
}

/** Snapshot ids from `from` through `to`; with `limit`, only the first `limit` unexpired snapshots among them. */
export interface SnapshotIdRange {
  readonly from: bigint;
  readonly to: bigint;
  readonly limit?: number;
}

export interface RefRecord {
  readonly tableId: number;
  readonly name: string;
  readonly kind: 'branch' | 'tag';
  readonly snapshotId: bigint;
  readonly retainMicros: bigint | undefined;
}

/**
 * A data-file row. store 'base' rows with path '' and rowCount 0 mark an empty
 * frontier node; store 'dv' rows are deletion vectors of an append-table file
 * (dvTarget) and carry the deleted positions inline.
 */
export interface FileRecord {
  readonly fileId: number;
  readonly tableId: number;
  readonly store: 'change' | 'base' | 'dv';
  readonly path: string;
  readonly partitionKey: string;
  readonly partitionValues: readonly unknown[];
  readonly nodeMask: number;
  readonly nodeIndex: number;
  readonly rowCount: number;
  readonly sizeBytes: number;
  /** Change file: its transaction's seq. Base file: every change below this seq is folded in. */
  readonly seq: bigint;
  readonly firstOffset: number;
  /** JSON-encoded per-column stats (encodeStatValue form), keyed by column name. */
  readonly stats: Readonly<Record<string, FileColumnStats>>;
  /** In a commit request, a negative target names a file the same request adds (src/lake/txn/staged-file-id.ts). */
  readonly dvTarget: number | undefined;
  readonly dvPositions: Uint32Array | undefined;
  /**
   * Base files of keyed tables are sorted by the bit-reversed key hash (so every bucket
   * node is a contiguous range); per row group, the [min, max] reversed hash. A point
   * read by full key decodes only the row groups whose range holds its hash.
   */
  readonly rowGroups: readonly (readonly [number, number])[] | undefined;
  /** Change files: a 4096-bit set of the top 12 bits of every key hash (see key-bitmap.ts). */
  readonly keyBitmap: Uint8Array | undefined;
  readonly addedIn: bigint;
  /**
   * A tiered change file (the log store's tiering) holds rows of several commits: these
   * snapshots, oldest first (addedIn is the first). Its rows carry `_seq` and `_snapshot`;
   * a read at a snapshot that does not descend from all of them keeps only the rows of
   * its ancestors. Absent for every other file.
   */
  readonly snapshots?: readonly bigint[];
}

/** One column's stats in a file row. */
export interface FileColumnStats {
  readonly min: unknown;
  readonly max: unknown;
  readonly nullCount: number;
  /** An indexed column's value filter (src/lake/stats/value-bloom.ts); absent: no filter, the file may hold any value. */
  readonly bloom?: string;
}

export type NewFileRecord = Omit<FileRecord, 'fileId' | 'tableId' | 'addedIn'>;

export interface CommitRequest {
  readonly tableId: number;
  readonly branch: string;
  readonly operation: string;
  readonly summary: Readonly<Record<string, string>>;
  readonly schemaId: number;
  /** Read-modify-write: the commit fails (40001) unless the branch head is still this snapshot. */
  readonly expectHead?: bigint;
  /**
   * applyLoggedCommits only: expectHead also holds when the head has moved from it only by
   * earlier commits of the same call on this branch (the log store's group commit sets it
   * when none of those wrote a key this one writes, so the checks made against expectHead
   * still hold).
   */
  readonly rebaseWithinBatch?: boolean;
  /**
   * The key bitmap (key-bitmap.ts) of every key a keyed table's commit writes, when its
   * checks against expectHead depend on those keys alone. expectHead then also holds when
   * each snapshot since it on the branch, whichever process made it, is an optimize or only
   * added change files whose key bitmaps share no bit with this one: they touched none of
   * its keys, so its checks still hold at the newer head. Logged, so a replay judges alike.
   */
  readonly rebaseKeyBitmap?: Uint8Array;
  readonly addFiles: readonly NewFileRecord[];
  readonly removeFileIds: readonly number[];
  /** Files that must still be visible at the head (optimizer): otherwise OptimizerConflict. */
  readonly requireVisible?: readonly number[];
  /**
   * A snapshot on the branch at which every requireVisible file was visible (the one the
   * optimizer read). The check then reads only the removals made since it, not the whole
   * lineage; when it is no longer an ancestor of the head (a rollback, or expiry squashed
   * it) the check reads the lineage as without it.
   */
  readonly requireVisibleSince?: bigint;
  /** Append-table compaction: where each replaced file's rows went, kept so older row ids still translate. */
  readonly replacements?: readonly FileReplacement[];
  /**
   * A subscription's position, stored in the same database transaction as the files (and
   * logged with them, so a replay stores it too): CDC in is exactly once through this.
   */
  readonly subscriptionProgress?: SubscriptionProgress;
  /** A materialized view's refresh: its positions move with its rows, and only from the generation it read (40001 otherwise). */
  readonly viewRefresh?: MaterializedViewProgress;
}

/**
 * Where the rows of an append-table file went when a compaction rewrote it: all of them,
 * in order, into one output file starting at `outputOffset`, except the positions in
 * `dropped` (deleted when the compaction read the file). Position p, not dropped, is
 * output position outputOffset + p − |dropped below p| (replaced-position.ts). A writer
 * whose row ids predate the compaction commits its deletes through this.
 */
export interface FileReplacement {
  readonly fileId: number;
  /** The output file; in a commit request a negative id names a file the request adds (staged-file-id.ts); 0: every row was dropped. */
  readonly outputFileId: number;
  readonly outputOffset: number;
  /** Ascending. */
  readonly dropped: Uint32Array;
}

/** Files a swap in place needs unchanged since they were read: none removed by a snapshot newer than `notRemovedAfter`. */
export interface LiveFilesRequirement {
  readonly fileIds: readonly number[];
  /** The newest snapshot id of the table when they were read: later snapshots are later commits. */
  readonly notRemovedAfter: bigint;
}

/** A commit the log store made durable in its log and now applies to the catalog. */
export interface LoggedCommit {
  readonly requests: readonly CommitRequest[];
  readonly txnId: string | undefined;
  /** Its log record, recorded on its snapshots. */
  readonly lsn: bigint;
}

export type LoggedCommitOutcome =
  | { readonly ok: true; readonly snapshots: SnapshotRecord[] }
  | { readonly ok: false; readonly error: unknown };

/** A process writing through its own log (docs/design-notes.md, "Log store"). */
export interface LogWriterRecord {
  readonly id: string;
  readonly pid: number;
  readonly host: string;
  readonly heartbeatMicros: bigint;
  /** The end of the last record of its log applied to the catalog. */
  readonly appliedLsn: bigint;
}

export interface TxnRecord {
  readonly id: string;
  readonly seq: bigint;
  readonly startedMicros: bigint;
  readonly heartbeatMicros: bigint;
  readonly pid: number;
}

/** A sequence row: its metadata plus a generation that moves whenever values held in a process's block become stale. */
export interface SequenceRecord extends SequenceMetadata {
  readonly generation: number;
}

export interface NewSequence {
  readonly namespace: string;
  readonly name: string;
  readonly params: SequenceParameters;
  readonly ownedBy?: SequenceOwner;
}

/** What updateSequence may change; params or restartAt move the generation (blocks held elsewhere are dropped). */
export interface SequencePatch {
  readonly name?: string;
  readonly params?: SequenceParameters;
  /** The value the next nextval returns (RESTART). */
  readonly restartAt?: bigint;
  readonly ownedBy?: SequenceOwner | null;
}

export interface Catalog {
  readonly kind: string;

  listNamespaces(): string[];
  createNamespace(name: string, ifNotExists: boolean): void;
  /** Returns the ids of tables dropped by cascade. */
  dropNamespace(name: string, ifExists: boolean, cascade: boolean): number[];

  createTable(t: Omit<TableRecord, 'id' | 'schemaId'>, nowMicros: bigint, ifNotExists: boolean): { table: TableRecord; created: boolean };
  getTable(namespace: string, name: string): TableRecord | undefined;
  getTableById(id: number): TableRecord | undefined;
  listTables(namespace?: string): TableRecord[];
  /** Writes a new schema version when columns change. */
  updateTable(id: number, patch: TablePatch): TableRecord;
  dropTable(id: number): void;

  getSnapshot(tableId: number, id: bigint): SnapshotRecord | undefined;
  /**
   * The table's snapshots in id order; with `ids`, only those in the range, found by id, so
   * the read costs what the range holds, not the table's history (a change feed's poll).
   */
  listSnapshots(tableId: number, ids?: SnapshotIdRange): SnapshotRecord[];
  /** The greatest snapshot id of the table (ids are handed out in commit order, across tables). */
  newestSnapshotId(tableId: number): bigint | undefined;
  /** id and its parents, newest first. */
  ancestors(tableId: number, id: bigint): bigint[];
  getRef(tableId: number, name: string): RefRecord | undefined;
  listRefs(tableId: number): RefRecord[];
  /** The head snapshot of branch `branch` of every table that has one, by table id: one read for what getRef would take one per table. */
  branchHeads(branch: string): ReadonlyMap<number, bigint>;
  /**
   * Each table's file epoch, by table id (absent: 0): it moves whenever the table's file rows
   * change other than by a new snapshot (tiering's and change compaction's in-place swaps,
   * expiry). One read for all tables, as branchHeads.
   */
  fileEpochs(): ReadonlyMap<number, number>;
  /** Creates or moves a ref; `expect` guards a move against a concurrent one. */
  putRef(ref: RefRecord, opts: { mustNotExist?: boolean; expect?: bigint }): void;
  deleteRef(tableId: number, name: string): boolean;

  /**
   * Registers a transaction and returns its seq. On SQLite the seq may come from this
   * catalog's lease (seq-lease.ts) without a write, while its row was written within
   * `freshMicros` (a quarter of the stale-transaction timeout).
   */
  beginTxn(id: string, pid: number, nowMicros: bigint, freshMicros?: bigint): bigint;
  heartbeatTxn(id: string, nowMicros: bigint): boolean;
  /** Ends a transaction without a commit; `nowMicros` stamps what the end writes (a lease's row). */
  endTxn(id: string, nowMicros: bigint): void;
  listTxns(): TxnRecord[];
  /** Aborts (removes) transactions whose heartbeat is older than the cut-off; returns their ids. */
  abortStaleTxns(cutoffMicros: bigint): string[];
  /** The smallest start seq of any open transaction, or the next seq when none is open. */
  lowWatermark(): bigint;

  visibleFiles(tableId: number, snapshotId: bigint): FileRecord[];
  /** Files added by exactly these snapshots. */
  filesAddedIn(tableId: number, snapshotIds: readonly bigint[]): FileRecord[];
  allFiles(tableId: number): FileRecord[];
  /** Every file row of the table that lists the commits it holds (a tiered file), removed ones included. */
  tieredFiles(tableId: number): FileRecord[];
  /** Paths of every file row of the table (for orphan cleanup). */
  allFilePaths(tableId: number): Set<string>;
  /** Every recorded replacement of these files (one per compaction, on any branch, that rewrote them). */
  fileReplacements(tableId: number, fileIds: readonly number[]): FileReplacement[];

  /** One database transaction for all requests; txnId (if given) must still be registered and is removed. */
  commit(requests: readonly CommitRequest[], txnId: string | undefined, nowMicros: bigint): SnapshotRecord[];
  /**
   * A table rewritten in a new layout (rewrite-table-layout.ts), in one database transaction:
   * the table's primary key and columns change (a new schema version), `request` swaps its
   * files on main, and every earlier snapshot of the table is expired (they hold files of the
   * old layout). Fails like commit (40001 when main's head is no longer request.expectHead).
   */
  rewriteTable(tableId: number, change: { readonly primaryKey: readonly string[]; readonly columns: readonly ColumnMetadata[] }, request: CommitRequest, txnId: string, nowMicros: bigint): TableRecord;

  // The log store (src/lake/log). Log-writer rows, begin/heartbeat/end of transactions and
  // applyLoggedCommits run under synchronous=NORMAL on SQLite: the log, not the catalog, makes them durable.
  registerLogWriter(w: { id: string; pid: number; host: string }, nowMicros: bigint): void;
  heartbeatLogWriter(id: string, nowMicros: bigint): boolean;
  listLogWriters(): LogWriterRecord[];
  dropLogWriter(id: string): void;
  /**
   * One database transaction: each commit in order, in a savepoint of its own; one that
   * fails (its expected head moved, its transaction was aborted) is rolled back alone and
   * reported. The writer's applied LSN becomes `appliedLsn` whatever the outcomes.
   * Throws (55000, detail LOG_WRITER_TAKEN_OVER), applying nothing, when the writer's row
   * is gone or its applied LSN is past the first commit's: so two processes replaying one
   * log, or a replay racing a writer whose heartbeat lapsed, never apply a record twice.
   */
  applyLoggedCommits(writerId: string, commits: readonly LoggedCommit[], appliedLsn: bigint, nowMicros: bigint): LoggedCommitOutcome[];
  /** Replay: the next seq handed out is at least `seq`. */
  raiseNextSeq(seq: bigint): void;
  /**
   * Tiering: swaps file rows for one new file in place, adding no snapshot. Undefined
   * (and nothing changed) when any of them is gone or was removed at some snapshot, when a
   * replaced row's added_in is no longer one of the new file's commits (`add.snapshots`,
   * else `addedIn`: an expiry squashed it meanwhile), or when a file of `requireLive` is
   * gone or was removed by a snapshot newer than its `notRemovedAfter`.
   */
  /**
   * Replaces the stats of existing file rows (CREATE INDEX adds its value filters to the
   * files already there); the rows stay the same files of the same snapshots.
   */
  setFileStats(tableId: number, updates: readonly { readonly fileId: number; readonly stats: Readonly<Record<string, FileColumnStats>> }[]): void;
  replaceFilesInPlace(
    tableId: number, removeFileIds: readonly number[], add: NewFileRecord, addedIn: bigint, requireLive?: LiveFilesRequirement,
  ): FileRecord | undefined;
  /** Paths of every file row (any table) starting with `prefix`: which log segments are still read. */
  filePathsWithPrefix(prefix: string): string[];
  /**
   * The least path of any file row (any table) starting with `prefix`: the oldest log
   * segment still read, as segment names sort by their first LSN. Removed files count
   * until expiry deletes their rows (time travel still reads them).
   */
  oldestFilePathWithPrefix(prefix: string): string | undefined;

  /** Marks snapshots expired and deletes file rows nothing can read any more (and replacements nobody can need). */
  expire(tableId: number, snapshotIds: readonly bigint[], deleteFileIds: readonly number[]): void;
  fileRemovals(tableId: number): { fileId: number; snapshotId: bigint }[];
  /** True for a snapshot that expired and was then squashed out of the lineage. */
  wasSnapshotExpired(tableId: number, id: bigint): boolean;

  /** Sequences share the relation namespace with tables (42P07) and their oids with table ids. */
  createSequence(s: NewSequence, ifNotExists: boolean): { sequence: SequenceRecord | undefined; created: boolean };
  getSequence(namespace: string, name: string): SequenceRecord | undefined;
  getSequenceById(id: number): SequenceRecord | undefined;
  listSequences(namespace?: string): SequenceRecord[];
  updateSequence(id: number, patch: SequencePatch): SequenceRecord;
  dropSequence(id: number): void;
  /**
   * Hands the caller up to `count` values after the sequence's last one, in one database
   * transaction that records the last of them as used: no other caller, in this process or
   * another, can get them again. 2200H past a bound without CYCLE.
   */
  reserveSequenceValues(id: number, count: number): { values: bigint[]; generation: number };
  /** setval: the last value and whether it was used; moves the generation. */
  setSequenceValue(id: number, value: bigint, isCalled: boolean): void;
  /** Gives back the unused end of a block (clean shutdown) when nobody reserved or reset after it. */
  releaseSequenceValues(id: number, generation: number, reservedLast: bigint, lastValue: bigint, isCalled: boolean): boolean;
  /**
   * CREATE TABLE with serial / identity columns: the table and its owned sequences in one
   * database transaction. `columnsFor` gets each column's sequence id and returns the columns.
   */
  createTableWithSequences(
    t: Omit<TableRecord, 'id' | 'schemaId'>,
    sequences: readonly { column: string; sequence: Omit<NewSequence, 'namespace' | 'name' | 'ownedBy'> }[],
    nowMicros: bigint, ifNotExists: boolean,
    columnsFor: (ids: ReadonlyMap<string, number>) => ColumnMetadata[],
  ): { table: TableRecord; created: boolean };

  /** Publications and replication slots (sqlite-replication.ts). */
  readonly replication: ReplicationCatalog;
  /** Roles and role memberships (sql-roles.ts). */
  readonly roles: RoleCatalog;
  /** Owners and ACLs of relations, schemas and the database (sql-privileges.ts). */
  readonly privileges: PrivilegeCatalog;
  /** Row-level security: tables' switches and policies (sql-row-policies.ts). */
  readonly rowPolicies: RowPolicyCatalog;

  // The self-optimizing service's records (sqlite-optimizing.ts); `default` is stored only once altered.
  listOptimizerGroups(): OptimizerGroup[];
  /** 42710 when it exists, unless ifNotExists (then false). */
  createOptimizerGroup(group: OptimizerGroup, ifNotExists: boolean): boolean;
  /** 42704 when it does not exist. */
  alterOptimizerGroup(name: string, change: { threads?: number; schedulingPolicy?: SchedulingPolicy }): OptimizerGroup;
  /** 42704 unless ifExists; 2BP01 for `default` and while a table's self-optimizing.group names it. */
  dropOptimizerGroup(name: string, ifExists: boolean): void;
  /** Keeps the newest runs of each table only (OPTIMIZING_RUNS_KEPT). */
  recordOptimizingRun(run: NewOptimizingRun): OptimizingRun;
  /** Newest first. */
  listOptimizingRuns(opts: { tableId?: number; limit?: number }): OptimizingRun[];
  saveOptimizingState(state: OptimizingTableState): void;
  listOptimizingStates(): OptimizingTableState[];
  /**
   * One write transaction: takes the table when it is idle, its owner's heartbeat is older
   * than the lease, or its owner is still `deadOwner` (a process the caller saw had died).
   */
  tryClaimOptimizing(tableId: number, owner: string, nowMicros: bigint, leaseMicros: bigint, deadOwner?: string): boolean;
  /** Registers (or replaces) an optimizer, forgetting those whose heartbeat is older than `forgetBeforeMicros`. */
  registerOptimizer(o: OptimizerRecord, forgetBeforeMicros: bigint): void;
  /** False when its row is gone (forgotten as dead): the caller registers again. */
  heartbeatOptimizer(id: string, nowMicros: bigint): boolean;
  /** Oldest first. */
  listOptimizers(): OptimizerRecord[];
  dropOptimizer(id: string): void;

  // Views (sqlite-views.ts): relations like tables and sequences (one name space, one id counter).
  /** A new view, or (replaceId) a new definition of that view; 42P07 when the name is taken by another relation. */
  putView(v: ViewDefinition, replaceId: number | undefined): ViewMetadata;
  getView(namespace: string, name: string): ViewMetadata | undefined;
  getViewById(id: number): ViewMetadata | undefined;
  listViews(namespace?: string): ViewMetadata[];
  /** Rename and/or SET SCHEMA; 42P07 when the target name is taken, 3F000 for a missing schema. */
  moveView(id: number, to: { namespace: string; name: string }): ViewMetadata;
  /** Drops the views in one transaction (their comments too). */
  dropViews(ids: readonly number[]): void;

  // Materialized views (sql-materialized-views.ts): a table holding the rows, and this record of the query.
  /** Creates the table and the record in one transaction (42P07 when the name is taken). */
  createMaterializedView(t: Omit<TableRecord, 'id' | 'schemaId'>, d: MaterializedViewDefinition, nowMicros: bigint): TableRecord;
  getMaterializedView(tableId: number): MaterializedViewMetadata | undefined;
  listMaterializedViews(): MaterializedViewMetadata[];
  /** The views' table ids alone: unlike their records (positions), a read the catalog keeps through its commits. */
  materializedViewIds(): readonly number[];
  setMaterializedViewOptions(tableId: number, options: readonly string[], fullRefreshReason: string | undefined): void;
  /** A refresh that wrote no rows moves the positions alone (40001 when another refresh moved them first). */
  recordMaterializedViewProgress(p: MaterializedViewProgress): void;

  // User-defined types (sqlite-types.ts): enums and shell types.
  /** 3F000 for a missing schema, 42710 when a type (or a relation's row type) has the name. */
  createType(namespace: string, name: string, labels: readonly string[] | undefined): UserTypeMetadata;
  getType(namespace: string, name: string): UserTypeMetadata | undefined;
  getTypeByOid(oid: number): UserTypeMetadata | undefined;
  listTypes(): UserTypeMetadata[];
  /** ALTER TYPE … ADD VALUE; false when IF NOT EXISTS found the label there. */
  addEnumValue(oid: number, label: string, position: EnumLabelPosition, ifNotExists: boolean): boolean;
  renameEnumValue(oid: number, from: string, to: string): void;
  moveType(oid: number, to: { namespace: string; name: string }): UserTypeMetadata;
  dropTypes(oids: readonly number[]): void;

  // Subscriptions (sqlite-subscriptions.ts); their position moves only with a commit (CommitRequest.subscriptionProgress).
  listSubscriptions(): SubscriptionMetadata[];
  /** 42710 when the name is taken. */
  createSubscription(s: NewSubscription): SubscriptionMetadata;
  /** 42704 when it does not exist; moves its generation. */
  alterSubscription(name: string, patch: SubscriptionPatch): SubscriptionMetadata;
  dropSubscription(id: number): void;
  /** A position with no data to commit beside it (source transactions that wrote nothing Floe keeps). */
  recordSubscriptionProgress(p: SubscriptionProgress, nowMicros: bigint): void;
  saveSubscriptionStatus(id: number, status: SubscriptionStatus): void;
  saveSubscriptionError(id: number, error: string, nowMicros: bigint): void;
  /** Takes or keeps (heartbeats) the lease to run a subscription; false while another live owner holds it. */
  claimSubscriptionRunner(id: number, owner: string, nowMicros: bigint, leaseMicros: bigint): boolean;
  /** Gives the lease up if `owner` holds it. */
  releaseSubscriptionRunner(id: number, owner: string): void;
  /** Every subscription's runner lease: holder and last heartbeat. */
  listSubscriptionRunners(): SubscriptionRunner[];

  /** COMMENT ON: null or '' removes it. */
  setComment(objectId: number, subId: number, description: string | null): void;
  listComments(): RelationComment[];

  close(): void;
}
