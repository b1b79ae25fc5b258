import type { CommitObserver } from './commit-observer.js';
import type { IcebergExportOptions, IcebergExportResult } from '../iceberg/export-iceberg-metadata.js';
import type { IcebergTableLoad } from '../iceberg/newest-metadata-version.js';
import type { LogBacklog } from '../log/log-backlog.js';
import type { TierOptions, TierResult } from '../log/tier-log-files.js';
import type { RecordBatch } from 'apache-arrow';
import type { BucketNode } from '../bucket/bucket-node.js';
import type { CatalogConfig } from '../catalog/catalog-config.js';
import type { SnapshotIdRange } from '../catalog/catalog.js';
import type { OptimizeOptions, OptimizeResult, OptimizingMetrics } from '../optimize/optimize-result.js';
import type { NewOptimizingRun, OptimizerGroup, OptimizerRecord, OptimizingRun, OptimizingTableState, SchedulingPolicy } from '../optimize/optimizing-records.js';
import type { CreateRefOptions, RefInfo, Snapshot, SnapshotSelector } from '../refs/snapshot.js';
import type { ScanPlan, ScanRequest } from '../scan/scan-types.js';
import type { StorageConfig } from '../storage/storage-config.js';
import type { AlterTableChange, TableDefinition, TableMetadata } from '../table/table-metadata.js';
import type { BeginOptions, LakeTransaction } from '../txn/lake-transaction.js';
import type { RelationComment, ViewDefinition, ViewMetadata } from '../table/view-metadata.js';
import type { MaterializedViewDefinition, MaterializedViewMetadata, MaterializedViewProgress } from '../table/materialized-view-metadata.js';
import type { UserTypeMetadata } from '../table/user-type-metadata.js';
import type { EnumLabelPosition } from '../table/alter-enum-labels.js';
import type { SequenceChange, SequenceDefinition, SequenceMetadata } from '../sequence/sequence-metadata.js';

import type { LogReplay } from '../log/replay-dead-writers.js';
import type { ReplicationCatalog } from '../replication/replication-catalog.js';
import type { RoleCatalog } from '../security/role-catalog.js';
import type { PrivilegeCatalog } from '../security/object-acl.js';
import type { RowPolicyCatalog } from '../security/row-policies.js';
import type {
  NewSubscription, SubscriptionMetadata, SubscriptionPatch, SubscriptionProgress, SubscriptionRunner, SubscriptionStatus,
} from '../subscription/subscription-metadata.js';

export interface LakeLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface WarehouseOptions {
  /** Local warehouse directory: catalog.db and data files live here by default. */
  readonly path: string;
  readonly catalog?: CatalogConfig;
  readonly storage?: StorageConfig;
  readonly logger?: LakeLogger;
  /** A transaction whose heartbeat is older than this is stale and may be aborted (default 60 s). */
  readonly staleTransactionMs?: number;
  /**
   * Values a process reserves per sequence in one catalog transaction (at least the sequence's
   * CACHE; default 32, as many as PostgreSQL logs ahead). Unused ones are lost on a crash; with
   * several processes on one warehouse, each hands out its own block. 1 keeps a global order.
   */
  readonly sequenceBlock?: number;
  /**
   * The log store (docs/design-notes.md, "Log store"): small transactions commit through
   * this process's write-ahead log instead of a Parquet file each. On by default for a
   * local warehouse; `false` commits every transaction straight to the catalog.
   */
  readonly log?: false | {
    readonly maxTransactionBytes?: number;
    readonly segmentBytes?: number;
    /** How long a segment nothing points into stays, for scans planned before (default 10 min; tests shorten it). */
    readonly releaseGraceMs?: number;
  };
  /** A new catalog's first table id (default 16384); a session's temporary tables start high so no oid meets a shared table's. */
  readonly firstTableId?: number;
  /** Told of each commit (floe serve's metrics). */
  readonly commitObserver?: CommitObserver;
  /** The bootstrap superuser's name when this open creates it (the catalog's first); `floe` by default. */
  readonly superuser?: string;
}

/** One row of t$files. */
export interface DataFileInfo {
  readonly fileId: number;
  readonly path: string;
  readonly store: 'change' | 'base';
  readonly partitionKey: string;
  readonly partitionValues: readonly unknown[];
  readonly node: BucketNode;
  readonly rowCount: number;
  readonly sizeBytes: number;
  readonly seq: bigint;
  readonly firstOffset: number;
  readonly addedIn: bigint;
  readonly deletedRows: number;
  /** Per column: min/max in canonical values, null count. */
  readonly columnStats: Readonly<Record<string, { readonly min: unknown; readonly max: unknown; readonly nullCount: number }>>;
}

/** One row of t$buckets. */
export interface BucketNodeInfo {
  readonly partitionKey: string;
  readonly node: BucketNode;
  readonly isFrontier: boolean;
  readonly baseFiles: number;
  readonly baseRows: number;
  readonly baseBytes: number;
  readonly changeFiles: number;
  readonly changeRows: number;
}

/** One change row of table_changes / t$audit_log: table columns plus the change columns. */
export interface ChangeBatch {
  readonly snapshotId: bigint;
  readonly seq: bigint;
  /** Table columns plus _change_type (Utf8), _seq (Int64), _commit_snapshot_id (Int64). */
  readonly batch: RecordBatch;
  /**
   * Row r's offset in its transaction is firstOffset + r (key-moves.ts pairs rows by it);
   * undefined when not known: an append table's deletion vector, or rows of a tiered file
   * written before tiered files kept each row's offset (`_offset`).
   */
  readonly firstOffset: number | undefined;
}

export interface Warehouse {
  readonly path: string;
  readonly storageConfig: StorageConfig;

  createNamespace(name: string, opts?: { ifNotExists?: boolean }): Promise<void>;
  dropNamespace(name: string, opts?: { ifExists?: boolean; cascade?: boolean }): Promise<void>;
  listNamespaces(): string[];

  createTable(def: TableDefinition, opts?: { ifNotExists?: boolean }): Promise<TableMetadata>;
  /**
   * A materialized view: the keyed table that holds its rows (`def`, no sequences) and the
   * record of its query, in one catalog transaction; not populated until a refresh.
   */
  createMaterializedView(def: TableDefinition, view: MaterializedViewDefinition): Promise<TableMetadata>;
  getMaterializedView(tableId: number): MaterializedViewMetadata | undefined;
  listMaterializedViews(): MaterializedViewMetadata[];
  /** The views' table ids: a cheap "are there any" for every statement (Catalog.materializedViewIds). */
  materializedViewIds(): readonly number[];
  setMaterializedViewOptions(tableId: number, options: readonly string[], fullRefreshReason: string | undefined): Promise<void>;
  /** A refresh that wrote no rows (LakeTransaction.recordViewRefresh carries the others). */
  recordMaterializedViewProgress(p: MaterializedViewProgress): void;
  dropTable(namespace: string, name: string, opts?: { ifExists?: boolean }): Promise<void>;
  getTable(namespace: string, name: string): TableMetadata | undefined;
  getTableById(id: number): TableMetadata | undefined;
  listTables(namespace?: string): TableMetadata[];
  alterTable(namespace: string, name: string, change: AlterTableChange): Promise<TableMetadata>;

  /** Default: head of branch main. Throws 42704 for an unknown ref, 22023 for an expired/too-old target. Undefined for an empty table. */
  resolveSnapshot(table: TableMetadata, selector?: SnapshotSelector): Snapshot | undefined;
  /** Unexpired snapshots in id order; with `ids`, only those in the range (read by id: the range's cost, not the history's). */
  listSnapshots(table: TableMetadata, ids?: SnapshotIdRange): Snapshot[];
  listRefs(table: TableMetadata): RefInfo[];
  /** The head snapshot id of `branch` (default main) of every table that has the branch, by table id, in one catalog read. */
  branchHeads(branch?: string): ReadonlyMap<number, bigint>;
  /** Each table's file epoch (Catalog.fileEpochs): it moves when files are swapped in place, which moves no head. */
  fileEpochs(): ReadonlyMap<number, number>;
  /** The smallest start seq of any open transaction, or the next seq when none is open: changes below it may be folded. */
  lowWatermark(): bigint;
  createBranch(table: TableMetadata, name: string, opts?: CreateRefOptions): Promise<void>;
  createTag(table: TableMetadata, name: string, opts?: CreateRefOptions): Promise<void>;
  dropRef(table: TableMetadata, name: string, opts?: { ifExists?: boolean; kind?: 'branch' | 'tag' }): Promise<void>;
  /** Moves branch `target` to the head of `source`; refuses (55000) unless target's head is an ancestor of source's. */
  fastForward(table: TableMetadata, target: string, source: string): Promise<void>;
  rollbackToSnapshot(table: TableMetadata, snapshotId: bigint, opts?: { ref?: string }): Promise<void>;
  rollbackToTimestamp(table: TableMetadata, micros: bigint, opts?: { ref?: string }): Promise<void>;
  expireSnapshots(table: TableMetadata, opts: { olderThanMicros: bigint; retainLast?: number }): Promise<{ expiredSnapshots: number; deletedFiles: number }>;
  /** Deletes files under the table's data directory that no catalog row references and older than the cut-off. */
  removeOrphanFiles(table: TableMetadata, opts: { olderThanMicros: bigint }): Promise<{ deletedFiles: string[] }>;

  planScan(req: ScanRequest): Promise<ScanPlan>;

  begin(opts?: BeginOptions): Promise<LakeTransaction>;
  optimize(table: TableMetadata, opts?: OptimizeOptions): Promise<OptimizeResult>;
  /**
   * Writes Iceberg v2 metadata (iceberg/<tableId>/metadata/) for the base and change stores at the head of
   * main when it changed since the newest version (src/lake/iceberg/export-iceberg-metadata.ts).
   * A keyed table's change store is shown as equality deletes plus data files; with
   * `deferChanges`, a head that moved only in the change store waits out the table's
   * `metadata.iceberg.change-interval`. Run by the metadata service, never inside a commit.
   */
  exportIcebergMetadata(table: TableMetadata, opts?: IcebergExportOptions): Promise<IcebergExportResult>;
  /** The newest Iceberg metadata version written for the table, as a REST catalog's loadTable answers it; undefined when none is. */
  loadIcebergTable(table: TableMetadata): Promise<IcebergTableLoad | undefined>;
  /** Rewrites the log files live at the table's branch heads into tiered Parquet change files, in place (src/lake/log/tier-log-files.ts). */
  tierLogFiles(table: TableMetadata, opts?: TierOptions): Promise<TierResult>;
  /** The table's log files not tiered yet (all branches). */
  logBacklog(table: TableMetadata): LogBacklog;
  /**
   * Deletes this process's log segments no file row has pointed into for a grace period
   * (a scan planned before tiering swapped a file may still read it); returns how many.
   */
  releaseLogSegments(): Promise<number>;
  /** What a scan merges and what waits to be folded, at the head of `ref` (default main). */
  optimizingMetrics(table: TableMetadata, opts?: { ref?: string }): OptimizingMetrics;

  /** The self-optimizing service's state, kept in the catalog so every process shares it. */
  listOptimizerGroups(): OptimizerGroup[];
  /** 42710 when it exists (unless ifNotExists). */
  createOptimizerGroup(group: OptimizerGroup, opts?: { ifNotExists?: boolean }): void;
  /** 42704 when it does not exist. */
  alterOptimizerGroup(name: string, change: { threads?: number; schedulingPolicy?: SchedulingPolicy }): OptimizerGroup;
  /** 42704 when it does not exist (unless ifExists). */
  dropOptimizerGroup(name: string, opts?: { ifExists?: boolean }): void;
  recordOptimizingRun(run: NewOptimizingRun): OptimizingRun;
  /** Newest first. */
  listOptimizingRuns(opts?: { tableId?: number; limit?: number }): OptimizingRun[];
  saveOptimizingState(state: OptimizingTableState): void;
  /**
   * Atomically takes a table for optimizing: sets status 'planning' with this owner when the
   * table's status is idle, or its heartbeat is older than `leaseMicros`. False when another
   * live owner holds it. Lets several schedulers share a warehouse.
   */
  tryClaimOptimizing(tableId: number, owner: string, nowMicros: bigint, leaseMicros: bigint, deadOwner?: string): boolean;
  listOptimizingStates(): OptimizingTableState[];
  /** Registers (or replaces) a running optimizer, forgetting those whose heartbeat is older than `forgetBeforeMicros`. */
  registerOptimizer(o: OptimizerRecord, forgetBeforeMicros: bigint): void;
  /** False when its row is gone (forgotten as dead): register again. */
  heartbeatOptimizer(id: string, nowMicros: bigint): boolean;
  /** Every registered optimizer, live or lost (oldest first). */
  listOptimizers(): OptimizerRecord[];
  dropOptimizer(id: string): void;

  listFiles(table: TableMetadata, at?: SnapshotSelector): DataFileInfo[];
  bucketTree(table: TableMetadata, at?: SnapshotSelector): BucketNodeInfo[];
  /** Changes committed in snapshots after `fromSnapshot` (exclusive) up to `toSnapshot` (inclusive) on their lineage, in commit order. */
  readChanges(table: TableMetadata, fromSnapshot: bigint | undefined, toSnapshot: bigint): Promise<ChangeBatch[]>;

  /** Sequences share the relation namespace of tables (42P07); their ids come from the table-id counter. */
  createSequence(def: SequenceDefinition, opts?: { ifNotExists?: boolean }): Promise<{ sequence: SequenceMetadata | undefined; created: boolean }>;
  alterSequence(id: number, change: SequenceChange): Promise<SequenceMetadata>;
  /** Returns PostgreSQL's NOTICE lines for what CASCADE dropped (column defaults). */
  dropSequence(id: number, opts?: { cascade?: boolean }): Promise<{ notices: string[] }>;
  getSequence(namespace: string, name: string): SequenceMetadata | undefined;
  getSequenceById(id: number): SequenceMetadata | undefined;
  listSequences(namespace?: string): SequenceMetadata[];
  /** nextval: never the same value twice, across processes and crashes; not undone by a rollback. */
  nextSequenceValue(id: number): bigint;
  /** setval (22003 outside the bounds); returns the value. */
  setSequenceValue(id: number, value: bigint, isCalled: boolean): bigint;
  /** last_value and is_called as `SELECT * FROM s` shows them. */
  sequenceState(id: number): { lastValue: bigint; isCalled: boolean };

  /**
   * Views: CREATE (42P07 when the name is taken) or, with orReplace, a new definition of
   * the view of that name (42809 when it is not a view; 42P16 unless the old columns stay).
   */
  createView(def: ViewDefinition, opts?: { orReplace?: boolean }): Promise<ViewMetadata>;
  getView(namespace: string, name: string): ViewMetadata | undefined;
  getViewById(id: number): ViewMetadata | undefined;
  listViews(namespace?: string): ViewMetadata[];
  /** ALTER VIEW … RENAME TO / SET SCHEMA. */
  moveView(id: number, to: { namespace: string; name: string }): Promise<ViewMetadata>;
  dropViews(ids: readonly number[]): Promise<void>;
  /**
   * User-defined types: CREATE TYPE … AS ENUM and shell types (labels undefined); 42710 when
   * the name is taken. ALTER TYPE's changes and DROP TYPE; columns read afterwards carry
   * the type's current name and labels.
   */
  createType(namespace: string, name: string, labels: readonly string[] | undefined): Promise<UserTypeMetadata>;
  getType(namespace: string, name: string): UserTypeMetadata | undefined;
  getTypeByOid(oid: number): UserTypeMetadata | undefined;
  listTypes(): UserTypeMetadata[];
  /** false when IF NOT EXISTS found the label there. */
  addEnumValue(oid: number, label: string, position: EnumLabelPosition, ifNotExists: boolean): Promise<boolean>;
  renameEnumValue(oid: number, from: string, to: string): Promise<void>;
  moveType(oid: number, to: { namespace: string; name: string }): Promise<UserTypeMetadata>;
  dropTypes(oids: readonly number[]): Promise<void>;
  /** ALTER TABLE … SET SCHEMA (the sequences the table owns move with it). */
  setTableNamespace(id: number, namespace: string): Promise<TableMetadata>;
  /** COMMENT ON: objectId a relation's id, subId a column's attnum or 0; null removes it. */
  setComment(objectId: number, subId: number, description: string | null): Promise<void>;
  listComments(): RelationComment[];

  /**
   * Subscriptions (CDC in): kept in the catalog; the position moves with the data it
   * covers (LakeTransaction.recordSubscriptionProgress), or alone when a source
   * transaction left nothing to write (recordSubscriptionProgress).
   */
  listSubscriptions(): SubscriptionMetadata[];
  /** 42710 when the name is taken. */
  createSubscription(s: NewSubscription): SubscriptionMetadata;
  /** 42704 when it does not exist. */
  alterSubscription(name: string, patch: SubscriptionPatch): SubscriptionMetadata;
  dropSubscription(id: number): void;
  recordSubscriptionProgress(p: SubscriptionProgress): void;
  saveSubscriptionStatus(id: number, status: SubscriptionStatus): void;
  saveSubscriptionError(id: number, error: string): void;
  /**
   * The lease to run a subscription (one gateway at a time streams and copies it): taken or
   * heartbeated by `owner`; false while another owner's heartbeat is younger than `leaseMicros`.
   */
  claimSubscriptionRunner(id: number, owner: string, leaseMicros: bigint): boolean;
  releaseSubscriptionRunner(id: number, owner: string): void;
  listSubscriptionRunners(): SubscriptionRunner[];

  /** What opening the warehouse replayed from the logs of writers that had died (undefined without a log store). */
  readonly logReplay: LogReplay | undefined;
  /** Publications and durable replication slots (CDC out; docs/design-notes.md, "Floe as a publisher"). */
  readonly replication: ReplicationCatalog;
  /** Roles and role memberships (docs/design-notes.md, "Roles and authentication"). */
  readonly roles: RoleCatalog;
  /** Owners and ACLs (GRANT / REVOKE, ALTER … OWNER TO). */
  readonly privileges: PrivilegeCatalog;
  /** Row-level security (CREATE POLICY, ENABLE ROW LEVEL SECURITY). */
  readonly rowPolicies: RowPolicyCatalog;
  close(): Promise<void>;
}
