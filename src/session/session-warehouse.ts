import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { openWarehouse } from '../lake/index.js';
import type { LakeTransaction, TableMetadata, Warehouse } from '../lake/index.js';
import { TEMP_SCHEMA_ALIAS, tempNamespaceName } from '../sql/index.js';
import type { TemporaryTableSpec } from '../sql/index.js';
import { SessionTransaction } from './session-transaction.js';
import { removeTempDirectory, sweepDeadSessionDirectories, tempDirectoryFor } from './temp-directory.js';

/**
 * Temporary tables take ids from here up, in the session's own catalog: no shared table id
 * (from 16384), nor the oids derived from one (catalog-oids.ts: +1e9, +1.5e9, +2e9), meets them.
 */
export const TEMP_FIRST_TABLE_ID = 400_000_000;

/**
 * The warehouse a session sees: the shared one, plus the session's temporary tables in a
 * private warehouse of their own (`<data>/temp/<pid>-<session>/`: its own SQLite catalog, no
 * commit log), opened at the first CREATE TEMP TABLE and deleted when the session ends. So a
 * temporary table never reaches the shared catalog, and another session cannot see it.
 * Tables route by id (temporary ids start at TEMP_FIRST_TABLE_ID), names by schema: `pg_temp`
 * and `pg_temp_N` are the private warehouse's. Everything else is the shared warehouse's.
 */
export class SessionWarehouse implements Warehouse {
  readonly #shared: Warehouse;
  readonly #namespace: string;
  readonly #processId: number;
  #temp: Warehouse | undefined;
  #opening: Promise<Warehouse> | undefined;
  /** ON COMMIT action per temporary table id. */
  readonly #onCommit = new Map<number, TemporaryTableSpec['onCommit']>();
  /** Temporary tables created in the open transaction block: a rollback drops them, as PostgreSQL's does. */
  readonly #createdInTransaction = new Set<number>();

  constructor(shared: Warehouse, processId: number) {
    this.#shared = shared;
    this.#processId = processId;
    this.#namespace = tempNamespaceName(processId);
  }

  get path(): string { return this.#shared.path; }
  get storageConfig() { return this.#shared.storageConfig; }
  get logReplay() { return this.#shared.logReplay; }
  get replication() { return this.#shared.replication; }
  get roles() { return this.#shared.roles; }
  get privileges() { return this.#shared.privileges; }
  get rowPolicies() { return this.#shared.rowPolicies; }
  /** `pg_temp_N` once the session has a temporary table's warehouse, as PostgreSQL creates the schema at first use. */
  get tempNamespace(): string | undefined { return this.#temp === undefined ? undefined : this.#namespace; }

  #isTempName(namespace: string): boolean {
    return namespace === TEMP_SCHEMA_ALIAS || namespace === this.#namespace;
  }

  #isTemp(table: { readonly id: number }): boolean {
    return table.id >= TEMP_FIRST_TABLE_ID && this.#temp !== undefined;
  }

  #owner(table: { readonly id: number }): Warehouse {
    return this.#isTemp(table) ? this.#temp! : this.#shared;
  }

  async #openTemp(): Promise<Warehouse> {
    this.#opening ??= (async () => {
      const dir = tempDirectoryFor(this.#shared.path, this.#processId);
      await sweepDeadSessionDirectories(this.#shared.path);
      await removeTempDirectory(dir);
      // Rows of a temporary table last as long as the session: no commit log.
      const w = await openWarehouse({ path: dir, log: false, firstTableId: TEMP_FIRST_TABLE_ID });
      await w.createNamespace(this.#namespace);
      this.#temp = w;
      return w;
    })();
    return this.#opening;
  }

  // ---- temporary tables' lifetime ----

  /** Records a new temporary table's ON COMMIT action; `inTransaction`: created inside a transaction block. */
  noteCreated(table: TableMetadata, spec: TemporaryTableSpec, inTransaction: boolean): void {
    this.#onCommit.set(table.id, spec.onCommit);
    if (inTransaction) this.#createdInTransaction.add(table.id);
  }

  /**
   * At the end of every transaction (an autocommit statement's too): ON COMMIT DROP tables
   * go, and so, after a rollback, do the tables the transaction created. ON COMMIT DELETE
   * ROWS needs nothing here: their rows were never committed (session-transaction.ts).
   */
  async endTransaction(committed: boolean): Promise<void> {
    const temp = this.#temp;
    const created = new Set(this.#createdInTransaction);
    this.#createdInTransaction.clear();
    if (temp === undefined) return;
    for (const [id, action] of [...this.#onCommit]) {
      if (action !== 'drop' && (committed || !created.has(id))) continue;
      const t = temp.getTableById(id);
      this.#onCommit.delete(id);
      if (t !== undefined) await temp.dropTable(t.namespace, t.name, { ifExists: true });
    }
  }

  /** The session ended: its temporary tables and their files go (the shared warehouse stays open). */
  async close(): Promise<void> {
    const temp = this.#temp;
    this.#temp = undefined;
    this.#opening = undefined;
    this.#onCommit.clear();
    if (temp === undefined) return;
    await temp.close().catch(() => undefined);
    await removeTempDirectory(tempDirectoryFor(this.#shared.path, this.#processId));
  }

  // ---- namespaces and tables ----

  readonly createNamespace: Warehouse['createNamespace'] = (name, opts) => this.#shared.createNamespace(name, opts);
  readonly dropNamespace: Warehouse['dropNamespace'] = (name, opts) => this.#shared.dropNamespace(name, opts);
  listNamespaces(): string[] {
    const shared = this.#shared.listNamespaces();
    return this.#temp === undefined ? shared : [...shared, this.#namespace];
  }

  readonly createTable: Warehouse['createTable'] = async (def, opts) => {
    if (!this.#isTempName(def.namespace)) return this.#shared.createTable(def, opts);
    const temp = await this.#openTemp();
    return temp.createTable({ ...def, namespace: this.#namespace }, opts);
  };

  readonly dropTable: Warehouse['dropTable'] = async (namespace, name, opts) => {
    const temp = this.#temp;
    // Without a temporary schema yet, the shared warehouse answers "does not exist" as for any table.
    if (!this.#isTempName(namespace) || temp === undefined) return this.#shared.dropTable(namespace, name, opts);
    const t = temp.getTable(this.#namespace, name);
    if (t !== undefined) this.#onCommit.delete(t.id);
    return temp.dropTable(this.#namespace, name, opts);
  };

  getTable(namespace: string, name: string): TableMetadata | undefined {
    if (this.#isTempName(namespace)) return this.#temp?.getTable(this.#namespace, name);
    return this.#shared.getTable(namespace, name);
  }

  getTableById(id: number): TableMetadata | undefined {
    return id >= TEMP_FIRST_TABLE_ID ? this.#temp?.getTableById(id) : this.#shared.getTableById(id);
  }

  listTables(namespace?: string): TableMetadata[] {
    if (namespace !== undefined && this.#isTempName(namespace)) return this.#temp?.listTables(this.#namespace) ?? [];
    const shared = this.#shared.listTables(namespace);
    return namespace === undefined && this.#temp !== undefined ? [...shared, ...this.#temp.listTables(this.#namespace)] : shared;
  }

  branchHeads(branch?: string): ReadonlyMap<number, bigint> {
    const shared = this.#shared.branchHeads(branch);
    return this.#temp === undefined ? shared : new Map([...shared, ...this.#temp.branchHeads(branch)]);
  }

  /** The shared warehouse's: the self-optimizing service, its one reader, works on the shared tables only. */
  fileEpochs(): ReadonlyMap<number, number> {
    return this.#shared.fileEpochs();
  }

  /** The shared warehouse's: the self-optimizing service, its one reader, works on the shared tables only. */
  lowWatermark(): bigint {
    return this.#shared.lowWatermark();
  }

  readonly alterTable: Warehouse['alterTable'] = (namespace, name, change) => (this.#isTempName(namespace) && this.#temp
    ? this.#temp.alterTable(this.#namespace, name, change)
    : this.#shared.alterTable(namespace, name, change));

  // ---- per-table operations: the table's own warehouse ----

  readonly resolveSnapshot: Warehouse['resolveSnapshot'] = (table, selector) => this.#owner(table).resolveSnapshot(table, selector);
  readonly listSnapshots: Warehouse['listSnapshots'] = (table, ids) => this.#owner(table).listSnapshots(table, ids);
  readonly listRefs: Warehouse['listRefs'] = (table) => this.#owner(table).listRefs(table);
  readonly createBranch: Warehouse['createBranch'] = (table, name, opts) => this.#owner(table).createBranch(table, name, opts);
  readonly createTag: Warehouse['createTag'] = (table, name, opts) => this.#owner(table).createTag(table, name, opts);
  readonly dropRef: Warehouse['dropRef'] = (table, name, opts) => this.#owner(table).dropRef(table, name, opts);
  readonly fastForward: Warehouse['fastForward'] = (table, target, source) => this.#owner(table).fastForward(table, target, source);
  readonly rollbackToSnapshot: Warehouse['rollbackToSnapshot'] = (table, id, opts) => this.#owner(table).rollbackToSnapshot(table, id, opts);
  readonly rollbackToTimestamp: Warehouse['rollbackToTimestamp'] = (table, micros, opts) => this.#owner(table).rollbackToTimestamp(table, micros, opts);
  readonly expireSnapshots: Warehouse['expireSnapshots'] = (table, opts) => this.#owner(table).expireSnapshots(table, opts);
  readonly removeOrphanFiles: Warehouse['removeOrphanFiles'] = (table, opts) => this.#owner(table).removeOrphanFiles(table, opts);
  readonly optimize: Warehouse['optimize'] = (table, opts) => this.#owner(table).optimize(table, opts);
  readonly exportIcebergMetadata: Warehouse['exportIcebergMetadata'] = (table, opts) => this.#owner(table).exportIcebergMetadata(table, opts);
  readonly loadIcebergTable: Warehouse['loadIcebergTable'] = (table) => this.#owner(table).loadIcebergTable(table);
  readonly tierLogFiles: Warehouse['tierLogFiles'] = (table, opts) => this.#owner(table).tierLogFiles(table, opts);
  readonly logBacklog: Warehouse['logBacklog'] = (table) => this.#owner(table).logBacklog(table);
  readonly optimizingMetrics: Warehouse['optimizingMetrics'] = (table, opts) => this.#owner(table).optimizingMetrics(table, opts);
  readonly listFiles: Warehouse['listFiles'] = (table, at) => this.#owner(table).listFiles(table, at);
  readonly bucketTree: Warehouse['bucketTree'] = (table, at) => this.#owner(table).bucketTree(table, at);
  readonly readChanges: Warehouse['readChanges'] = (table, from, to) => this.#owner(table).readChanges(table, from, to);

  /** A scan reads through the transaction's part for the table's warehouse. */
  readonly planScan: Warehouse['planScan'] = (req) => {
    const txn = req.txn instanceof SessionTransaction ? req.txn.partFor(req.table) : req.txn;
    const { txn: _given, ...rest } = req;
    return this.#owner(req.table).planScan(txn === undefined ? rest : { ...rest, txn });
  };

  readonly begin: Warehouse['begin'] = async (opts) => {
    const shared = await this.#shared.begin(opts);
    return new SessionTransaction(shared, {
      isTemp: (table) => this.#isTemp(table),
      discardsRowsAtEnd: (table) => this.#onCommit.get(table.id) === 'deleteRows',
      begin: (): Promise<LakeTransaction> => this.#openTemp().then((w) => w.begin(opts)),
    });
  };

  // ---- sequences: a temporary table's serial column owns one in the private warehouse ----

  readonly createSequence: Warehouse['createSequence'] = (def, opts) => this.#shared.createSequence(def, opts);
  readonly alterSequence: Warehouse['alterSequence'] = (id, change) => this.#sequenceOwner(id).alterSequence(id, change);
  readonly dropSequence: Warehouse['dropSequence'] = (id, opts) => this.#sequenceOwner(id).dropSequence(id, opts);
  readonly getSequence: Warehouse['getSequence'] = (namespace, name) => (this.#isTempName(namespace)
    ? this.#temp?.getSequence(this.#namespace, name)
    : this.#shared.getSequence(namespace, name));
  readonly getSequenceById: Warehouse['getSequenceById'] = (id) => (id >= TEMP_FIRST_TABLE_ID ? this.#temp?.getSequenceById(id) : this.#shared.getSequenceById(id));
  listSequences(namespace?: string) {
    if (namespace !== undefined && this.#isTempName(namespace)) return this.#temp?.listSequences(this.#namespace) ?? [];
    const shared = this.#shared.listSequences(namespace);
    return namespace === undefined && this.#temp !== undefined ? [...shared, ...this.#temp.listSequences(this.#namespace)] : shared;
  }
  readonly nextSequenceValue: Warehouse['nextSequenceValue'] = (id) => this.#sequenceOwner(id).nextSequenceValue(id);
  readonly setSequenceValue: Warehouse['setSequenceValue'] = (id, value, isCalled) => this.#sequenceOwner(id).setSequenceValue(id, value, isCalled);
  readonly sequenceState: Warehouse['sequenceState'] = (id) => this.#sequenceOwner(id).sequenceState(id);

  #sequenceOwner(id: number): Warehouse {
    return this.#isTemp({ id }) ? this.#temp! : this.#shared;
  }

  // ---- views: a temporary view lives in the private warehouse, beside the temporary tables ----

  readonly createView: Warehouse['createView'] = async (def, opts) => {
    if (!this.#isTempName(def.namespace)) return this.#shared.createView(def, opts);
    const temp = await this.#openTemp();
    return temp.createView({ ...def, namespace: this.#namespace }, opts);
  };
  readonly getView: Warehouse['getView'] = (namespace, name) => (this.#isTempName(namespace)
    ? this.#temp?.getView(this.#namespace, name)
    : this.#shared.getView(namespace, name));
  readonly getViewById: Warehouse['getViewById'] = (id) => (id >= TEMP_FIRST_TABLE_ID ? this.#temp?.getViewById(id) : this.#shared.getViewById(id));
  readonly listViews: Warehouse['listViews'] = (namespace) => {
    if (namespace !== undefined && this.#isTempName(namespace)) return this.#temp?.listViews(this.#namespace) ?? [];
    const shared = this.#shared.listViews(namespace);
    return namespace === undefined && this.#temp !== undefined ? [...shared, ...this.#temp.listViews(this.#namespace)] : shared;
  };
  /** A view stays on its side of the temporary line: PostgreSQL refuses moving one across (0A000). */
  readonly moveView: Warehouse['moveView'] = (id, to) => {
    const temp = this.#isTemp({ id });
    if (temp !== this.#isTempName(to.namespace)) {
      throw new FloeError(SqlState.featureNotSupported, 'cannot move objects into or out of temporary schemas');
    }
    return temp ? this.#temp!.moveView(id, { ...to, namespace: this.#namespace }) : this.#shared.moveView(id, to);
  };
  readonly dropViews: Warehouse['dropViews'] = async (ids) => {
    const temp = ids.filter((id) => this.#isTemp({ id }));
    if (temp.length > 0) await this.#temp!.dropViews(temp);
    const shared = ids.filter((id) => !this.#isTemp({ id }));
    if (shared.length > 0 || temp.length === 0) await this.#shared.dropViews(shared);
  };

  // Types live in the shared catalog; a temporary table's enum column names one of them.
  readonly createType: Warehouse['createType'] = (namespace, name, labels) => this.#shared.createType(namespace, name, labels);
  readonly getType: Warehouse['getType'] = (namespace, name) => this.#shared.getType(namespace, name);
  readonly getTypeByOid: Warehouse['getTypeByOid'] = (oid) => this.#shared.getTypeByOid(oid);
  readonly listTypes: Warehouse['listTypes'] = () => this.#shared.listTypes();
  readonly addEnumValue: Warehouse['addEnumValue'] = (oid, label, position, ifNotExists) => this.#shared.addEnumValue(oid, label, position, ifNotExists);
  readonly renameEnumValue: Warehouse['renameEnumValue'] = (oid, from, to) => this.#shared.renameEnumValue(oid, from, to);
  readonly moveType: Warehouse['moveType'] = (oid, to) => this.#shared.moveType(oid, to);
  readonly dropTypes: Warehouse['dropTypes'] = (oids) => this.#shared.dropTypes(oids);

  readonly setTableNamespace: Warehouse['setTableNamespace'] = (id, namespace) => this.#owner({ id }).setTableNamespace(id, namespace);
  readonly setComment: Warehouse['setComment'] = (objectId, subId, description) => this.#owner({ id: objectId }).setComment(objectId, subId, description);
  listComments(): ReturnType<Warehouse['listComments']> {
    return this.#temp === undefined ? this.#shared.listComments() : [...this.#shared.listComments(), ...this.#temp.listComments()];
  }

  // ---- the self-optimizing service's state: the shared warehouse's only ----

  readonly releaseLogSegments: Warehouse['releaseLogSegments'] = () => this.#shared.releaseLogSegments();
  readonly listOptimizerGroups: Warehouse['listOptimizerGroups'] = () => this.#shared.listOptimizerGroups();
  readonly createOptimizerGroup: Warehouse['createOptimizerGroup'] = (group, opts) => this.#shared.createOptimizerGroup(group, opts);
  readonly alterOptimizerGroup: Warehouse['alterOptimizerGroup'] = (name, change) => this.#shared.alterOptimizerGroup(name, change);
  readonly dropOptimizerGroup: Warehouse['dropOptimizerGroup'] = (name, opts) => this.#shared.dropOptimizerGroup(name, opts);
  readonly recordOptimizingRun: Warehouse['recordOptimizingRun'] = (run) => this.#shared.recordOptimizingRun(run);
  readonly listOptimizingRuns: Warehouse['listOptimizingRuns'] = (opts) => this.#shared.listOptimizingRuns(opts);
  readonly saveOptimizingState: Warehouse['saveOptimizingState'] = (state) => this.#shared.saveOptimizingState(state);
  readonly tryClaimOptimizing: Warehouse['tryClaimOptimizing'] = (tableId, owner, now, lease, deadOwner) => this.#shared.tryClaimOptimizing(tableId, owner, now, lease, deadOwner);
  readonly listOptimizingStates: Warehouse['listOptimizingStates'] = () => this.#shared.listOptimizingStates();
  readonly registerOptimizer: Warehouse['registerOptimizer'] = (o, forgetBefore) => this.#shared.registerOptimizer(o, forgetBefore);
  readonly heartbeatOptimizer: Warehouse['heartbeatOptimizer'] = (id, now) => this.#shared.heartbeatOptimizer(id, now);
  readonly listOptimizers: Warehouse['listOptimizers'] = () => this.#shared.listOptimizers();
  readonly dropOptimizer: Warehouse['dropOptimizer'] = (id) => this.#shared.dropOptimizer(id);

  // ---- materialized views: the shared warehouse's only (PostgreSQL has no temporary ones) ----

  readonly createMaterializedView: Warehouse['createMaterializedView'] = (def, view) => this.#shared.createMaterializedView(def, view);
  readonly getMaterializedView: Warehouse['getMaterializedView'] = (id) => (id >= TEMP_FIRST_TABLE_ID ? undefined : this.#shared.getMaterializedView(id));
  readonly listMaterializedViews: Warehouse['listMaterializedViews'] = () => this.#shared.listMaterializedViews();
  readonly materializedViewIds: Warehouse['materializedViewIds'] = () => this.#shared.materializedViewIds();
  readonly setMaterializedViewOptions: Warehouse['setMaterializedViewOptions'] = (id, options, reason) => this.#shared.setMaterializedViewOptions(id, options, reason);
  readonly recordMaterializedViewProgress: Warehouse['recordMaterializedViewProgress'] = (p) => this.#shared.recordMaterializedViewProgress(p);

  // ---- subscriptions: the shared warehouse's only ----

  readonly listSubscriptions: Warehouse['listSubscriptions'] = () => this.#shared.listSubscriptions();
  readonly createSubscription: Warehouse['createSubscription'] = (s) => this.#shared.createSubscription(s);
  readonly alterSubscription: Warehouse['alterSubscription'] = (name, patch) => this.#shared.alterSubscription(name, patch);
  readonly dropSubscription: Warehouse['dropSubscription'] = (id) => this.#shared.dropSubscription(id);
  readonly recordSubscriptionProgress: Warehouse['recordSubscriptionProgress'] = (p) => this.#shared.recordSubscriptionProgress(p);
  readonly saveSubscriptionStatus: Warehouse['saveSubscriptionStatus'] = (id, status) => this.#shared.saveSubscriptionStatus(id, status);
  readonly saveSubscriptionError: Warehouse['saveSubscriptionError'] = (id, error) => this.#shared.saveSubscriptionError(id, error);
  readonly claimSubscriptionRunner: Warehouse['claimSubscriptionRunner'] = (id, owner, lease) => this.#shared.claimSubscriptionRunner(id, owner, lease);
  readonly releaseSubscriptionRunner: Warehouse['releaseSubscriptionRunner'] = (id, owner) => this.#shared.releaseSubscriptionRunner(id, owner);
  readonly listSubscriptionRunners: Warehouse['listSubscriptionRunners'] = () => this.#shared.listSubscriptionRunners();
}
