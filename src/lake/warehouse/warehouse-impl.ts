import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Catalog } from '../catalog/catalog.js';
import { optimizeTable } from '../optimize/optimize-table.js';
import type { OptimizeOptions, OptimizeResult } from '../optimize/optimize-result.js';
import { expireSnapshots } from '../refs/expire-snapshots.js';
import { createRef, dropRef, fastForward, rollbackTo, rollbackToTimestamp } from '../refs/ref-operations.js';
import { removeOrphanFiles } from '../refs/remove-orphan-files.js';
import { resolveSnapshotRecord } from '../refs/resolve-snapshot.js';
import type { CreateRefOptions, RefInfo, Snapshot, SnapshotSelector } from '../refs/snapshot.js';
import { toSnapshot } from '../refs/to-snapshot.js';
import { planScan } from '../scan/plan-scan.js';
import type { ScanPlan, ScanRequest } from '../scan/scan-types.js';
import type { Storage } from '../storage/storage.js';
import type { StorageConfig } from '../storage/storage-config.js';
import { alterTableRecord } from '../table/alter-table.js';
import { describeBucketTree, describeFiles } from '../table/describe-files.js';
import { readChanges } from '../table/read-changes.js';
import { tableDataPrefix } from '../table/table-layout.js';
import type { AlterTableChange, TableDefinition, TableMetadata } from '../table/table-metadata.js';
import { validateTableDefinition } from '../table/validate-table-definition.js';
import { LakeTransactionImpl } from '../txn/lake-transaction-impl.js';
import { checkExistingUnique } from '../txn/check-unique.js';
import type { BeginOptions, LakeTransaction } from '../txn/lake-transaction.js';
import type { LakeContext } from './lake-context.js';
import { nowMicros, toTableMetadata } from './lake-context.js';
import type { BucketNodeInfo, ChangeBatch, DataFileInfo, LakeLogger, Warehouse } from './warehouse.js';

export class WarehouseImpl implements Warehouse {
  readonly path: string;
  readonly storageConfig: StorageConfig;
  readonly #ctx: LakeContext;
  #closed = false;

  constructor(path: string, catalog: Catalog, storage: Storage, storageConfig: StorageConfig, logger: LakeLogger | undefined, staleMs: number) {
    this.path = path;
    this.storageConfig = storageConfig;
    this.#ctx = { catalog, storage, storageConfig, logger, staleTransactionMs: staleMs };
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
    const columns = def.columns.map((c, i) => ({
      name: c.name, type: c.type, nullable: pk.includes(c.name) ? false : c.nullable, fieldId: i + 1,
      ...(c.defaultExpr === undefined ? {} : { defaultExpr: c.defaultExpr }),
    }));
    const { table } = this.#catalog.createTable({
      namespace: def.namespace, name: def.name, columns, primaryKey: [...pk], partitionBy: [...(def.partitionBy ?? [])],
      properties: { ...(def.properties ?? {}) }, constraints: [...(def.constraints ?? [])], nextFieldId: columns.length + 1,
    }, nowMicros(), opts.ifNotExists === true);
    return toTableMetadata(table);
  }

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
    for (const f of await this.#ctx.storage.list(tableDataPrefix(tableId))) await this.#ctx.storage.delete(f.key);
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
    const t = this.#catalog.getTable(namespace, name);
    if (t === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${namespace}.${name}" does not exist`);
    // A new UNIQUE constraint must hold for the rows already there (23505 "could not create unique index").
    if (change.kind === 'addConstraint' && change.constraint.kind === 'unique') await checkExistingUnique(this.#ctx, toTableMetadata(t), change.constraint);
    return toTableMetadata(alterTableRecord(this.#catalog, t, change));
  }

  resolveSnapshot(table: TableMetadata, selector?: SnapshotSelector): Snapshot | undefined {
    return toSnapshot(resolveSnapshotRecord(this.#catalog, table, selector));
  }

  listSnapshots(table: TableMetadata): Snapshot[] {
    return this.#catalog.listSnapshots(table.id).filter((s) => !s.expired).map(toSnapshot);
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

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#ctx.catalog.close();
  }
}
