import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { HEAD_MOVED, LOG_WRITER_TAKEN_OVER } from './catalog.js';
import type {
  Catalog, CommitRequest, FileRecord, LiveFilesRequirement, RefRecord, SnapshotRecord, TablePatch, TableRecord, TxnRecord,
} from './catalog.js';
import { OptimizerConflict } from './optimizer-conflict.js';
import type { CatalogDatabase, CatalogStatement } from './catalog-database.js';
import { SqlSequences } from './sql-sequences.js';
import { SqlViews } from './sql-views.js';
import { SqlMaterializedViews } from './sql-materialized-views.js';
import type { MaterializedViewDefinition, MaterializedViewMetadata, MaterializedViewProgress } from '../table/materialized-view-metadata.js';
import { SqlTypes } from './sql-types.js';
import { SqlRoles } from './sql-roles.js';
import { SqlPrivileges } from './sql-privileges.js';
import { SqlRowPolicies } from './sql-row-policies.js';
import { currentEnumColumns } from './current-enum-columns.js';
import { addEnumLabel, renameEnumLabel, type EnumLabelPosition } from '../table/alter-enum-labels.js';
import type { UserTypeMetadata } from '../table/user-type-metadata.js';
import type { RelationComment, ViewDefinition, ViewMetadata } from '../table/view-metadata.js';
import { SqlOptimizing } from './sql-optimizing.js';
import { SqlReplication } from './sql-replication.js';
import { insertFileReplacements, pruneFileReplacements, selectFileReplacements } from './sql-file-replacements.js';
import type {
  NewOptimizingRun, OptimizerGroup, OptimizerRecord, OptimizingRun, OptimizingTableState, SchedulingPolicy,
} from '../optimize/optimizing-records.js';
import type { FileColumnStats, FileReplacement, LogWriterRecord, LoggedCommit, LoggedCommitOutcome, NewFileRecord, NewSequence, SequencePatch, SequenceRecord, SnapshotIdRange } from './catalog.js';
import type { ColumnMetadata } from '../table/table-metadata.js';
import { VisibleFilesMemo } from './visible-files-memo.js';
import { DEFAULT_LEASE_FRESH_MICROS, SEQ_LEASE_BLOCK, SeqLease } from './seq-lease.js';
import { keyBitmapsMayShare } from '../bucket/key-bitmap.js';
import { SqlSubscriptions } from './sql-subscriptions.js';
import type {
  NewSubscription, SubscriptionMetadata, SubscriptionPatch, SubscriptionProgress, SubscriptionRunner, SubscriptionStatus,
} from '../subscription/subscription-metadata.js';

/*
 * The catalog in SQL, on SQLite (sqlite/sqlite-catalog.ts) or PostgreSQL
 * (postgres/postgres-catalog.ts): the same statements through CatalogDatabase.
 *
 * Layout in the spirit of DuckLake: a file row carries the snapshot that added it;
 * removals are rows of file_removals (one per (file, snapshot)) rather than a single
 * removed_in column, because with branches one file can be removed on two lines of
 * history in two different snapshots. A file is visible at S when added_in is an
 * ancestor-or-self of S and none of its removals is. A commit inserts one snapshot row,
 * a few file rows and a few removal rows: its cost does not depend on the table's size.
 */

const ANCESTORS_CTE = `WITH RECURSIVE anc(id) AS (
  SELECT CAST(? AS BIGINT) UNION ALL SELECT s.parent_id FROM snapshots s JOIN anc ON s.snapshot_id = anc.id WHERE s.parent_id IS NOT NULL)`;

// The removals are one uncorrelated list: as a NOT EXISTS per file, SQLite rebuilt the
// ancestor list for every file row, O(files × ancestors) — 80 ms a read at a thousand
// snapshots of history, paid by every commit and every query of a streaming table.
/** Swaps kept per table (file_epoch_swaps): a memo further behind starts over. */
const KEPT_SWAPS = 256;

const VISIBLE_FILES = `${ANCESTORS_CTE}
SELECT f.* FROM files f WHERE f.table_id = ? AND f.added_in IN (SELECT id FROM anc)
  AND f.file_id NOT IN (SELECT r.file_id FROM file_removals r WHERE r.table_id = ? AND r.snapshot_id IN (SELECT id FROM anc))
ORDER BY f.added_in, f.file_id`;

interface FileRow {
  file_id: number; table_id: number; store: string; path: string; partition_key: string;
  partition_values: string; node_mask: number; node_index: number; row_count: number;
  size_bytes: number; seq: bigint; first_offset: number; stats: string;
  dv_target: number | null; dv_positions: Buffer | null; row_groups: string | null; key_bitmap: Buffer | null; added_in: bigint;
  snapshots: string | null;
}

interface TableRow {
  table_id: number; namespace: string; name: string; schema_id: number; columns: string;
  primary_key: string; partition_by: string; properties: string; next_field_id: number; constraints: string;
}

interface SnapshotRow {
  snapshot_id: bigint; table_id: number; parent_id: bigint | null; branch: string;
  committed_micros: bigint; operation: string; summary: string; schema_id: number; expired: number;
  squashed_from_micros: bigint | null;
}

interface RefRow { table_id: number; name: string; kind: string; snapshot_id: bigint; retain_micros: bigint | null }

function toTable(r: TableRow): TableRecord {
  return {
    id: r.table_id, namespace: r.namespace, name: r.name, schemaId: r.schema_id,
    columns: JSON.parse(r.columns), primaryKey: JSON.parse(r.primary_key),
    partitionBy: JSON.parse(r.partition_by), properties: JSON.parse(r.properties),
    constraints: JSON.parse(r.constraints), nextFieldId: r.next_field_id,
  };
}

function toSnapshot(r: SnapshotRow): SnapshotRecord {
  return {
    tableId: r.table_id, id: BigInt(r.snapshot_id), parentId: r.parent_id === null ? undefined : BigInt(r.parent_id),
    branch: r.branch, committedAtMicros: BigInt(r.committed_micros), operation: r.operation,
    summary: JSON.parse(r.summary), schemaId: r.schema_id, expired: r.expired !== 0,
    squashedFromMicros: r.squashed_from_micros === null ? undefined : BigInt(r.squashed_from_micros),
  };
}

function toRef(r: RefRow): RefRecord {
  return {
    tableId: r.table_id, name: r.name, kind: r.kind as 'branch' | 'tag', snapshotId: BigInt(r.snapshot_id),
    retainMicros: r.retain_micros === null ? undefined : BigInt(r.retain_micros),
  };
}

function toFile(r: FileRow): FileRecord {
  return {
    fileId: r.file_id, tableId: r.table_id, store: r.store as FileRecord['store'], path: r.path,
    partitionKey: r.partition_key, partitionValues: JSON.parse(r.partition_values),
    nodeMask: r.node_mask, nodeIndex: r.node_index, rowCount: r.row_count, sizeBytes: r.size_bytes,
    seq: BigInt(r.seq), firstOffset: r.first_offset, stats: JSON.parse(r.stats),
    dvTarget: r.dv_target ?? undefined,
    dvPositions: r.dv_positions === null ? undefined
      : new Uint32Array(r.dv_positions.buffer.slice(r.dv_positions.byteOffset, r.dv_positions.byteOffset + r.dv_positions.byteLength)),
    rowGroups: r.row_groups === null ? undefined : JSON.parse(r.row_groups),
    keyBitmap: r.key_bitmap === null ? undefined : new Uint8Array(r.key_bitmap),
    addedIn: BigInt(r.added_in),
    ...(r.snapshots === null ? {} : { snapshots: (JSON.parse(r.snapshots) as string[]).map(BigInt) }),
  };
}

/** Cached reads kept at most (they are all dropped past it, or when the database changes). */
const READ_CACHE_MAX = 4096;
/** Snapshots a rebase over untouched keys walks at most (CommitRequest.rebaseKeyBitmap). */
const REBASE_WALK_MAX = 256;

/** `v` with its plain objects and arrays frozen all the way down (typed arrays and Buffers cannot be, and are left as they are). */
function frozen<T>(v: T): T {
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || Object.isFrozen(v)) return v;
  for (const x of Object.values(v)) frozen(x);
  return Object.freeze(v);
}

/**
 * Cached reads a commit (#commitOne: snapshot, file, removal and ref rows, a subscription's
 * position, a materialized view's refresh) cannot change. Roles, grants and row security are
 * read by every statement's privilege checks: dropped at each commit, they were read and the
 * role graph built again for every statement of a stream of commits.
 */
const COMMIT_PROOF_READS = [
  'table ', 'namespaces', 'types', 'type ', 'view ', 'views ', 'comments', 'sequence ', 'sequences ', 'optimizer groups', 'materialized view ids',
  'roles', 'role members', 'object acls', 'row policies', 'row security', 'publications', 'replication slots', 'optimizing states',
];

/**
 * Whether a cached read stays right through a commit: definitions do, and so do a snapshot
 * and the files visible at it once it exists (a commit only adds snapshots). Refs move,
 * and a snapshot read before it existed (an id a rolled-back commit took) may now exist.
 */
function keptThroughCommit(key: string, value: unknown): boolean {
  if (key.startsWith('snapshot ')) return value !== undefined;
  if (key.startsWith('files ')) return Array.isArray(value) && value.length > 0;
  return COMMIT_PROOF_READS.some((prefix) => key.startsWith(prefix));
}

/**
 * The catalogs of this thread open on each database (CatalogDatabase.key). A commit of one is
 * seen by another's cached reads in the same synchronous run through its ownChanges(), which
 * dataVersion(), read once per run (#dataVersion), would show only from the next run on.
 */
const catalogsOnDatabase = new Map<string, Set<SqlCatalog>>();

export class SqlCatalog implements Catalog {
  readonly kind: 'sqlite' | 'postgres';
  readonly #db: CatalogDatabase;
  readonly #statements = new Map<string, CatalogStatement>();
  /** Reads by key, valid while the database's version is still #readsChanges and #readsDataVersion (see #cached). */
  readonly #reads = new Map<string, unknown>();
  /** The version #reads is valid for: ownChanges() of the database's catalogs in this thread, and this connection's dataVersion(). */
  #readsChanges = -1n;
  #readsDataVersion = -1n;
  /** Keys of #reads a commit of this catalog's own may change (keptThroughCommit); the rest stay valid through it. */
  readonly #commitStaleReads = new Set<string>();
  /** dataVersion() as read in the current synchronous run (see #dataVersion); undefined once the run ends. */
  #runDataVersion: bigint | undefined;
  /** This catalog and the others of this thread on the same database (catalogsOnDatabase). */
  readonly #sameDatabase: Set<SqlCatalog>;
  /** On SQLite, transactions take their seqs from a lease (seq-lease.ts) rather than a write each. */
  readonly #lease: SeqLease | undefined;
  readonly #sequences: SqlSequences;
  readonly #views: SqlViews;
  readonly #materializedViews: SqlMaterializedViews;
  readonly #types: SqlTypes;
  readonly #optimizing: SqlOptimizing;
  /** Publications and replication slots. */
  readonly replication: SqlReplication;
  readonly roles: SqlRoles;
  readonly privileges: SqlPrivileges;
  readonly rowPolicies: SqlRowPolicies;
  readonly #subscriptions: SqlSubscriptions;
  /** Visible sets derived commit by commit (visible-files-memo.ts), kept across database changes. */
  readonly #visible = new VisibleFilesMemo({
    fileEpoch: (tableId) => Number((this.#sql('SELECT epoch FROM file_epochs WHERE table_id = ?').get(tableId) as { epoch: bigint } | undefined)?.epoch ?? 0),
    parentOf: (tableId, id) => {
      const r = this.#sql('SELECT parent_id FROM snapshots WHERE table_id = ? AND snapshot_id = ?').get(tableId, id) as { parent_id: bigint | null } | undefined;
      return r === undefined ? null : r.parent_id === null ? undefined : BigInt(r.parent_id);
    },
    addedIn: (tableId, id) => (this.#sql('SELECT * FROM files WHERE table_id = ? AND added_in = ? ORDER BY file_id').all(tableId, id) as FileRow[]).map(toFileNumbers),
    removedIn: (tableId, id) => (this.#sql('SELECT file_id FROM file_removals WHERE table_id = ? AND snapshot_id = ?').all(tableId, id) as { file_id: bigint }[]).map((r) => Number(r.file_id)),
    swaps: (tableId, after, upTo) => (this.#sql(`SELECT s.epoch, s.removed, s.anchor_file_id, f.* FROM file_epoch_swaps s
      LEFT JOIN files f ON f.file_id = s.added_file_id WHERE s.table_id = ? AND s.epoch > ? AND s.epoch <= ? ORDER BY s.epoch`)
      .all(tableId, after, upTo) as (FileRow & { epoch: bigint; removed: string; anchor_file_id: bigint })[]).map((r) => ({
      epoch: Number(r.epoch), removed: JSON.parse(r.removed) as number[], anchor: Number(r.anchor_file_id),
      // The new file may be gone already, swapped again since: the memo then starts over.
      added: r.file_id === null ? undefined : toFileNumbers(r),
    })),
    since: (tableId, id, ancestor) => {
      const path = this.#lineageBack(id, ancestor);
      if (path === undefined) return undefined;
      const ids = JSON.stringify(path.map(Number));
      return {
        added: (this.#sql('SELECT * FROM files WHERE table_id = ? AND added_in IN (SELECT value FROM json_each(?)) ORDER BY added_in, file_id')
          .all(tableId, ids) as FileRow[]).map(toFileNumbers),
        removed: (this.#sql('SELECT file_id FROM file_removals WHERE table_id = ? AND snapshot_id IN (SELECT value FROM json_each(?))')
          .all(tableId, ids) as { file_id: bigint }[]).map((r) => Number(r.file_id)),
      };
    },
    query: (tableId, id) => this.#queryVisibleFiles(tableId, id),
  });

  /** `db` has its tables already (sqlite/sqlite-schema.ts, postgres/postgres-migrations.ts). */
  constructor(db: CatalogDatabase) {
    this.#db = db;
    this.kind = db.dialect;
    this.#lease = db.dialect === 'sqlite' ? new SeqLease() : undefined;
    const key = db.key;
    this.#sameDatabase = (typeof key === 'string' ? catalogsOnDatabase.get(key) : undefined) ?? new Set();
    this.#sameDatabase.add(this);
    if (typeof key === 'string') catalogsOnDatabase.set(key, this.#sameDatabase);
    const access = {
      sql: (q: string) => this.#sql(q), cached: <T>(k: string, read: () => T) => this.#cached(k, read),
      immediate: <T>(fn: () => T) => this.#immediate(fn), immediateNormal: <T>(fn: () => T) => this.#immediateNormal(fn), nextId: () => Number(this.#nextMeta('next_table_id')),
      tableExists: (ns: string, name: string) => this.getTable(ns, name) !== undefined || this.#views.get(ns, name) !== undefined,
    };
    this.#views = new SqlViews(access);
    this.#materializedViews = new SqlMaterializedViews(access);
    this.#types = new SqlTypes(access);
    this.#sequences = new SqlSequences(access);
    this.#optimizing = new SqlOptimizing(access);
    this.replication = new SqlReplication(access);
    this.roles = new SqlRoles(access);
    this.privileges = new SqlPrivileges(access);
    this.rowPolicies = new SqlRowPolicies(access);
    this.#subscriptions = new SqlSubscriptions(access);
  }

  // ---- subscriptions (sql-subscriptions.ts) ----

  listSubscriptions(): SubscriptionMetadata[] { return this.#subscriptions.list(); }
  createSubscription(s: NewSubscription): SubscriptionMetadata { return this.#subscriptions.create(s); }
  alterSubscription(name: string, patch: SubscriptionPatch): SubscriptionMetadata { return this.#subscriptions.alter(name, patch); }
  dropSubscription(id: number): void { this.#subscriptions.drop(id); }
  recordSubscriptionProgress(p: SubscriptionProgress, nowMicros: bigint): void {
    this.#immediate(() => this.#subscriptions.recordProgress(p, nowMicros));
  }
  saveSubscriptionStatus(id: number, status: SubscriptionStatus): void { this.#subscriptions.saveStatus(id, status); }
  saveSubscriptionError(id: number, error: string, nowMicros: bigint): void { this.#subscriptions.saveError(id, error, nowMicros); }
  claimSubscriptionRunner(id: number, owner: string, nowMicros: bigint, leaseMicros: bigint): boolean {
    return this.#subscriptions.claimRunner(id, owner, nowMicros, leaseMicros);
  }
  releaseSubscriptionRunner(id: number, owner: string): void { this.#subscriptions.releaseRunner(id, owner); }
  listSubscriptionRunners(): SubscriptionRunner[] { return this.#subscriptions.runners(); }

  // ---- the self-optimizing service's records (sql-optimizing.ts) ----

  listOptimizerGroups(): OptimizerGroup[] { return this.#optimizing.listGroups(); }
  createOptimizerGroup(group: OptimizerGroup, ifNotExists: boolean): boolean { return this.#optimizing.createGroup(group, ifNotExists); }
  alterOptimizerGroup(name: string, change: { threads?: number; schedulingPolicy?: SchedulingPolicy }): OptimizerGroup {
    return this.#optimizing.alterGroup(name, change);
  }
  dropOptimizerGroup(name: string, ifExists: boolean): void { this.#optimizing.dropGroup(name, ifExists); }
  recordOptimizingRun(run: NewOptimizingRun): OptimizingRun { return this.#optimizing.recordRun(run); }
  listOptimizingRuns(opts: { tableId?: number; limit?: number }): OptimizingRun[] { return this.#optimizing.listRuns(opts); }
  saveOptimizingState(state: OptimizingTableState): void { this.#optimizing.saveState(state); }
  listOptimizingStates(): OptimizingTableState[] { return this.#optimizing.listStates(); }
  tryClaimOptimizing(tableId: number, owner: string, nowMicros: bigint, leaseMicros: bigint, deadOwner?: string): boolean {
    return this.#optimizing.tryClaim(tableId, owner, nowMicros, leaseMicros, deadOwner);
  }
  registerOptimizer(o: OptimizerRecord, forgetBeforeMicros: bigint): void { this.#optimizing.registerOptimizer(o, forgetBeforeMicros); }
  heartbeatOptimizer(id: string, nowMicros: bigint): boolean { return this.#optimizing.heartbeatOptimizer(id, nowMicros); }
  listOptimizers(): OptimizerRecord[] { return this.#optimizing.listOptimizers(); }
  dropOptimizer(id: string): void { this.#optimizing.dropOptimizer(id); }

  // ---- sequences (sql-sequences.ts) ----

  createSequence(s: NewSequence, ifNotExists: boolean): { sequence: SequenceRecord | undefined; created: boolean } {
    return this.#immediate(() => {
      if (this.#sql('SELECT 1 FROM namespaces WHERE name = ?').get(s.namespace) === undefined) {
        throw new FloeError(SqlState.undefinedSchema, `schema "${s.namespace}" does not exist`);
      }
      return this.#sequences.create(s, ifNotExists);
    });
  }

  getSequence(namespace: string, name: string): SequenceRecord | undefined {
    return this.#sequences.get(namespace, name);
  }

  getSequenceById(id: number): SequenceRecord | undefined {
    return this.#sequences.getById(id);
  }

  listSequences(namespace?: string): SequenceRecord[] {
    return this.#sequences.list(namespace);
  }

  updateSequence(id: number, patch: SequencePatch): SequenceRecord {
    return this.#sequences.update(id, patch);
  }

  dropSequence(id: number): void {
    this.#sequences.drop(id);
  }

  reserveSequenceValues(id: number, count: number): { values: bigint[]; generation: number } {
    return this.#sequences.reserve(id, count);
  }

  setSequenceValue(id: number, value: bigint, isCalled: boolean): void {
    this.#sequences.setValue(id, value, isCalled);
  }

  releaseSequenceValues(id: number, generation: number, reservedLast: bigint, lastValue: bigint, isCalled: boolean): boolean {
    return this.#sequences.release(id, generation, reservedLast, lastValue, isCalled);
  }

  createTableWithSequences(
    t: Omit<TableRecord, 'id' | 'schemaId'>, sequences: readonly { column: string; sequence: Omit<NewSequence, 'namespace' | 'name' | 'ownedBy'> }[],
    nowMicros: bigint, ifNotExists: boolean,
    columnsFor: (ids: ReadonlyMap<string, number>) => ColumnMetadata[],
  ): { table: TableRecord; created: boolean } {
    return this.#immediate(() => {
      const existing = this.getTable(t.namespace, t.name);
      if (existing !== undefined && ifNotExists) return { table: existing, created: false };
      // PostgreSQL creates a serial column's sequence before its table: its oid is the smaller.
      const ids = new Map<string, number>();
      const names: string[] = [];
      for (const s of sequences) {
        ids.set(s.column, Number(this.#nextMeta('next_table_id')));
        names.push(this.#sequences.freeName(t.namespace, `${t.name}_${s.column}`, 'seq', [t.name, ...names]));
      }
      const created = this.createTable({ ...t, columns: columnsFor(ids) }, nowMicros, false);
      sequences.forEach((s, i) => {
        const fieldId = created.table.columns.find((c) => c.name === s.column)!.fieldId;
        this.#sequences.insert(ids.get(s.column)!, {
          ...s.sequence, namespace: t.namespace, name: names[i]!, ownedBy: { tableId: created.table.id, fieldId },
        });
      });
      return created;
    });
  }

  /**
   * The statement for `sql`, prepared once per catalog: preparing is most of a small
   * read's cost, and a tiny query's scans read the catalog several times (2026-11-30:
   * about 1.4 ms of a 5.5 ms query over a 25-row table went to preparing).
   */
  #sql(sql: string): CatalogStatement {
    let st = this.#statements.get(sql);
    if (st === undefined) {
      st = this.#db.prepare(sql);
      this.#statements.set(sql, st);
    }
    return st;
  }

  /**
   * `read()`, or what it returned for `key` while the database has not changed since:
   * dataVersion() moves when another connection (another process, or another
   * catalog in this one) commits, and ownChanges() when this connection writes (even
   * in a transaction it rolls back, which only costs a re-read); reads inside a write
   * transaction are not kept. A query's scans read the
   * same table, snapshot and file list several times (binding, planning, each scan: about
   * 5 ms of catalog reads in an eight-table query, each 40–150 µs); a cached read costs the
   * version check. Results are frozen, so a caller that would change a shared one fails loudly.
   */
  #cached<T>(key: string, read: () => T): T {
    // Inside a write transaction reads see its uncommitted rows, and a rollback moves neither
    // version: nothing read there is kept (the writes move ownChanges, so the next read
    // after it, committed or not, starts a fresh cache).
    if (this.#db.inTransaction) return read();
    const changes = this.#totalChanges();
    const dataVersion = this.#dataVersion();
    if (changes !== this.#readsChanges || dataVersion !== this.#readsDataVersion) {
      this.#clearReads();
      this.#readsChanges = changes;
      this.#readsDataVersion = dataVersion;
    } else if (this.#reads.has(key)) return this.#reads.get(key) as T;
    const value = frozen(read());
    if (this.#reads.size >= READ_CACHE_MAX) this.#clearReads();
    this.#reads.set(key, value);
    if (!keptThroughCommit(key, value)) this.#commitStaleReads.add(key);
    return value;
  }

  /** ownChanges() summed over this thread's catalogs on the database: moves with every write any of them makes. */
  #totalChanges(): bigint {
    let changes = 0n;
    for (const c of this.#sameDatabase) changes += c.#db.ownChanges();
    return changes;
  }

  #clearReads(): void {
    this.#reads.clear();
    this.#commitStaleReads.clear();
  }

  /**
   * A write transaction of this catalog's own (`durability` as #immediate or
   * #immediateNormal) that keeps the read cache: one whose rows no cached read holds
   * (`stale: 'none'`: the txns and log_writers rows), or a commit's (snapshot, file and ref
   * rows; keptThroughCommit says which reads stay right). Any write would otherwise void
   * every cached read, and a logged commit writes twice (beginTxn, then the apply): every
   * statement re-read and re-parsed the table, the namespaces, its snapshots and its files.
   * The cache stays only when it was current before; another connection's commit still
   * clears it at the next read (dataVersion is not touched here). dataVersion is read
   * inside the transaction, where it takes no lock of its own, so the rest of the run
   * need not read it again.
   */
  #ownWrite<T>(stale: 'none' | 'commit', durability: 'full' | 'normal', fn: () => T): T {
    const run = (f: () => T) => this.#immediate(f, durability);
    if (this.#db.inTransaction) return run(fn);
    const current = this.#totalChanges() === this.#readsChanges;
    let dataVersion: bigint | undefined;
    const out = run(() => {
      dataVersion = this.#db.dataVersion();
      return fn();
    });
    if (current) {
      this.#readsChanges = this.#totalChanges();
      if (stale === 'commit') {
        for (const key of this.#commitStaleReads) this.#reads.delete(key);
        this.#commitStaleReads.clear();
      }
    }
    // As fresh as a read now: the transaction saw every commit before it.
    this.#setRunDataVersion(dataVersion!);
    return out;
  }

  /**
   * dataVersion(), read once per synchronous run: in SQLite reading it takes a read lock on
   * the WAL (about 10 µs, against 0.1 µs for total_changes()), in PostgreSQL a round trip;
   * and binding and planning one statement asked for it about 70 times (a profile of the
   * differential test: 3.3 s of 49).
   * Another connection's commit that lands while a run is going on is seen from the next
   * run on, as if it had landed a moment later; this connection's own writes move
   * ownChanges at once (and so do the other catalogs of this thread on the database:
   * catalogsOnDatabase), and a write transaction, which reads the newest commits, ends the
   * run's version. A commit of another thread or process can be known here only through a
   * message, which arrives in a later run.
   */
  #dataVersion(): bigint {
    if (this.#runDataVersion === undefined) this.#setRunDataVersion(this.#db.dataVersion());
    return this.#runDataVersion!;
  }

  #setRunDataVersion(version: bigint): void {
    if (this.#runDataVersion === undefined) queueMicrotask(() => { this.#runDataVersion = undefined; });
    this.#runDataVersion = version;
  }

  /** A write transaction; inside another transaction it is part of that one, and takes its durability. */
  #immediate<T>(fn: () => T, durability: 'full' | 'normal' = 'full'): T {
    const outermost = !this.#db.inTransaction;
    try {
      const out = this.#db.transaction('write', durability, fn);
      if (outermost) this.#lease?.settle(true);
      return out;
    } catch (error) {
      if (outermost) this.#lease?.settle(false);
      throw error;
    } finally {
      this.#runDataVersion = undefined;
    }
  }

  #nextMeta(key: string): bigint {
    const row = this.#sql('UPDATE meta SET value = value + 1 WHERE key = ? RETURNING value - 1 AS v').get(key) as { v: bigint };
    return BigInt(row.v);
  }

  listNamespaces(): string[] {
    return this.#cached('namespaces', () => (this.#sql('SELECT name FROM namespaces ORDER BY name').all() as { name: string }[]).map((r) => r.name));
  }

  createNamespace(name: string, ifNotExists: boolean): void {
    this.#immediate(() => {
      const exists = this.#sql('SELECT 1 FROM namespaces WHERE name = ?').get(name);
      if (exists !== undefined) {
        if (ifNotExists) return;
        throw new FloeError(SqlState.duplicateSchema, `schema "${name}" already exists`);
      }
      this.#sql('INSERT INTO namespaces VALUES (?)').run(name);
    });
  }

  dropNamespace(name: string, ifExists: boolean, cascade: boolean): number[] {
    return this.#immediate(() => {
      const exists = this.#sql('SELECT 1 FROM namespaces WHERE name = ?').get(name);
      if (exists === undefined) {
        if (ifExists) return [];
        throw new FloeError(SqlState.undefinedSchema, `schema "${name}" does not exist`);
      }
      const ids = (this.#sql('SELECT table_id FROM tables WHERE namespace = ?').all(name) as { table_id: bigint }[])
        .map((r) => Number(r.table_id));
      const sequenceCount = this.listSequences(name).length + this.#views.list(name).length + this.#types.list().filter((t) => t.namespace === name).length;
      if ((ids.length > 0 || sequenceCount > 0) && !cascade) {
        throw new FloeError('2BP01', `cannot drop schema "${name}" because other objects depend on it`, {
          hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
        });
      }
      for (const id of ids) this.#dropTableRows(id);
      this.#sql('DELETE FROM sequences WHERE namespace = ?').run(name);
      this.#views.dropInNamespace(name);
      this.#types.dropInNamespace(name);
      this.#sql('DELETE FROM namespaces WHERE name = ?').run(name);
      // Names come back (ids never do): a schema made later under this name starts from the defaults.
      this.#sql("DELETE FROM object_acls WHERE object_kind = 'schema' AND object_key = ?").run(name);
      return ids;
    });
  }

  createTable(t: Omit<TableRecord, 'id' | 'schemaId'>, nowMicros: bigint, ifNotExists: boolean): { table: TableRecord; created: boolean } {
    return this.#immediate(() => {
      if (this.#sql('SELECT 1 FROM namespaces WHERE name = ?').get(t.namespace) === undefined) {
        throw new FloeError(SqlState.undefinedSchema, `schema "${t.namespace}" does not exist`);
      }
      const existing = this.getTable(t.namespace, t.name);
      if (existing !== undefined || this.#sequences.get(t.namespace, t.name) !== undefined || this.#views.get(t.namespace, t.name) !== undefined) {
        if (ifNotExists && existing !== undefined) return { table: existing, created: false };
        throw new FloeError(SqlState.duplicateTable, `relation "${t.name}" already exists`);
      }
      const id = Number(this.#nextMeta('next_table_id'));
      const columns = JSON.stringify(t.columns);
      this.#sql(`INSERT INTO tables (table_id, namespace, name, schema_id, columns, primary_key, partition_by,
        properties, next_field_id, created_micros, constraints) VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)`)
        .run(id, t.namespace, t.name, columns, JSON.stringify(t.primaryKey), JSON.stringify(t.partitionBy),
          JSON.stringify(t.properties), t.nextFieldId, nowMicros, JSON.stringify(t.constraints ?? []));
      this.#sql('INSERT INTO schemas VALUES (?, 0, ?)').run(id, columns);
      // Every table starts with an empty snapshot on main, so every ref always has a head.
      const snapshotId = this.#nextMeta('next_snapshot_id');
      this.#sql(`INSERT INTO snapshots (snapshot_id, table_id, parent_id, branch, committed_micros, operation, summary, schema_id)
        VALUES (?, ?, NULL, 'main', ?, 'create', '{}', 0)`).run(snapshotId, id, nowMicros);
      this.#sql(`INSERT INTO refs VALUES (?, 'main', 'branch', ?, NULL)`).run(id, snapshotId);
      return { table: this.getTableById(id)!, created: true };
    });
  }

  getTable(namespace: string, name: string): TableRecord | undefined {
    return this.#cached(`table ${JSON.stringify([namespace, name])}`, () => {
      const r = this.#sql('SELECT * FROM tables WHERE namespace = ? AND name = ?').get(namespace, name) as TableRow | undefined;
      return r === undefined ? undefined : this.#withCurrentTypes(toTable(this.#numbers(r)));
    });
  }

  getTableById(id: number): TableRecord | undefined {
    return this.#cached(`table ${id}`, () => {
      const r = this.#sql('SELECT * FROM tables WHERE table_id = ?').get(id) as TableRow | undefined;
      return r === undefined ? undefined : this.#withCurrentTypes(toTable(this.#numbers(r)));
    });
  }

  listTables(namespace?: string): TableRecord[] {
    const rows = (namespace === undefined
      ? this.#sql('SELECT * FROM tables ORDER BY table_id').all()
      : this.#sql('SELECT * FROM tables WHERE namespace = ? ORDER BY table_id').all(namespace)) as TableRow[];
    return rows.map((r) => this.#withCurrentTypes(toTable(this.#numbers(r))));
  }

  #numbers(r: TableRow): TableRow {
    return { ...r, table_id: Number(r.table_id), schema_id: Number(r.schema_id), next_field_id: Number(r.next_field_id) };
  }

  updateTable(id: number, patch: TablePatch): TableRecord {
    return this.#immediate(() => {
      const cur = this.getTableById(id);
      if (cur === undefined) throw new FloeError(SqlState.undefinedTable, `table ${id} does not exist`);
      if (patch.name !== undefined && patch.name !== cur.name) {
        if (this.#relationExists(cur.namespace, patch.name)) {
          throw new FloeError(SqlState.duplicateTable, `relation "${patch.name}" already exists`);
        }
        this.#sql('UPDATE tables SET name = ? WHERE table_id = ?').run(patch.name, id);
      }
      if (patch.namespace !== undefined && patch.namespace !== cur.namespace) {
        this.#checkMoveTarget(patch.namespace, patch.name ?? cur.name);
        this.#sql('UPDATE tables SET namespace = ? WHERE table_id = ?').run(patch.namespace, id);
        this.#sql('UPDATE sequences SET namespace = ? WHERE owner_table = ?').run(patch.namespace, id);
      }
      if (patch.columns !== undefined) {
        const schemaId = cur.schemaId + 1;
        const columns = JSON.stringify(patch.columns);
        this.#sql('UPDATE tables SET columns = ?, schema_id = ?, next_field_id = ? WHERE table_id = ?')
          .run(columns, schemaId, patch.nextFieldId ?? cur.nextFieldId, id);
        this.#sql('INSERT INTO schemas VALUES (?, ?, ?)').run(id, schemaId, columns);
      }
      if (patch.properties !== undefined) {
        this.#sql('UPDATE tables SET properties = ? WHERE table_id = ?').run(JSON.stringify(patch.properties), id);
      }
      if (patch.constraints !== undefined) {
        this.#sql('UPDATE tables SET constraints = ? WHERE table_id = ?').run(JSON.stringify(patch.constraints), id);
      }
      return this.getTableById(id)!;
    });
  }

  dropTable(id: number): void {
    this.#immediate(() => this.#dropTableRows(id));
  }

  /** A table as read, its enum columns carrying their type's current name and labels (ALTER TYPE changes them). */
  #withCurrentTypes(t: TableRecord): TableRecord {
    const types = this.#types.list();
    return types.length === 0 ? t : { ...t, columns: currentEnumColumns(t.columns, types) };
  }

  // ---- user-defined types (sql-types.ts) ----

  createType(namespace: string, name: string, labels: readonly string[] | undefined): UserTypeMetadata {
    return this.#immediate(() => {
      if (this.#sql('SELECT 1 FROM namespaces WHERE name = ?').get(namespace) === undefined) {
        throw new FloeError(SqlState.undefinedSchema, `schema "${namespace}" does not exist`);
      }
      // A relation's row type takes its name in pg_type too.
      if (this.#types.get(namespace, name) !== undefined || this.#relationExists(namespace, name)) {
        throw new FloeError(SqlState.duplicateObject, `type "${name}" already exists`);
      }
      return this.#types.create(namespace, name, labels);
    });
  }

  getType(namespace: string, name: string): UserTypeMetadata | undefined {
    return this.#types.get(namespace, name);
  }

  getTypeByOid(oid: number): UserTypeMetadata | undefined {
    return this.#types.getByOid(oid);
  }

  listTypes(): UserTypeMetadata[] {
    return this.#types.list();
  }

  addEnumValue(oid: number, label: string, position: EnumLabelPosition, ifNotExists: boolean): boolean {
    return this.#immediate(() => {
      const t = this.#types.getByOid(oid);
      if (t?.labels === undefined) throw new FloeError(SqlState.wrongObjectType, `type ${oid} is not an enum`);
      const labels = addEnumLabel(t.labels, label, position, ifNotExists, this.#types.newLabelOid());
      if (labels === undefined) return false;
      this.#types.setLabels(oid, labels);
      return true;
    });
  }

  renameEnumValue(oid: number, from: string, to: string): void {
    this.#immediate(() => {
      const t = this.#types.getByOid(oid);
      if (t?.labels === undefined) throw new FloeError(SqlState.wrongObjectType, `type ${oid} is not an enum`);
      this.#types.setLabels(oid, renameEnumLabel(t.labels, from, to));
    });
  }

  /** RENAME TO / SET SCHEMA: 3F000 for a missing schema, 42710 when the name is taken there (PostgreSQL's two wordings). */
  moveType(oid: number, to: { namespace: string; name: string }): UserTypeMetadata {
    return this.#immediate(() => {
      const cur = this.#types.getByOid(oid);
      if (cur === undefined) throw new FloeError(SqlState.undefinedObject, `type ${oid} does not exist`);
      if (this.#sql('SELECT 1 FROM namespaces WHERE name = ?').get(to.namespace) === undefined) {
        throw new FloeError(SqlState.undefinedSchema, `schema "${to.namespace}" does not exist`);
      }
      const other = this.#types.get(to.namespace, to.name);
      if ((other !== undefined && other.oid !== oid) || (to.name !== cur.name && this.#relationExists(to.namespace, to.name))) {
        throw new FloeError(SqlState.duplicateObject, to.namespace === cur.namespace
          ? `type "${to.name}" already exists` : `type "${to.name}" already exists in schema "${to.namespace}"`);
      }
      this.#types.move(oid, to);
      return this.#types.getByOid(oid)!;
    });
  }

  dropTypes(oids: readonly number[]): void {
    this.#immediate(() => { for (const oid of oids) this.#types.drop(oid); });
  }

  #relationExists(namespace: string, name: string): boolean {
    return this.getTable(namespace, name) !== undefined || this.#sequences.get(namespace, name) !== undefined || this.#views.get(namespace, name) !== undefined;
  }

  /** SET SCHEMA's checks, as PostgreSQL words them. */
  #checkMoveTarget(namespace: string, name: string): void {
    if (this.#sql('SELECT 1 FROM namespaces WHERE name = ?').get(namespace) === undefined) {
      throw new FloeError(SqlState.undefinedSchema, `schema "${namespace}" does not exist`);
    }
    if (this.#relationExists(namespace, name)) {
      throw new FloeError(SqlState.duplicateTable, `relation "${name}" already exists in schema "${namespace}"`);
    }
  }

  // ---- materialized views (sql-materialized-views.ts) ----

  createMaterializedView(t: Omit<TableRecord, 'id' | 'schemaId'>, d: MaterializedViewDefinition, nowMicros: bigint): TableRecord {
    return this.#immediate(() => {
      const { table } = this.createTable(t, nowMicros, false);
      this.#materializedViews.insert(table.id, d);
      return table;
    });
  }

  getMaterializedView(tableId: number): MaterializedViewMetadata | undefined { return this.#materializedViews.get(tableId); }
  listMaterializedViews(): MaterializedViewMetadata[] { return this.#materializedViews.list(); }
  materializedViewIds(): readonly number[] { return this.#materializedViews.ids(); }
  setMaterializedViewOptions(tableId: number, options: readonly string[], fullRefreshReason: string | undefined): void {
    this.#immediate(() => this.#materializedViews.setOptions(tableId, options, fullRefreshReason));
  }
  recordMaterializedViewProgress(p: MaterializedViewProgress): void {
    this.#immediate(() => this.#materializedViews.recordProgress(p));
  }

  // ---- views and comments (sql-views.ts) ----

  putView(v: ViewDefinition, replaceId: number | undefined): ViewMetadata {
    return this.#immediate(() => {
      if (replaceId === undefined) {
        if (this.#sql('SELECT 1 FROM namespaces WHERE name = ?').get(v.namespace) === undefined) {
          throw new FloeError(SqlState.undefinedSchema, `schema "${v.namespace}" does not exist`);
        }
        if (this.#relationExists(v.namespace, v.name)) throw new FloeError(SqlState.duplicateTable, `relation "${v.name}" already exists`);
      }
      return this.#views.put(v, replaceId);
    });
  }

  getView(namespace: string, name: string): ViewMetadata | undefined {
    return this.#views.get(namespace, name);
  }

  getViewById(id: number): ViewMetadata | undefined {
    return this.#views.getById(id);
  }

  listViews(namespace?: string): ViewMetadata[] {
    return this.#views.list(namespace);
  }

  moveView(id: number, to: { namespace: string; name: string }): ViewMetadata {
    return this.#immediate(() => {
      const cur = this.#views.getById(id);
      if (cur === undefined) throw new FloeError(SqlState.undefinedTable, `view ${id} does not exist`);
      if (to.namespace !== cur.namespace) this.#checkMoveTarget(to.namespace, to.name);
      else if (to.name !== cur.name && this.#relationExists(to.namespace, to.name)) {
        throw new FloeError(SqlState.duplicateTable, `relation "${to.name}" already exists`);
      }
      this.#views.move(id, to);
      return this.#views.getById(id)!;
    });
  }

  dropViews(ids: readonly number[]): void {
    this.#immediate(() => { for (const id of ids) this.#views.drop(id); });
  }

  setComment(objectId: number, subId: number, description: string | null): void {
    this.#immediate(() => this.#views.setComment(objectId, subId, description));
  }

  listComments(): RelationComment[] {
    return this.#views.comments();
  }

  #dropTableRows(id: number): void {
    this.#views.dropComments(id);
    this.#materializedViews.drop(id);
    this.#sql("DELETE FROM object_acls WHERE object_kind = 'relation' AND object_key = ?").run(String(id));
    this.#sql('DELETE FROM sequences WHERE owner_table = ?').run(id);
    for (const t of ['tables', 'schemas', 'snapshots', 'refs', 'files', 'file_removals', 'squashed_snapshots', 'optimizing_runs', 'optimizing_states', 'file_replacements', 'file_epoch_swaps', 'row_policies', 'row_security']) {
      this.#sql(`DELETE FROM ${t} WHERE table_id = ?`).run(id);
    }
    // Kept (not deleted with the rest), so a memo of the dropped table in another process is void too.
    this.#bumpFileEpoch(id);
  }

  getSnapshot(tableId: number, id: bigint): SnapshotRecord | undefined {
    return this.#cached(`snapshot ${tableId} ${id}`, () => {
      const r = this.#sql('SELECT * FROM snapshots WHERE table_id = ? AND snapshot_id = ?').get(tableId, id) as SnapshotRow | undefined;
      return r === undefined ? undefined : toSnapshot(this.#snapNumbers(r));
    });
  }

  #snapNumbers(r: SnapshotRow): SnapshotRow {
    return { ...r, table_id: Number(r.table_id), schema_id: Number(r.schema_id), expired: Number(r.expired) };
  }

  newestSnapshotId(tableId: number): bigint | undefined {
    const r = this.#sql('SELECT MAX(snapshot_id) AS id FROM snapshots WHERE table_id = ?').get(tableId) as { id: bigint | number | null };
    return r.id === null ? undefined : BigInt(r.id);
  }

  listSnapshots(tableId: number, ids?: SnapshotIdRange): SnapshotRecord[] {
    // A range is walked on the primary key: `+table_id` keeps SQLite off the (table_id, committed_micros)
    // index, which would visit every snapshot of the table to find the few in the range.
    const rows = ids === undefined
      ? this.#sql('SELECT * FROM snapshots WHERE table_id = ? ORDER BY snapshot_id').all(tableId)
      : ids.limit === undefined
        ? this.#sql('SELECT * FROM snapshots WHERE snapshot_id BETWEEN ? AND ? AND +table_id = ? ORDER BY snapshot_id').all(ids.from, ids.to, tableId)
        : this.#sql('SELECT * FROM snapshots WHERE snapshot_id BETWEEN ? AND ? AND +table_id = ? AND expired = 0 ORDER BY snapshot_id LIMIT ?')
          .all(ids.from, ids.to, tableId, ids.limit);
    return (rows as SnapshotRow[]).map((r) => toSnapshot(this.#snapNumbers(r)));
  }

  ancestors(tableId: number, id: bigint): bigint[] {
    void tableId;
    return (this.#sql(`${ANCESTORS_CTE} SELECT id FROM anc`).all(id) as { id: bigint }[]).map((r) => BigInt(r.id));
  }

  getRef(tableId: number, name: string): RefRecord | undefined {
    return this.#cached(`ref ${tableId} ${JSON.stringify(name)}`, () => {
      const r = this.#sql('SELECT * FROM refs WHERE table_id = ? AND name = ?').get(tableId, name) as RefRow | undefined;
      return r === undefined ? undefined : toRef({ ...r, table_id: Number(r.table_id) });
    });
  }

  fileEpochs(): ReadonlyMap<number, number> {
    return this.#cached('file epochs', () => new Map(
      (this.#sql('SELECT table_id, epoch FROM file_epochs').all() as { table_id: bigint; epoch: bigint }[]).map((r) => [Number(r.table_id), Number(r.epoch)]),
    ));
  }

  branchHeads(branch: string): ReadonlyMap<number, bigint> {
    return this.#cached(`branch heads ${JSON.stringify(branch)}`, () => new Map(
      (this.#sql("SELECT table_id, snapshot_id FROM refs WHERE name = ? AND kind = 'branch'").all(branch) as { table_id: bigint; snapshot_id: bigint }[])
        .map((r) => [Number(r.table_id), BigInt(r.snapshot_id)]),
    ));
  }

  listRefs(tableId: number): RefRecord[] {
    return (this.#sql('SELECT * FROM refs WHERE table_id = ? ORDER BY name').all(tableId) as RefRow[])
      .map((r) => toRef({ ...r, table_id: Number(r.table_id) }));
  }

  putRef(ref: RefRecord, opts: { mustNotExist?: boolean; expect?: bigint }): void {
    this.#immediate(() => {
      const cur = this.getRef(ref.tableId, ref.name);
      if (opts.mustNotExist === true && cur !== undefined) {
        throw new FloeError(SqlState.duplicateObject, `${cur.kind} "${ref.name}" already exists`);
      }
      if (opts.expect !== undefined && (cur === undefined || cur.snapshotId !== opts.expect)) {
        throw new FloeError(SqlState.serializationFailure, `branch "${ref.name}" moved concurrently`);
      }
      this.#sql(`INSERT INTO refs VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id, name)
        DO UPDATE SET kind = excluded.kind, snapshot_id = excluded.snapshot_id, retain_micros = excluded.retain_micros`)
        .run(ref.tableId, ref.name, ref.kind, ref.snapshotId, ref.retainMicros ?? null);
    });
  }

  deleteRef(tableId: number, name: string): boolean {
    return this.#sql('DELETE FROM refs WHERE table_id = ? AND name = ?').run(tableId, name).changes > 0;
  }

  /**
   * A file id is never handed out twice. SQLite's rowid would reuse the largest id once its
   * row is deleted (tiering's in-place swap, expiry), and an optimize planned on the old file
   * would then pass its still-visible check and remove the new one: rows lost. The counter
   * also steps past the largest id in use, so a process of an older build on the same catalog
   * (which takes rowids) cannot make this insert collide.
   */
  #insertFile(tableId: number, f: NewFileRecord, dvTarget: number | bigint | undefined, addedIn: bigint): bigint {
    const fileId = BigInt((this.#sql(`UPDATE meta SET value = 1 + (SELECT CASE WHEN meta.value > m THEN meta.value ELSE m END
        FROM (SELECT COALESCE(MAX(file_id), 0) + 1 AS m FROM files) AS used)
      WHERE key = 'next_file_id' RETURNING value - 1 AS v`).get() as { v: bigint }).v);
    this.#sql(`INSERT INTO files (file_id, table_id, store, path, partition_key, partition_values, node_mask, node_index,
      row_count, size_bytes, seq, first_offset, stats, dv_target, dv_positions, row_groups, key_bitmap, added_in, snapshots)
      VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`).run(fileId, tableId, f.store, f.path, f.partitionKey, JSON.stringify(f.partitionValues), f.nodeMask, f.nodeIndex,
      f.rowCount, f.sizeBytes, f.seq, f.firstOffset, JSON.stringify(f.stats), dvTarget ?? null,
      f.dvPositions === undefined ? null : Buffer.from(f.dvPositions.buffer, f.dvPositions.byteOffset, f.dvPositions.byteLength),
      f.rowGroups === undefined ? null : JSON.stringify(f.rowGroups),
      f.keyBitmap === undefined ? null : Buffer.from(f.keyBitmap.buffer, f.keyBitmap.byteOffset, f.keyBitmap.byteLength), addedIn,
      f.snapshots === undefined ? null : JSON.stringify(f.snapshots.map(String)));
    return fileId;
  }

  /**
   * A write transaction of `normal` durability (SQLite's synchronous=NORMAL, PostgreSQL's
   * synchronous_commit = off): for writes something else makes durable
   * (the log store's log), or whose loss on an OS crash is harmless (a transaction's
   * registration: one that committed was made durable by its commit's fsync, which covers
   * every earlier transaction of the database's WAL).
   */
  #immediateNormal<T>(fn: () => T): T {
    return this.#immediate(fn, 'normal');
  }

  registerLogWriter(w: { id: string; pid: number; host: string }, nowMicros: bigint): void {
    this.#immediate(() => {
      this.#sql('INSERT INTO log_writers VALUES (?, ?, ?, ?, 0)').run(w.id, w.pid, w.host, nowMicros);
    });
  }

  heartbeatLogWriter(id: string, nowMicros: bigint): boolean {
    return this.#ownWrite('none', 'normal', () => this.#sql('UPDATE log_writers SET heartbeat_micros = ? WHERE writer_id = ?').run(nowMicros, id).changes > 0);
  }

  listLogWriters(): LogWriterRecord[] {
    return (this.#sql('SELECT * FROM log_writers ORDER BY writer_id').all() as { writer_id: string; pid: bigint; host: string; heartbeat_micros: bigint; applied_lsn: bigint }[])
      .map((r) => ({ id: r.writer_id, pid: Number(r.pid), host: r.host, heartbeatMicros: BigInt(r.heartbeat_micros), appliedLsn: BigInt(r.applied_lsn) }));
  }

  dropLogWriter(id: string): void {
    this.#immediate(() => {
      this.#sql('DELETE FROM log_writers WHERE writer_id = ?').run(id);
    });
  }

  applyLoggedCommits(writerId: string, commits: readonly LoggedCommit[], appliedLsn: bigint, nowMicros: bigint): LoggedCommitOutcome[] {
    // SQLite's file dies with the host that runs the writer, whose restart replays the log;
    // a PostgreSQL catalog can crash and come back while the writer lives on and has moved
    // its applied LSN past what was lost, so there the apply is made durable by itself.
    const durability = this.#db.dialect === 'postgres' ? 'full' : 'normal';
    return this.#ownWrite('commit', durability, () => {
      // First, so a refused call writes nothing: the row moves only forward, by its own writer or one replay.
      const firstLsn = commits.length === 0 ? appliedLsn : commits[0]!.lsn;
      const claimed = this.#sql('UPDATE log_writers SET applied_lsn = ?, heartbeat_micros = ? WHERE writer_id = ? AND applied_lsn <= ?')
        .run(appliedLsn, nowMicros, writerId, firstLsn).changes > 0;
      if (!claimed) {
        throw new FloeError(SqlState.objectNotInPrerequisiteState, `log writer ${writerId} was taken over by another process`, { detail: LOG_WRITER_TAKEN_OVER });
      }
      const out: LoggedCommitOutcome[] = [];
      // Per table and branch: the head before this call's first commit on it, and the snapshots its commits added.
      const batchHeads = new Map<string, { before: bigint; added: Set<bigint> }>();
      for (const c of commits) {
        const requests = c.requests.map((r) => this.#rebasedRequest(r, batchHeads));
        // A nested transaction is a savepoint: a failure rolls back this commit alone.
        try {
          const snapshots = this.#db.transaction('write', 'normal', () => this.#commitRequests(requests, c.txnId, nowMicros));
          for (const snap of snapshots) {
            const key = `${snap.tableId}\u0000${snap.branch}`;
            const seen = batchHeads.get(key);
            if (seen === undefined) batchHeads.set(key, { before: snap.parentId ?? -1n, added: new Set([snap.id]) });
            else seen.added.add(snap.id);
          }
          out.push({ ok: true, snapshots });
        } catch (error) {
          out.push({ ok: false, error });
        }
      }
      return out;
    });
  }

  /**
   * CommitRequest.rebaseKeyBitmap: every snapshot from `head` back to the request's
   * expected head is an optimize, or a write on its schema that removed nothing and added
   * only change files whose key bitmaps miss the request's. Read uncached: this runs inside
   * the commit's write transaction.
   */
  #keysUntouchedSince(req: CommitRequest, head: bigint): boolean {
    const bitmap = req.rebaseKeyBitmap;
    const expect = req.expectHead;
    if (bitmap === undefined || expect === undefined) return false;
    const snapshot = this.#sql('SELECT parent_id, operation, schema_id FROM snapshots WHERE table_id = ? AND snapshot_id = ?');
    const removed = this.#sql('SELECT 1 FROM file_removals WHERE table_id = ? AND snapshot_id = ? LIMIT 1');
    const added = this.#sql('SELECT store, key_bitmap FROM files WHERE table_id = ? AND added_in = ?');
    let at: bigint | null = head;
    for (let steps = 0; at !== null && at !== expect; steps++) {
      // Snapshot ids grow along a branch: below the expected head, the walk left its line.
      if (steps >= REBASE_WALK_MAX || at < expect) return false;
      const s = snapshot.get(req.tableId, at) as { parent_id: bigint | null; operation: string; schema_id: bigint } | undefined;
      if (s === undefined) return false;
      if (s.operation !== 'optimize') {
        if (Number(s.schema_id) !== req.schemaId || removed.get(req.tableId, at) !== undefined) return false;
        const files = added.all(req.tableId, at) as { store: string; key_bitmap: Buffer | null }[];
        // None: its files were merged under another snapshot (tiering, expiry), so unknown here.
        if (files.length === 0) return false;
        for (const f of files) {
          if (f.store !== 'change' || f.key_bitmap === null || keyBitmapsMayShare(new Uint8Array(f.key_bitmap), bitmap)) return false;
        }
      }
      at = s.parent_id === null ? null : BigInt(s.parent_id);
    }
    return at === expect;
  }

  /** A rebasable request whose expected head was moved only by this call's earlier commits expects the head they left. */
  #rebasedRequest(req: CommitRequest, batchHeads: ReadonlyMap<string, { before: bigint; added: ReadonlySet<bigint> }>): CommitRequest {
    if (req.rebaseWithinBatch !== true || req.expectHead === undefined) return req;
    const seen = batchHeads.get(`${req.tableId}\u0000${req.branch}`);
    const head = this.getRef(req.tableId, req.branch)?.snapshotId;
    if (seen === undefined || head === undefined || seen.before !== req.expectHead || !seen.added.has(head)) return req;
    return { ...req, expectHead: head };
  }

  raiseNextSeq(seq: bigint): void {
    // Seqs of the lease's block may now be below replayed ones.
    this.#lease?.drop();
    this.#immediate(() => {
      this.#sql("UPDATE meta SET value = CASE WHEN value > ? THEN value ELSE ? END WHERE key = 'next_seq'").run(seq, seq);
    });
  }

  setFileStats(tableId: number, updates: readonly { readonly fileId: number; readonly stats: Readonly<Record<string, FileColumnStats>> }[]): void {
    if (updates.length === 0) return;
    this.#immediate(() => {
      const update = this.#sql('UPDATE files SET stats = ? WHERE table_id = ? AND file_id = ?');
      for (const u of updates) update.run(JSON.stringify(u.stats), tableId, u.fileId);
      this.#bumpFileEpoch(tableId);
    });
  }

  replaceFilesInPlace(
    tableId: number, removeFileIds: readonly number[], add: NewFileRecord, addedIn: bigint, requireLive?: LiveFilesRequirement,
  ): FileRecord | undefined {
    return this.#immediate(() => {
      const ids = [...new Set(removeFileIds)];
      const rows = this.#sql(`SELECT f.file_id, f.added_in FROM files f WHERE f.table_id = ? AND f.file_id IN (SELECT value FROM json_each(?))
        AND NOT EXISTS (SELECT 1 FROM file_removals r WHERE r.file_id = f.file_id)`).all(tableId, JSON.stringify(ids)) as { file_id: bigint; added_in: bigint }[];
      if (rows.length !== ids.length) return undefined;
      // The new file's commits were read from the replaced rows: an expiry that squashed one of
      // them since moved its added_in (and deleted the snapshot), and the file would name a
      // snapshot no lineage holds, hidden from every read.
      const commits = new Set((add.snapshots ?? [addedIn]).map(String));
      if (!commits.has(String(addedIn)) || rows.some((r) => !commits.has(String(r.added_in)))) return undefined;
      if (this.getSnapshot(tableId, addedIn) === undefined) return undefined;
      if (requireLive !== undefined && requireLive.fileIds.length > 0) {
        const keep = [...new Set(requireLive.fileIds)];
        const live = this.#sql(`SELECT COUNT(*) AS n FROM files f WHERE f.table_id = ? AND f.file_id IN (SELECT value FROM json_each(?))
          AND NOT EXISTS (SELECT 1 FROM file_removals r WHERE r.file_id = f.file_id AND r.snapshot_id > ?)`)
          .get(tableId, JSON.stringify(keep), requireLive.notRemovedAfter) as { n: bigint };
        if (Number(live.n) !== keep.length) return undefined;
      }
      this.#sql('DELETE FROM files WHERE table_id = ? AND file_id IN (SELECT value FROM json_each(?))').run(tableId, JSON.stringify(ids));
      this.#bumpFileEpoch(tableId);
      const fileId = this.#insertFile(tableId, add, undefined, addedIn);
      this.#logSwap(tableId, ids, rows, addedIn, fileId);
      return toFileNumbers(this.#sql('SELECT * FROM files WHERE file_id = ?').get(fileId) as FileRow);
    });
  }

  filePathsWithPrefix(prefix: string): string[] {
    // A range on the path, not LIKE: '_' and '%' in a prefix are literal here.
    return (this.#sql('SELECT path FROM files WHERE path >= ? AND path < ?').all(prefix, `${prefix}\uffff`) as { path: string }[]).map((r) => r.path);
  }

  oldestFilePathWithPrefix(prefix: string): string | undefined {
    const row = this.#sql('SELECT MIN(path) AS path FROM files WHERE path >= ? AND path < ?').get(prefix, `${prefix}\uffff`) as { path: string | null } | undefined;
    return row?.path ?? undefined;
  }

  beginTxn(id: string, pid: number, nowMicros: bigint, freshMicros = DEFAULT_LEASE_FRESH_MICROS): bigint {
    const lease = this.#lease;
    if (lease === undefined) {
      return this.#ownWrite('none', 'normal', () => {
        const seq = this.#nextMeta('next_seq');
        this.#sql('INSERT INTO txns VALUES (?, ?, ?, ?, ?)').run(id, seq, nowMicros, nowMicros, pid);
        return seq;
      });
    }
    const seq = lease.take(id, nowMicros, this.#othersVersion(this.#dataVersion()), freshMicros);
    if (seq !== undefined) return seq;
    try {
      return this.#ownWrite('none', 'normal', () => {
        const first = BigInt((this.#sql(`UPDATE meta SET value = value + ? WHERE key = 'next_seq' RETURNING value - ? AS v`)
          .get(SEQ_LEASE_BLOCK, SEQ_LEASE_BLOCK) as { v: bigint }).v);
        const rowExists = this.#sql('SELECT 1 FROM txns WHERE txn_id = ?').get(lease.id) !== undefined;
        if (!rowExists) lease.replaceRow();
        const taken = lease.renewed(id, first, SEQ_LEASE_BLOCK, nowMicros, this.#othersVersion(this.#db.dataVersion()));
        const floor = lease.floor(nowMicros);
        if (rowExists) this.#writeLeaseRow(nowMicros, floor, pid);
        else this.#sql('INSERT INTO txns VALUES (?, ?, ?, ?, ?)').run(lease.id, floor.seq, floor.startedMicros, nowMicros, pid);
        return taken;
      });
    } catch (error) {
      lease.end(id);
      lease.drop();
      throw error;
    }
  }

  /**
   * What moves when anyone but this catalog commits to the database: other connections'
   * commits move its data version, and this thread's other catalogs' writes their ownChanges
   * (seen at once, where the data version moves only from the next synchronous run on).
   */
  #othersVersion(dataVersion: bigint): string {
    let others = 0n;
    for (const c of this.#sameDatabase) if (c !== this) others += c.#db.ownChanges();
    return `${dataVersion}/${others}`;
  }

  /** The lease row's floor, start and heartbeat as they are now (inside a write transaction). */
  #writeLeaseRow(nowMicros: bigint, floor = this.#lease!.floor(nowMicros), pid = process.pid): boolean {
    this.#lease!.writing(nowMicros);
    return this.#sql('UPDATE txns SET seq = ?, started_micros = ?, heartbeat_micros = ?, pid = ? WHERE txn_id = ?')
      .run(floor.seq, floor.startedMicros, nowMicros, pid, this.#lease!.id).changes > 0;
  }

  heartbeatTxn(id: string, nowMicros: bigint): boolean {
    const lease = this.#lease;
    if (lease?.holds(id)) return lease.live(id) && this.#ownWrite('none', 'normal', () => this.#writeLeaseRow(nowMicros));
    return this.#ownWrite('none', 'normal', () => this.#sql('UPDATE txns SET heartbeat_micros = ? WHERE txn_id = ?').run(nowMicros, id).changes > 0);
  }

  endTxn(id: string, nowMicros: bigint): void {
    const lease = this.#lease;
    if (lease?.holds(id)) {
      const live = lease.live(id);
      lease.end(id);
      // Written now, so a rolled-back transaction does not hold the low watermark until the next commit.
      if (live) this.#ownWrite('none', 'normal', () => this.#writeLeaseRow(nowMicros));
      return;
    }
    this.#ownWrite('none', 'normal', () => this.#sql('DELETE FROM txns WHERE txn_id = ?').run(id));
  }

  listTxns(): TxnRecord[] {
    return (this.#sql('SELECT * FROM txns ORDER BY seq').all() as { txn_id: string; seq: bigint; started_micros: bigint; heartbeat_micros: bigint; pid: bigint }[])
      .map((r) => ({ id: r.txn_id, seq: BigInt(r.seq), startedMicros: BigInt(r.started_micros), heartbeatMicros: BigInt(r.heartbeat_micros), pid: Number(r.pid) }));
  }

  abortStaleTxns(cutoffMicros: bigint): string[] {
    // Every fold asks, and nearly always nothing is stale: a read, not an fsynced write transaction.
    if (this.#sql('SELECT 1 FROM txns WHERE heartbeat_micros < ? LIMIT 1').get(cutoffMicros) === undefined) return [];
    return this.#immediate(() => {
      const ids = (this.#sql('SELECT txn_id FROM txns WHERE heartbeat_micros < ?').all(cutoffMicros) as { txn_id: string }[]).map((r) => r.txn_id);
      this.#sql('DELETE FROM txns WHERE heartbeat_micros < ?').run(cutoffMicros);
      return ids;
    });
  }

  lowWatermark(): bigint {
    return this.#db.transaction('read', 'full', () => {
      const open = this.#sql('SELECT MIN(seq) AS s FROM txns').get() as { s: bigint | null };
      if (open.s !== null) return BigInt(open.s);
      return BigInt((this.#sql(`SELECT value FROM meta WHERE key = 'next_seq'`).get() as { value: bigint }).value);
    });
  }

  visibleFiles(tableId: number, snapshotId: bigint): FileRecord[] {
    // Inside a write transaction rows may yet be rolled back: nothing read there is kept.
    if (this.#db.inTransaction) return this.#queryVisibleFiles(tableId, snapshotId);
    // One read transaction, so the epoch and the rows a set is derived from are of one moment.
    return this.#cached(`files ${tableId} ${snapshotId}`,
      () => this.#db.transaction('read', 'full', () => this.#visible.visibleFiles(tableId, snapshotId) as FileRecord[]));
  }

  #queryVisibleFiles(tableId: number, snapshotId: bigint): FileRecord[] {
    return (this.#sql(VISIBLE_FILES).all(snapshotId, tableId, tableId) as FileRow[]).map(toFileNumbers);
  }

  /**
   * File rows of the table changed without a new snapshot: every process's visible-set memo
   * of it is void, unless the change is logged as a swap (#logSwap) it can apply.
   */
  #bumpFileEpoch(tableId: number): void {
    this.#sql('INSERT INTO file_epochs VALUES (?, 1) ON CONFLICT (table_id) DO UPDATE SET epoch = file_epochs.epoch + 1').run(tableId);
  }

  /**
   * Records the swap that just moved the table's file epoch, so that memos patch their sets
   * rather than drop them (visible-files-memo.ts, FileSwap): tiering and change compaction
   * swap files on a streaming table every second, and a dropped set is read again by the
   * ancestor walk, whose cost grows with the table's history. The anchor is a replaced file
   * added at the new file's `added_in`: the new file is visible wherever the anchor was. A
   * swap without one is not logged, and memos start over. Only the last swaps are kept.
   */
  #logSwap(tableId: number, removed: readonly number[], rows: readonly { file_id: bigint; added_in: bigint }[], addedIn: bigint, addedFileId: bigint): void {
    const anchor = rows.find((r) => BigInt(r.added_in) === addedIn);
    if (anchor === undefined) return;
    // The epoch is read inside the statements, not brought back first: on PostgreSQL neither
    // result is read, so both go with the transaction's next round trip.
    this.#sql('INSERT INTO file_epoch_swaps SELECT ?, epoch, ?, ?, ? FROM file_epochs WHERE table_id = ?')
      .run(tableId, JSON.stringify(removed), anchor.file_id, addedFileId, tableId);
    this.#sql('DELETE FROM file_epoch_swaps WHERE table_id = ? AND epoch <= (SELECT epoch FROM file_epochs WHERE table_id = ?) - ?')
      .run(tableId, tableId, KEPT_SWAPS);
  }

  filesAddedIn(tableId: number, snapshotIds: readonly bigint[]): FileRecord[] {
    if (snapshotIds.length === 0) return [];
    return (this.#sql(`SELECT * FROM files WHERE table_id = ? AND added_in IN (SELECT value FROM json_each(?)) ORDER BY file_id`)
      .all(tableId, JSON.stringify(snapshotIds.map(Number))) as FileRow[]).map(toFileNumbers);
  }

  tieredFiles(tableId: number): FileRecord[] {
    return (this.#sql('SELECT * FROM files WHERE table_id = ? AND snapshots IS NOT NULL ORDER BY file_id').all(tableId) as FileRow[]).map(toFileNumbers);
  }

  allFiles(tableId: number): FileRecord[] {
    return (this.#sql('SELECT * FROM files WHERE table_id = ? ORDER BY file_id').all(tableId) as FileRow[]).map(toFileNumbers);
  }

  allFilePaths(tableId: number): Set<string> {
    return new Set((this.#sql('SELECT path FROM files WHERE table_id = ?').all(tableId) as { path: string }[]).map((r) => r.path));
  }

  fileReplacements(tableId: number, fileIds: readonly number[]): FileReplacement[] {
    return selectFileReplacements((q) => this.#sql(q), tableId, fileIds);
  }

  commit(requests: readonly CommitRequest[], txnId: string | undefined, nowMicros: bigint): SnapshotRecord[] {
    return this.#ownWrite('commit', 'full', () => this.#commitRequests(requests, txnId, nowMicros));
  }

  rewriteTable(tableId: number, change: { readonly primaryKey: readonly string[]; readonly columns: readonly ColumnMetadata[] }, request: CommitRequest, txnId: string, nowMicros: bigint): TableRecord {
    return this.#immediate(() => {
      const { schemaId } = this.updateTable(tableId, { columns: change.columns });
      this.#sql('UPDATE tables SET primary_key = ? WHERE table_id = ?').run(JSON.stringify(change.primaryKey), tableId);
      const [snapshot] = this.#commitRequests([{ ...request, schemaId }], txnId, nowMicros);
      this.#sql('UPDATE snapshots SET expired = 1 WHERE table_id = ? AND snapshot_id <> ?').run(tableId, snapshot!.id);
      return this.getTableById(tableId)!;
    });
  }

  #commitRequests(requests: readonly CommitRequest[], txnId: string | undefined, nowMicros: bigint): SnapshotRecord[] {
    {
      const lease = txnId !== undefined && this.#lease?.holds(txnId) ? this.#lease : undefined;
      if (txnId !== undefined) {
        const row = lease === undefined ? txnId : lease.id;
        const live = (lease === undefined || lease.live(txnId)) && this.#sql('SELECT 1 FROM txns WHERE txn_id = ?').get(row) !== undefined;
        if (!live) {
          throw new FloeError(SqlState.serializationFailure, 'transaction was aborted because it stopped sending heartbeats', {
            hint: 'Retry the transaction.',
          });
        }
      }
      const out: SnapshotRecord[] = [];
      for (const req of requests) out.push(this.#commitOne(req, nowMicros));
      if (lease !== undefined) {
        // The lease's row no longer holds this seq; the transaction ends when the catalog transaction commits.
        this.#writeLeaseRow(nowMicros, lease.floor(nowMicros, txnId));
        lease.ending(txnId!);
      } else if (txnId !== undefined) {
        this.#sql('DELETE FROM txns WHERE txn_id = ?').run(txnId);
      }
      return out;
    }
  }

  #commitOne(req: CommitRequest, nowMicros: bigint): SnapshotRecord {
    // Inside the write transaction reads are not cached: an existence check, not the parsed table.
    if (this.#sql('SELECT 1 FROM tables WHERE table_id = ?').get(req.tableId) === undefined) {
      throw new FloeError(SqlState.undefinedTable, `table ${req.tableId} was dropped`);
    }
    const ref = this.getRef(req.tableId, req.branch);
    if (ref === undefined) throw new FloeError(SqlState.undefinedObject, `branch "${req.branch}" does not exist`);
    if (ref.kind !== 'branch') throw new FloeError(SqlState.objectNotInPrerequisiteState, `"${req.branch}" is a tag; tags cannot be written`);
    if (req.expectHead !== undefined && ref.snapshotId !== req.expectHead && !this.#keysUntouchedSince(req, ref.snapshotId)) {
      throw new FloeError(SqlState.serializationFailure, 'could not serialize access due to concurrent update', { detail: HEAD_MOVED });
    }
    const head = this.getSnapshot(req.tableId, ref.snapshotId)!;
    if (req.requireVisible !== undefined && req.requireVisible.length > 0 && !this.#stillVisible(req.tableId, head.id, req.requireVisible, req.requireVisibleSince)) {
      throw new OptimizerConflict();
    }
    const id = this.#nextMeta('next_snapshot_id');
    // Commit times are strictly increasing along a branch so timestamp travel is unambiguous.
    const at = nowMicros > head.committedAtMicros ? nowMicros : head.committedAtMicros + 1n;
    this.#sql(`INSERT INTO snapshots (snapshot_id, table_id, parent_id, branch, committed_micros, operation, summary, schema_id)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(id, req.tableId, head.id, req.branch, at, req.operation, JSON.stringify(req.summary), req.schemaId);
    // A negative dvTarget names a file added by this same request (staged-file-id.ts).
    const added: bigint[] = [];
    for (const f of req.addFiles) {
      const dvTarget = f.dvTarget !== undefined && f.dvTarget < 0 ? added[-1 - f.dvTarget] : f.dvTarget;
      if (f.dvTarget !== undefined && dvTarget === undefined) throw new FloeError(SqlState.internalError, `deletion vector names staged file ${f.dvTarget}, which the commit does not add`);
      added.push(this.#insertFile(req.tableId, f, dvTarget, id));
    }
    const rem = this.#sql('INSERT INTO file_removals VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
    for (const fid of req.removeFileIds) rem.run(fid, id, req.tableId);
    if (req.replacements !== undefined) insertFileReplacements((q) => this.#sql(q), req.tableId, req.replacements, added);
    this.#sql('UPDATE refs SET snapshot_id = ? WHERE table_id = ? AND name = ?').run(id, req.tableId, req.branch);
    if (req.subscriptionProgress !== undefined) this.#subscriptions.recordProgress(req.subscriptionProgress, nowMicros);
    if (req.viewRefresh !== undefined) this.#materializedViews.recordProgress(req.viewRefresh);
    // The row just inserted, as getSnapshot would read it back (not read: this runs once per commit).
    return {
      tableId: req.tableId, id, parentId: head.id, branch: req.branch, committedAtMicros: at, operation: req.operation,
      summary: { ...req.summary }, schemaId: req.schemaId, expired: false, squashedFromMicros: undefined,
    };
  }

  /**
   * Whether every file in `fileIds` is visible at `head`. With `since` (a snapshot at which
   * they all were) only the commits after it are read: a file visible there is visible at a
   * descendant unless a snapshot between them removed it. Reading the whole lineage cost 19 ms
   * at 8,000 snapshots, on the event loop, for every optimizer commit of a streaming table.
   */
  #stillVisible(tableId: number, head: bigint, fileIds: readonly number[], since: bigint | undefined): boolean {
    const files = JSON.stringify(fileIds);
    const after = since === undefined ? undefined : this.#lineageBack(head, since);
    if (after !== undefined) {
      // The row must still be there too: a tiering swap deletes the files it replaces.
      const row = this.#sql(`SELECT COUNT(*) AS n FROM files f WHERE f.table_id = ? AND f.file_id IN (SELECT value FROM json_each(?))
        AND NOT EXISTS (SELECT 1 FROM file_removals r WHERE r.file_id = f.file_id AND r.snapshot_id IN (SELECT value FROM json_each(?)))`)
        .get(tableId, files, JSON.stringify(after.map(Number))) as { n: bigint };
      return Number(row.n) === new Set(fileIds).size;
    }
    const row = this.#sql(`${ANCESTORS_CTE}
      SELECT COUNT(*) AS n FROM files f WHERE f.file_id IN (SELECT value FROM json_each(?)) AND f.added_in IN (SELECT id FROM anc)
        AND NOT EXISTS (SELECT 1 FROM file_removals r WHERE r.file_id = f.file_id AND r.snapshot_id IN (SELECT id FROM anc))`)
      .get(head, files) as { n: bigint };
    return Number(row.n) === new Set(fileIds).size;
  }

  /**
   * The snapshots from `id` back to its ancestor `ancestor`, excluded, newest first; undefined
   * when `ancestor` is not on `id`'s line (a rollback took it off, expiry squashed it).
   * Parents have smaller ids than their children, so the walk stops at `ancestor` or just below.
   */
  #lineageBack(id: bigint, ancestor: bigint): bigint[] | undefined {
    const path = (this.#sql(`WITH RECURSIVE path(id) AS (
        SELECT CAST(? AS BIGINT) UNION ALL
        SELECT s.parent_id FROM snapshots s JOIN path ON s.snapshot_id = path.id WHERE s.parent_id IS NOT NULL AND s.parent_id >= ?)
      SELECT id FROM path`).all(id, ancestor) as { id: bigint }[]).map((r) => BigInt(r.id));
    return path.includes(ancestor) ? path.filter((p) => p !== ancestor) : undefined;
  }

  expire(tableId: number, snapshotIds: readonly bigint[], deleteFileIds: readonly number[]): void {
    this.#immediate(() => {
      // A ref moved onto a snapshot being expired (rollback) since the caller planned.
      const heads = new Set(this.listRefs(tableId).map((r) => String(r.snapshotId)));
      if (snapshotIds.some((s) => heads.has(String(s)))) {
        throw new FloeError(SqlState.serializationFailure, 'a ref moved while snapshots were being expired', { hint: 'Run the expiration again.' });
      }
      const mark = this.#sql('UPDATE snapshots SET expired = 1 WHERE table_id = ? AND snapshot_id = ?');
      for (const s of snapshotIds) mark.run(tableId, s);
      const delF = this.#sql('DELETE FROM files WHERE table_id = ? AND file_id = ?');
      const delR = this.#sql('DELETE FROM file_removals WHERE file_id = ?');
      for (const f of deleteFileIds) { delF.run(tableId, f); delR.run(f); }
      this.#squashExpired(tableId);
      pruneFileReplacements((q) => this.#sql(q), tableId);
      this.#bumpFileEpoch(tableId);
    });
  }

  /**
   * Keeps lineage walks short: an expired snapshot with no children is deleted, and one
   * with exactly one child is merged into that child (its added files and removals move
   * to the child, the child takes its parent). Visibility is unchanged for every
   * remaining snapshot: one that descends from the child had both in its ancestry, one
   * that does not had neither. The child remembers the oldest commit time merged into
   * it, so timestamp travel into the squashed span still reports "expired".
   */
  #squashExpired(tableId: number): void {
    // Every file_removals statement names the table: its index is (table_id, snapshot_id), and
    // by snapshot alone each squash scanned every removal row (quadratic in expired history).
    const expired = this.#sql('SELECT snapshot_id AS id FROM snapshots WHERE table_id = ? AND expired = 1');
    // Re-read each row as it is visited: squashing one snapshot changes its neighbours.
    const current = this.#sql(`SELECT s.snapshot_id AS id, s.parent_id AS parent, s.committed_micros AS at,
        s.squashed_from_micros AS floor, (SELECT COUNT(*) FROM snapshots c WHERE c.parent_id = s.snapshot_id) AS n
      FROM snapshots s WHERE s.snapshot_id = ?`);
    const only = this.#sql('SELECT snapshot_id AS id, committed_micros AS at, squashed_from_micros AS floor FROM snapshots WHERE parent_id = ?');
    for (let changed = true; changed;) {
      changed = false;
      for (const { id } of expired.all(tableId) as { id: bigint }[]) {
        const x = current.get(id) as { id: bigint; parent: bigint | null; at: bigint; floor: bigint | null; n: bigint } | undefined;
        if (x === undefined) continue;
        if (Number(x.n) <= 1) this.#sql('INSERT INTO squashed_snapshots VALUES (?, ?) ON CONFLICT DO NOTHING').run(x.id, tableId);
        if (Number(x.n) === 0) {
          this.#sql('DELETE FROM file_removals WHERE table_id = ? AND snapshot_id = ?').run(tableId, x.id);
          this.#sql('DELETE FROM files WHERE table_id = ? AND added_in = ?').run(tableId, x.id);
          this.#sql('DELETE FROM snapshots WHERE snapshot_id = ?').run(x.id);
          changed = true;
        } else if (Number(x.n) === 1) {
          const c = only.get(x.id) as { id: bigint; at: bigint; floor: bigint | null };
          const floors = [x.at, x.floor, c.floor].filter((v): v is bigint => v !== null).map(BigInt);
          const floor = floors.reduce((m, v) => (v < m ? v : m), floors[0]!);
          this.#sql('UPDATE files SET added_in = ? WHERE table_id = ? AND added_in = ?').run(c.id, tableId, x.id);
          // A file removed in both keeps the child's row; the parent's goes with the parent.
          this.#sql(`UPDATE file_removals SET snapshot_id = ? WHERE table_id = ? AND snapshot_id = ?
            AND file_id NOT IN (SELECT file_id FROM file_removals WHERE snapshot_id = ?)`).run(c.id, tableId, x.id, c.id);
          this.#sql('DELETE FROM file_removals WHERE table_id = ? AND snapshot_id = ?').run(tableId, x.id);
          this.#sql('UPDATE snapshots SET parent_id = ?, squashed_from_micros = ? WHERE snapshot_id = ?').run(x.parent, floor, c.id);
          this.#sql('DELETE FROM snapshots WHERE snapshot_id = ?').run(x.id);
          changed = true;
        }
      }
    }
  }

  wasSnapshotExpired(tableId: number, id: bigint): boolean {
    return this.#sql('SELECT 1 FROM squashed_snapshots WHERE table_id = ? AND snapshot_id = ?').get(tableId, id) !== undefined;
  }

  fileRemovals(tableId: number): { fileId: number; snapshotId: bigint }[] {
    return (this.#sql('SELECT file_id, snapshot_id FROM file_removals WHERE table_id = ?').all(tableId) as { file_id: bigint; snapshot_id: bigint }[])
      .map((r) => ({ fileId: Number(r.file_id), snapshotId: BigInt(r.snapshot_id) }));
  }

  close(): void {
    // The lease's row would hold the low watermark until it went stale: its transactions end with this connection.
    if (this.#lease?.written === true) {
      try { this.#immediate(() => this.#sql('DELETE FROM txns WHERE txn_id = ?').run(this.#lease!.id), 'normal'); } catch { /* a stale sweep removes it */ }
    }
    this.#sameDatabase.delete(this);
    if (this.#sameDatabase.size === 0 && typeof this.#db.key === 'string') catalogsOnDatabase.delete(this.#db.key);
    this.#db.close();
  }
}

function toFileNumbers(r: FileRow): FileRecord {
  return toFile({
    ...r, file_id: Number(r.file_id), table_id: Number(r.table_id), node_mask: Number(r.node_mask),
    node_index: Number(r.node_index), row_count: Number(r.row_count), size_bytes: Number(r.size_bytes),
    first_offset: Number(r.first_offset), dv_target: r.dv_target === null ? null : Number(r.dv_target),
  });
}
