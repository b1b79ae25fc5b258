import { buildIndexFilters } from '../stats/build-index-filters.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Catalog, SnapshotIdRange, TableRecord } from '../catalog/catalog.js';
import { logBacklog } from '../log/log-backlog.js';
import type { LogBacklog } from '../log/log-backlog.js';
import { tierLogFiles } from '../log/tier-log-files.js';
import { exportIcebergMetadata } from '../iceberg/export-iceberg-metadata.js';
import { icebergTableKey } from '../iceberg/iceberg-locations.js';
import { loadIcebergTable, type IcebergTableLoad } from '../iceberg/newest-metadata-version.js';
import type { IcebergExportOptions, IcebergExportResult } from '../iceberg/export-iceberg-metadata.js';
import type { TierOptions, TierResult } from '../log/tier-log-files.js';
import { optimizeTable } from '../optimize/optimize-table.js';
import { optimizingMetrics } from '../optimize/optimizing-metrics.js';
import type { OptimizeOptions, OptimizeResult, OptimizingMetrics } from '../optimize/optimize-result.js';
import type {
  NewSubscription, SubscriptionMetadata, SubscriptionPatch, SubscriptionProgress, SubscriptionRunner, SubscriptionStatus,
} from '../subscription/subscription-metadata.js';
import type { NewOptimizingRun, OptimizerGroup, OptimizerRecord, OptimizingRun, OptimizingTableState, SchedulingPolicy } from '../optimize/optimizing-records.js';
import { expireSnapshots } from '../refs/expire-snapshots.js';
import { createRef, dropRef, fastForward, rollbackTo, rollbackToTimestamp } from '../refs/ref-operations.js';
import { removeOrphanFiles } from '../refs/remove-orphan-files.js';
import { resolveSnapshotRecord } from '../refs/resolve-snapshot.js';
import type { CreateRefOptions, RefInfo, Snapshot, SnapshotSelector } from '../refs/snapshot.js';
import { toSnapshot } from '../refs/to-snapshot.js';
import { planScan } from '../scan/plan-scan.js';
import type { ScanPlan, ScanRequest } from '../scan/scan-types.js';
import { deleteKeys } from '../storage/delete-keys.js';
import type { Storage } from '../storage/storage.js';
import type { StorageConfig } from '../storage/storage-config.js';
import { alterTableRecord } from '../table/alter-table.js';
import { primaryKeyName, rewriteTableLayout } from '../table/rewrite-table-layout.js';
import { describeBucketTree, describeFiles } from '../table/describe-files.js';
import { readChanges } from '../table/read-changes.js';
import { tableDataPrefix } from '../table/table-layout.js';
import type { AlterTableChange, TableDefinition, TableMetadata } from '../table/table-metadata.js';
import { validateTableDefinition } from '../table/validate-table-definition.js';
import { LakeTransactionImpl } from '../txn/lake-transaction-impl.js';
import type { LogStore } from '../log/log-store.js';
import type { LogReplay } from '../log/replay-dead-writers.js';
import { checkExistingUnique } from '../txn/check-unique.js';
import type { BeginOptions, LakeTransaction } from '../txn/lake-transaction.js';
import type { LakeContext } from './lake-context.js';
import type { CommitObserver } from './commit-observer.js';
import { nowMicros, toTableMetadata } from './lake-context.js';
import type { BucketNodeInfo, ChangeBatch, DataFileInfo, LakeLogger, Warehouse } from './warehouse.js';
import { checkOptimizerGroup, checkOptimizerGroupSettings } from './check-optimizer-group.js';
import { alterSequence, createSequence, dropOrphanedSequences, dropSequence, sequenceDefaultExpr, toSequenceMetadata } from '../sequence/sequence-ddl.js';
import type { SequenceChange, SequenceDefinition, SequenceMetadata } from '../sequence/sequence-metadata.js';
import { resolveSequenceParameters } from '../sequence/sequence-parameters.js';
import { SequenceValues } from '../sequence/sequence-values.js';
import type { ColumnMetadata } from '../table/table-metadata.js';
import type { RelationComment, ViewDefinition, ViewMetadata } from '../table/view-metadata.js';
import type { MaterializedViewDefinition, MaterializedViewMetadata, MaterializedViewProgress } from '../table/materialized-view-metadata.js';
import type { UserTypeMetadata } from '../table/user-type-metadata.js';
import type { EnumLabelPosition } from '../table/alter-enum-labels.js';
import { checkViewReplacement } from '../table/check-view-replacement.js';
import type { ReplicationCatalog } from '../replication/replication-catalog.js';
import type { RoleCatalog } from '../security/role-catalog.js';
import type { PrivilegeCatalog } from '../security/object-acl.js';
import type { RowPolicyCatalog } from '../security/row-policies.js';

export class WarehouseImpl implements Warehouse {
  readonly path: string;
  readonly storageConfig: StorageConfig;
  readonly #ctx: LakeContext;
  readonly #sequenceValues: SequenceValues;
  readonly logReplay: LogReplay | undefined;
  #closed = false;

  constructor(
    path: string, catalog: Catalog, storage: Storage, storageConfig: StorageConfig, logger: LakeLogger | undefined, staleMs: number,
    sequenceBlock = 32, log?: LogStore, logReplay?: LogReplay, commitObserver?: CommitObserver,
  ) {
    this.path = path;
    this.storageConfig = storageConfig;
    this.logReplay = logReplay;
    this.#ctx = { catalog, storage, storageConfig, logger, staleTransactionMs: staleMs, ...(log === undefined ? {} : { log }), ...(commitObserver === undefined ? {} : { commitObserver }) };
    this.#sequenceValues = new SequenceValues(() => this.#catalog, sequenceBlock);
  }

  get replication(): ReplicationCatalog {
    return this.#catalog.replication;
  }

  get roles(): RoleCatalog {
    return this.#catalog.roles;
  }

  get privileges(): PrivilegeCatalog {
    return this.#catalog.privileges;
  }

  get rowPolicies(): RowPolicyCatalog {
    return this.#catalog.rowPolicies;
  }

  get #catalog(): Catalog {
    if (this.#closed) throw new FloeError(SqlState.objectNotInPrerequisiteState, 'warehouse is closed');
    return this.#ctx.catalog;
  }

  async createNamespace(name: string, opts: { ifNotExists?: boolean } = {}): Promise<void> {
    this.#catalog.createNamespace(name, opts.ifNotExists === true);
  }

  async dropNamespace(name: string, opts: { ifExists?: boolean; cascade?: boolean } = {}): Promise<void> {
    const dropped = this.#catalog.dropNamespace(name, opts.ifExists === true, opts.cascade === true);
    for (const id of dropped) await this.#deleteTableData(id);
  }

  listNamespaces(): string[] {
    return this.#catalog.listNamespaces();
  }

  async createTable(def: TableDefinition, opts: { ifNotExists?: boolean } = {}): Promise<TableMetadata> {
    validateTableDefinition(def);
    const pk = def.primaryKey ?? [];
    const columnsWith = (sequenceIds: ReadonlyMap<string, number>): ColumnMetadata[] => def.columns.map((c, i) => {
      const { sequence: _s, ...col } = c;
      const seq = sequenceIds.get(c.name);
      return {
        ...col, nullable: pk.includes(c.name) || seq !== undefined ? false : c.nullable, fieldId: i + 1,
        ...(seq !== undefined && c.sequence?.kind === 'serial' ? { defaultExpr: sequenceDefaultExpr(seq) } : {}),
        ...(seq !== undefined && c.sequence?.kind !== 'serial' ? { identity: { generation: c.sequence!.kind as 'always' | 'byDefault', sequenceId: seq } } : {}),
      };
    });
    const record = {
      namespace: def.namespace, name: def.name, columns: columnsWith(new Map()), primaryKey: [...pk], partitionBy: [...(def.partitionBy ?? [])],
      properties: { ...(def.properties ?? {}) }, constraints: [...(def.constraints ?? [])], nextFieldId: def.columns.length + 1,
    };
    const sequences = def.columns.filter((c) => c.sequence !== undefined).map((c) => {
      if (c.type.kind !== 'int2' && c.type.kind !== 'int4' && c.type.kind !== 'int8') {
        throw new FloeError(SqlState.invalidParameterValue, 'identity column type must be smallint, integer, or bigint');
      }
      if (c.sequence!.options.restart !== undefined) throw new FloeError(SqlState.syntaxError, 'RESTART is only allowed in ALTER SEQUENCE');
      const { params } = resolveSequenceParameters({ dataType: c.type.kind, ...c.sequence!.options }, undefined);
      return { column: c.name, sequence: { params } };
    });
    const { table } = sequences.length === 0
      ? this.#catalog.createTable(record, nowMicros(), opts.ifNotExists === true)
      : this.#catalog.createTableWithSequences(record, sequences, nowMicros(), opts.ifNotExists === true, columnsWith);
    return toTableMetadata(table);
  }

  async createMaterializedView(def: TableDefinition, view: MaterializedViewDefinition): Promise<TableMetadata> {
    validateTableDefinition(def);
    const record = {
      namespace: def.namespace, name: def.name, columns: def.columns.map((c, i) => ({ ...c, fieldId: i + 1 })), primaryKey: [...(def.primaryKey ?? [])],
      partitionBy: [], properties: { ...(def.properties ?? {}) }, constraints: [], nextFieldId: def.columns.length + 1,
    };
    return toTableMetadata(this.#catalog.createMaterializedView(record, view, nowMicros()));
  }

  getMaterializedView(tableId: number): MaterializedViewMetadata | undefined { return this.#catalog.getMaterializedView(tableId); }
  listMaterializedViews(): MaterializedViewMetadata[] { return this.#catalog.listMaterializedViews(); }
  materializedViewIds(): readonly number[] { return this.#catalog.materializedViewIds(); }
  async setMaterializedViewOptions(tableId: number, options: readonly string[], fullRefreshReason: string | undefined): Promise<void> {
    this.#catalog.setMaterializedViewOptions(tableId, options, fullRefreshReason);
  }
  recordMaterializedViewProgress(p: MaterializedViewProgress): void { this.#catalog.recordMaterializedViewProgress(p); }

  async dropTable(namespace: string, name: string, opts: { ifExists?: boolean } = {}): Promise<void> {
    const t = this.#catalog.getTable(namespace, name);
    if (t === undefined) {
      if (opts.ifExists === true) return;
      throw new FloeError(SqlState.undefinedTable, `table "${namespace}.${name}" does not exist`);
    }
    this.#catalog.dropTable(t.id);
    await this.#deleteTableData(t.id);
  }

  async #deleteTableData(tableId: number): Promise<void> {
    await deleteKeys(this.#ctx.storage, (await this.#ctx.storage.list(tableDataPrefix(tableId))).map((f) => f.key));
    // The table's Iceberg metadata and change-store files name only files just deleted.
    await deleteKeys(this.#ctx.storage, (await this.#ctx.storage.list(`${icebergTableKey(tableId)}/`)).map((f) => f.key));
  }

  getTable(namespace: string, name: string): TableMetadata | undefined {
    const t = this.#catalog.getTable(namespace, name);
    return t === undefined ? undefined : toTableMetadata(t);
  }

  getTableById(id: number): TableMetadata | undefined {
    const t = this.#catalog.getTableById(id);
    return t === undefined ? undefined : toTableMetadata(t);
  }

  listTables(namespace?: string): TableMetadata[] {
    return this.#catalog.listTables(namespace).map(toTableMetadata);
  }

  async alterTable(namespace: string, name: string, change: AlterTableChange): Promise<TableMetadata> {
    let t = this.#catalog.getTable(namespace, name);
    if (t === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${namespace}.${name}" does not exist`);
    if (change.kind === 'addPrimaryKey') return toTableMetadata(await this.#addPrimaryKey(t, change.columns));
    // The primary key goes with DROP CONSTRAINT of its name, and, as in PostgreSQL, with any of its columns.
    const dropsKey = (change.kind === 'dropColumn' && t.primaryKey.includes(change.name))
      || (change.kind === 'dropConstraint' && t.primaryKey.length > 0 && change.name === primaryKeyName(t));
    if (dropsKey) {
      t = await rewriteTableLayout(this.#ctx, t, []);
      if (change.kind === 'dropConstraint') return toTableMetadata(t);
    }
    // A new UNIQUE constraint must hold for the rows already there (23505 "could not create unique index").
    if (change.kind === 'addConstraint' && change.constraint.kind === 'unique') await checkExistingUnique(this.#ctx, toTableMetadata(t), change.constraint);
    const altered = alterTableRecord(this.#catalog, t, change);
    if (change.kind === 'dropColumn') dropOrphanedSequences(this.#catalog, this.#sequenceValues, altered);
    const metadata = toTableMetadata(altered);
    // A plain index: the files already there get their value filters now.
    if (change.kind === 'addConstraint' && change.constraint.kind === 'index' && change.constraint.columns.length > 0) await buildIndexFilters(this.#ctx, metadata, change.constraint.columns, change.constraint.name);
    return metadata;
  }

  async #addPrimaryKey(t: TableRecord, columns: readonly string[]): Promise<TableRecord> {
    for (const c of columns) {
      if (!t.columns.some((x) => x.name === c)) throw new FloeError(SqlState.undefinedColumn, `column "${c}" of relation "${t.name}" does not exist`);
    }
    if (t.primaryKey.length > 0) throw new FloeError('42P16', `multiple primary keys for table "${t.name}" are not allowed`);
    validateTableDefinition({ namespace: t.namespace, name: t.name, columns: t.columns, primaryKey: columns, partitionBy: t.partitionBy });
    return rewriteTableLayout(this.#ctx, t, columns);
  }

  // ---- user-defined types ----

  async createType(namespace: string, name: string, labels: readonly string[] | undefined): Promise<UserTypeMetadata> {
    return this.#catalog.createType(namespace, name, labels);
  }

  getType(namespace: string, name: string): UserTypeMetadata | undefined { return this.#catalog.getType(namespace, name); }
  getTypeByOid(oid: number): UserTypeMetadata | undefined { return this.#catalog.getTypeByOid(oid); }
  listTypes(): UserTypeMetadata[] { return this.#catalog.listTypes(); }

  async addEnumValue(oid: number, label: string, position: EnumLabelPosition, ifNotExists: boolean): Promise<boolean> {
    return this.#catalog.addEnumValue(oid, label, position, ifNotExists);
  }

  async renameEnumValue(oid: number, from: string, to: string): Promise<void> { this.#catalog.renameEnumValue(oid, from, to); }
  async moveType(oid: number, to: { namespace: string; name: string }): Promise<UserTypeMetadata> { return this.#catalog.moveType(oid, to); }
  async dropTypes(oids: readonly number[]): Promise<void> { this.#catalog.dropTypes(oids); }

  // ---- views and comments ----

  async createView(def: ViewDefinition, opts: { orReplace?: boolean } = {}): Promise<ViewMetadata> {
    const old = this.#catalog.getView(def.namespace, def.name);
    if (opts.orReplace === true && old === undefined && (this.#catalog.getTable(def.namespace, def.name) ?? this.#catalog.getSequence(def.namespace, def.name)) !== undefined) {
      throw new FloeError(SqlState.wrongObjectType, `"${def.name}" is not a view`);
    }
    if (opts.orReplace === true && old !== undefined) {
      checkViewReplacement(old, def.columns);
      return this.#catalog.putView(def, old.id);
    }
    return this.#catalog.putView(def, undefined);
  }

  getView(namespace: string, name: string): ViewMetadata | undefined {
    return this.#catalog.getView(namespace, name);
  }

  getViewById(id: number): ViewMetadata | undefined {
    return this.#catalog.getViewById(id);
  }

  listViews(namespace?: string): ViewMetadata[] {
    return this.#catalog.listViews(namespace);
  }

  async moveView(id: number, to: { namespace: string; name: string }): Promise<ViewMetadata> {
    return this.#catalog.moveView(id, to);
  }

  async dropViews(ids: readonly number[]): Promise<void> {
    this.#catalog.dropViews(ids);
  }

  async setTableNamespace(id: number, namespace: string): Promise<TableMetadata> {
    return toTableMetadata(this.#catalog.updateTable(id, { namespace }));
  }

  async setComment(objectId: number, subId: number, description: string | null): Promise<void> {
    this.#catalog.setComment(objectId, subId, description);
  }

  listComments(): RelationComment[] {
    return this.#catalog.listComments();
  }

  // ---- sequences ----

  async createSequence(def: SequenceDefinition, opts: { ifNotExists?: boolean } = {}): Promise<{ sequence: SequenceMetadata | undefined; created: boolean }> {
    return createSequence(this.#catalog, def, opts.ifNotExists === true);
  }

  async alterSequence(id: number, change: SequenceChange): Promise<SequenceMetadata> {
    return alterSequence(this.#catalog, this.#sequenceValues, this.#sequenceRecord(id), change);
  }

  async dropSequence(id: number, opts: { cascade?: boolean } = {}): Promise<{ notices: string[] }> {
    return { notices: dropSequence(this.#catalog, this.#sequenceValues, this.#sequenceRecord(id), opts.cascade === true) };
  }

  #sequenceRecord(id: number) {
    const s = this.#catalog.getSequenceById(id);
    if (s === undefined) throw new FloeError(SqlState.undefinedTable, `could not open relation with OID ${id}`);
    return s;
  }

  getSequence(namespace: string, name: string): SequenceMetadata | undefined {
    const s = this.#catalog.getSequence(namespace, name);
    return s === undefined ? undefined : toSequenceMetadata(s);
  }

  getSequenceById(id: number): SequenceMetadata | undefined {
    const s = this.#catalog.getSequenceById(id);
    return s === undefined ? undefined : toSequenceMetadata(s);
  }

  listSequences(namespace?: string): SequenceMetadata[] {
    return this.#catalog.listSequences(namespace).map(toSequenceMetadata);
  }

  nextSequenceValue(id: number): bigint {
    return this.#sequenceValues.next(id);
  }

  setSequenceValue(id: number, value: bigint, isCalled: boolean): bigint {
    const s = this.#sequenceRecord(id);
    if (value < s.minValue || value > s.maxValue) {
      throw new FloeError(SqlState.numericValueOutOfRange, `setval: value ${value} is out of bounds for sequence "${s.name}" (${s.minValue}..${s.maxValue})`);
    }
    this.#sequenceValues.set(id, value, isCalled);
    return value;
  }

  sequenceState(id: number): { lastValue: bigint; isCalled: boolean } {
    return this.#sequenceValues.state(this.#sequenceRecord(id));
  }

  resolveSnapshot(table: TableMetadata, selector?: SnapshotSelector): Snapshot | undefined {
    return toSnapshot(resolveSnapshotRecord(this.#catalog, table, selector));
  }

  listSnapshots(table: TableMetadata, ids?: SnapshotIdRange): Snapshot[] {
    return this.#catalog.listSnapshots(table.id, ids).filter((s) => !s.expired).map(toSnapshot);
  }

  branchHeads(branch = 'main'): ReadonlyMap<number, bigint> {
    return this.#catalog.branchHeads(branch);
  }

  fileEpochs(): ReadonlyMap<number, number> {
    return this.#catalog.fileEpochs();
  }

  lowWatermark(): bigint {
    return this.#catalog.lowWatermark();
  }

  listRefs(table: TableMetadata): RefInfo[] {
    return this.#catalog.listRefs(table.id).map((r) => ({ name: r.name, kind: r.kind, snapshotId: r.snapshotId, retainMicros: r.retainMicros }));
  }

  async createBranch(table: TableMetadata, name: string, opts?: CreateRefOptions): Promise<void> {
    createRef(this.#catalog, table, name, 'branch', opts);
  }

  async createTag(table: TableMetadata, name: string, opts?: CreateRefOptions): Promise<void> {
    createRef(this.#catalog, table, name, 'tag', opts);
  }

  async dropRef(table: TableMetadata, name: string, opts?: { ifExists?: boolean; kind?: 'branch' | 'tag' }): Promise<void> {
    dropRef(this.#catalog, table, name, opts);
  }

  async fastForward(table: TableMetadata, target: string, source: string): Promise<void> {
    fastForward(this.#catalog, table, target, source);
  }

  async rollbackToSnapshot(table: TableMetadata, snapshotId: bigint, opts: { ref?: string } = {}): Promise<void> {
    rollbackTo(this.#catalog, table, snapshotId, opts.ref ?? 'main');
  }

  async rollbackToTimestamp(table: TableMetadata, micros: bigint, opts: { ref?: string } = {}): Promise<void> {
    rollbackToTimestamp(this.#catalog, table, micros, opts.ref ?? 'main');
  }

  async expireSnapshots(table: TableMetadata, opts: { olderThanMicros: bigint; retainLast?: number }): Promise<{ expiredSnapshots: number; deletedFiles: number }> {
    return expireSnapshots(this.#ctx, table, opts);
  }

  async removeOrphanFiles(table: TableMetadata, opts: { olderThanMicros: bigint }): Promise<{ deletedFiles: string[] }> {
    return removeOrphanFiles(this.#ctx, table, opts);
  }

  async planScan(req: ScanRequest): Promise<ScanPlan> {
    void this.#catalog;
    // Rows the transaction staged in memory become files a scan task can read.
    if (req.txn instanceof LakeTransactionImpl) await req.txn.storePending(req.table.id, req.at?.kind === 'ref' ? req.at.name : 'main');
    return planScan(this.#ctx, req);
  }

  async begin(opts?: BeginOptions): Promise<LakeTransaction> {
    void this.#catalog;
    return LakeTransactionImpl.begin(this.#ctx, opts);
  }

  async optimize(table: TableMetadata, opts?: OptimizeOptions): Promise<OptimizeResult> {
    void this.#catalog;
    return optimizeTable(this.#ctx, table, opts ?? {});
  }
  exportIcebergMetadata(table: TableMetadata, opts?: IcebergExportOptions): Promise<IcebergExportResult> {
    const catalog = this.#catalog;
    return exportIcebergMetadata({
      storage: this.#ctx.storage,
      storageConfig: this.#ctx.storageConfig,
      head: (t) => this.resolveSnapshot(t),
      filesAt: (t, id) => describeFiles(catalog, t, id),
      liveSnapshotIds: (t, among) => new Set(among.filter((id) => {
        const s = this.#catalog.getSnapshot(t.id, id);
        return s !== undefined && !s.expired;
      })),
      changeStoreTasks: async (t, id) => (await planScan(this.#ctx, { table: t, at: { kind: 'snapshot', id }, projection: t.columns.map((c) => c.name) })).tasks,
    }, table, Date.now(), opts);
  }

  loadIcebergTable(table: TableMetadata): Promise<IcebergTableLoad | undefined> {
    return loadIcebergTable(this.#ctx.storage, this.#ctx.storageConfig, table.id);
  }

  tierLogFiles(table: TableMetadata, opts?: TierOptions): Promise<TierResult> {
    return tierLogFiles(this.#ctx, table, opts);
  }
  logBacklog(table: TableMetadata): LogBacklog {
    return logBacklog(this.#catalog, table.id);
  }
  optimizingMetrics(table: TableMetadata, opts?: { ref?: string }): OptimizingMetrics {
    return optimizingMetrics(this.#ctx, table, opts);
  }
  // Subscriptions: the catalog keeps them (sqlite-subscriptions.ts).
  listSubscriptions(): SubscriptionMetadata[] { return this.#catalog.listSubscriptions(); }
  createSubscription(s: NewSubscription): SubscriptionMetadata { return this.#catalog.createSubscription(s); }
  alterSubscription(name: string, patch: SubscriptionPatch): SubscriptionMetadata { return this.#catalog.alterSubscription(name, patch); }
  dropSubscription(id: number): void { this.#catalog.dropSubscription(id); }
  recordSubscriptionProgress(p: SubscriptionProgress): void { this.#catalog.recordSubscriptionProgress(p, nowMicros()); }
  saveSubscriptionStatus(id: number, status: SubscriptionStatus): void { this.#catalog.saveSubscriptionStatus(id, status); }
  saveSubscriptionError(id: number, error: string): void { this.#catalog.saveSubscriptionError(id, error, nowMicros()); }
  claimSubscriptionRunner(id: number, owner: string, leaseMicros: bigint): boolean {
    return this.#catalog.claimSubscriptionRunner(id, owner, nowMicros(), leaseMicros);
  }
  releaseSubscriptionRunner(id: number, owner: string): void { this.#catalog.releaseSubscriptionRunner(id, owner); }
  listSubscriptionRunners(): SubscriptionRunner[] { return this.#catalog.listSubscriptionRunners(); }
  // The self-optimizing service's records: the catalog keeps them (sqlite-optimizing.ts).
  listOptimizerGroups(): OptimizerGroup[] { return this.#catalog.listOptimizerGroups(); }
  createOptimizerGroup(group: OptimizerGroup, opts: { ifNotExists?: boolean } = {}): void {
    checkOptimizerGroup(group);
    this.#catalog.createOptimizerGroup(group, opts.ifNotExists === true);
  }
  alterOptimizerGroup(name: string, change: { threads?: number; schedulingPolicy?: SchedulingPolicy }): OptimizerGroup {
    checkOptimizerGroupSettings(change);
    return this.#catalog.alterOptimizerGroup(name, change);
  }
  dropOptimizerGroup(name: string, opts: { ifExists?: boolean } = {}): void { this.#catalog.dropOptimizerGroup(name, opts.ifExists === true); }
  recordOptimizingRun(run: NewOptimizingRun): OptimizingRun { return this.#catalog.recordOptimizingRun(run); }
  listOptimizingRuns(opts: { tableId?: number; limit?: number } = {}): OptimizingRun[] { return this.#catalog.listOptimizingRuns(opts); }
  saveOptimizingState(state: OptimizingTableState): void { this.#catalog.saveOptimizingState(state); }
  tryClaimOptimizing(tableId: number, owner: string, nowMicros: bigint, leaseMicros: bigint, deadOwner?: string): boolean {
    return this.#catalog.tryClaimOptimizing(tableId, owner, nowMicros, leaseMicros, deadOwner);
  }
  listOptimizingStates(): OptimizingTableState[] { return this.#catalog.listOptimizingStates(); }
  registerOptimizer(o: OptimizerRecord, forgetBeforeMicros: bigint): void { this.#catalog.registerOptimizer(o, forgetBeforeMicros); }
  heartbeatOptimizer(id: string, nowMicros: bigint): boolean { return this.#catalog.heartbeatOptimizer(id, nowMicros); }
  listOptimizers(): OptimizerRecord[] { return this.#catalog.listOptimizers(); }
  dropOptimizer(id: string): void { this.#catalog.dropOptimizer(id); }


  listFiles(table: TableMetadata, at?: SnapshotSelector): DataFileInfo[] {
    const s = resolveSnapshotRecord(this.#catalog, table, at);
    return describeFiles(this.#catalog, table, s.id);
  }

  bucketTree(table: TableMetadata, at?: SnapshotSelector): BucketNodeInfo[] {
    const s = resolveSnapshotRecord(this.#catalog, table, at);
    return describeBucketTree(this.#catalog, table, s.id);
  }

  async readChanges(table: TableMetadata, fromSnapshot: bigint | undefined, toSnapshot: bigint): Promise<ChangeBatch[]> {
    return readChanges(this.#ctx, table, fromSnapshot, toSnapshot);
  }

  async releaseLogSegments(): Promise<number> {
    return this.#ctx.log === undefined ? 0 : this.#ctx.log.releaseSegments();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#ctx.log?.close();
    } catch (e) {
      this.#ctx.logger?.warn({ err: e }, 'could not close the log store');
    }
    try {
      this.#sequenceValues.releaseAll();
    } catch (e) {
      this.#ctx.logger?.warn({ err: e }, 'could not give back reserved sequence values');
    }
    this.#closed = true;
    this.#ctx.catalog.close();
  }
}
