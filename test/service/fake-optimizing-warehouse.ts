import type {
  OptimizerRecord, NewOptimizingRun, NodeOptimizingMetrics, OptimizeOptions, OptimizeResult, OptimizerGroup, OptimizingMetrics, OptimizingRun,
  OptimizingTableState, SchedulingPolicy, Snapshot, TableMetadata,
} from '../../src/lake/index.js';
import type { OptimizingWarehouse } from '../../src/service/optimizing/optimizing-warehouse.js';
import type { ServiceClock } from '../../src/service/optimizing/service-clock.js';

/** A clock that moves only when told to; timers fire in time order as it passes them. */
export class FakeClock implements ServiceClock {
  #now: bigint;
  #timers: { at: bigint; seq: number; fn: () => void }[] = [];
  #seq = 0;

  constructor(startMicros = 1_800_000_000_000_000n) { this.#now = startMicros; }

  nowMicros(): bigint { return this.#now; }

  setTimer(fn: () => void, ms: number): () => void {
    const t = { at: this.#now + BigInt(Math.round(ms * 1000)), seq: this.#seq++, fn };
    this.#timers.push(t);
    return () => { this.#timers = this.#timers.filter((x) => x !== t); };
  }

  /** Moves time forward, firing each timer that comes due (timers they set too), with microtasks settled between. */
  async advance(ms: number): Promise<void> {
    const end = this.#now + BigInt(Math.round(ms * 1000));
    for (;;) {
      await settle();
      const due = this.#timers.filter((t) => t.at <= end).sort((a, b) => (a.at === b.at ? a.seq - b.seq : a.at < b.at ? -1 : 1))[0];
      if (due === undefined) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      if (due.at > this.#now) this.#now = due.at;
      due.fn();
    }
    this.#now = end;
    await settle();
  }
}

/** Lets promise chains run (several turns, as an async function awaits more than once). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
}

const NODE = { depth: 0, index: 0 } as unknown as NodeOptimizingMetrics['node'];

/** Metrics of a keyed table with one node, from the few numbers the tests vary. */
export function keyedMetrics(o: { changeFiles?: number; foldable?: number; changeRows?: number; baseRows?: number; baseBytes?: number; oldestChangeMicros?: bigint; changeBytes?: number } = {}): OptimizingMetrics {
  const changeFiles = o.changeFiles ?? 0;
  const node: NodeOptimizingMetrics = {
    partitionKey: '', node: NODE, changeFiles, changeRows: o.changeRows ?? changeFiles, changeBytes: o.changeBytes ?? changeFiles * 1000,
    foldableChangeFiles: o.foldable ?? changeFiles, oldestChangeMicros: changeFiles > 0 ? o.oldestChangeMicros : undefined,
    baseFiles: 1, baseRows: o.baseRows ?? 1_000_000, baseBytes: o.baseBytes ?? 10_000_000, deletedRows: 0,
  };
  return {
    keyed: true, pendingChangeFiles: changeFiles, pendingChangeRows: node.changeRows, pendingChangeBytes: node.changeBytes,
    oldestPendingChangeMicros: node.oldestChangeMicros, baseFiles: 1, baseRows: node.baseRows, baseBytes: node.baseBytes,
    smallFiles: 0, duplicateRatio: 0, readAmplification: changeFiles, nodes: [node],
  };
}

const EMPTY_RESULT: Omit<OptimizeResult, 'kind'> = {
  snapshotId: 1n, nodesOptimized: 1, nodesSplit: 0, nodesMerged: 0, changeFilesFolded: 1, changeFilesCompacted: 0, baseFilesWritten: 1,
  filesIn: 2, bytesIn: 200, rowsIn: 20, filesOut: 1, bytesOut: 100, rowsOut: 10, lowWatermark: 0n, conflicts: 0,
};

export type FakeOptimize = (table: TableMetadata, opts: OptimizeOptions) => Promise<OptimizeResult>;

/**
 * The warehouse as the service sees it, in memory: tables with metrics the test sets, an
 * optimize the test scripts (by default it succeeds at once and leaves the table clean),
 * and the catalog's groups, history and states with the real claim rule.
 */
export class FakeOptimizingWarehouse implements OptimizingWarehouse {
  readonly clock: FakeClock;
  readonly tablesById = new Map<number, TableMetadata>();
  readonly metrics = new Map<number, OptimizingMetrics>();
  readonly heads = new Map<number, bigint>();
  readonly epochs = new Map<number, number>();
  readonly optimizeBehaviour = new Map<number, FakeOptimize>();
  /** Every optimize call, in order. */
  readonly optimizeCalls: { tableId: number; kind: string; triggers: boolean; runNodeRewrite: boolean }[] = [];
  metricsReads = 0;
  /** The low watermark the service reads (tests move it as transactions would end). */
  watermark = 0n;
  readonly groupRows = new Map<string, OptimizerGroup>();
  readonly runs: OptimizingRun[] = [];
  readonly states = new Map<number, OptimizingTableState>();
  readonly expireCalls: { tableId: number; olderThanMicros: bigint; retainLast: number | undefined }[] = [];
  readonly orphanCalls: { tableId: number; olderThanMicros: bigint }[] = [];
  housekeepingError: Error | undefined;
  /** Times releaseLogSegments was called. */
  segmentReleases = 0;
  #nextId = 16384;
  #nextRun = 1;

  constructor(clock: FakeClock) { this.clock = clock; }

  addTable(name: string, properties: Record<string, string> = {}, metrics = keyedMetrics()): TableMetadata {
    const t = { id: this.#nextId++, namespace: 'public', name, columns: [], primaryKey: ['k'], partitionBy: [], properties, constraints: [], schemaId: 0 } as unknown as TableMetadata;
    this.tablesById.set(t.id, t);
    this.metrics.set(t.id, metrics);
    this.heads.set(t.id, 1n);
    return t;
  }

  /** New metrics as a commit would leave them (the head moves). */
  commit(table: TableMetadata, metrics: OptimizingMetrics): void {
    this.metrics.set(table.id, metrics);
    this.heads.set(table.id, (this.heads.get(table.id) ?? 0n) + 1n);
  }

  /** New metrics as an in-place swap (tiering) would leave them: the head stays, the file epoch moves. */
  swapFilesInPlace(table: TableMetadata, metrics: OptimizingMetrics): void {
    this.metrics.set(table.id, metrics);
    this.epochs.set(table.id, (this.epochs.get(table.id) ?? 0) + 1);
  }

  optimizedKinds(table: TableMetadata): string[] {
    return this.optimizeCalls.filter((c) => c.tableId === table.id).map((c) => c.kind);
  }

  listTables(): TableMetadata[] { return [...this.tablesById.values()]; }
  getTableById(id: number): TableMetadata | undefined { return this.tablesById.get(id); }
  resolveSnapshot(table: TableMetadata): Snapshot | undefined {
    return { tableId: table.id, id: this.heads.get(table.id) ?? 0n } as Snapshot;
  }

  fileEpochs(): ReadonlyMap<number, number> { return this.epochs; }

  branchHeads(): ReadonlyMap<number, bigint> {
    return new Map([...this.tablesById.keys()].map((id) => [id, this.heads.get(id) ?? 0n]));
  }

  lowWatermark(): bigint { return this.watermark; }

  /** The catalog's optimizer list, by id. */
  readonly optimizerRows = new Map<string, OptimizerRecord>();
  registerOptimizer(o: OptimizerRecord, forgetBeforeMicros: bigint): void {
    for (const [id, r] of this.optimizerRows) if (r.heartbeatMicros < forgetBeforeMicros) this.optimizerRows.delete(id);
    this.optimizerRows.set(o.id, o);
  }
  heartbeatOptimizer(id: string, nowMicros: bigint): boolean {
    const r = this.optimizerRows.get(id);
    if (r === undefined) return false;
    this.optimizerRows.set(id, { ...r, heartbeatMicros: nowMicros });
    return true;
  }
  listOptimizers(): OptimizerRecord[] { return [...this.optimizerRows.values()].sort((a, b) => Number(a.startedMicros - b.startedMicros)); }
  dropOptimizer(id: string): void { this.optimizerRows.delete(id); }

  optimizingMetrics(table: TableMetadata): OptimizingMetrics {
    this.metricsReads++;
    return this.metrics.get(table.id)!;
  }

  async optimize(table: TableMetadata, opts: OptimizeOptions = {}): Promise<OptimizeResult> {
    const kind = opts.kind ?? 'minor';
    this.optimizeCalls.push({ tableId: table.id, kind, triggers: opts.triggers !== undefined, runNodeRewrite: opts.runNodeRewrite !== undefined });
    const behaviour = this.optimizeBehaviour.get(table.id);
    if (behaviour !== undefined) return behaviour(table, opts);
    opts.onProgress?.({ phase: 'plan', nodesDone: 0, nodesTotal: 1 });
    opts.onProgress?.({ phase: 'node', nodesDone: 0, nodesTotal: 1 });
    opts.onProgress?.({ phase: 'commit', nodesDone: 1, nodesTotal: 1 });
    this.commit(table, keyedMetrics());
    opts.onProgress?.({ phase: 'done', nodesDone: 1, nodesTotal: 1 });
    return { kind, ...EMPTY_RESULT };
  }

  listOptimizerGroups(): OptimizerGroup[] { return [...this.groupRows.values()]; }
  createOptimizerGroup(group: OptimizerGroup, opts?: { ifNotExists?: boolean }): void {
    if (this.groupRows.has(group.name)) {
      if (opts?.ifNotExists) return;
      throw new Error(`optimizer group "${group.name}" already exists`);
    }
    this.groupRows.set(group.name, group);
  }
  alterOptimizerGroup(name: string, change: { threads?: number; schedulingPolicy?: SchedulingPolicy }): OptimizerGroup {
    const g = this.groupRows.get(name);
    if (g === undefined) throw new Error(`optimizer group "${name}" does not exist`);
    const next = { ...g, ...change };
    this.groupRows.set(name, next);
    return next;
  }
  dropOptimizerGroup(name: string): void { this.groupRows.delete(name); }

  recordOptimizingRun(run: NewOptimizingRun): OptimizingRun {
    const r = { ...run, id: this.#nextRun++ };
    this.runs.unshift(r);
    return r;
  }
  listOptimizingRuns(opts?: { tableId?: number; limit?: number }): OptimizingRun[] {
    return this.runs.filter((r) => opts?.tableId === undefined || r.tableId === opts.tableId).slice(0, opts?.limit ?? Infinity);
  }
  runsOf(table: TableMetadata): OptimizingRun[] { return this.listOptimizingRuns({ tableId: table.id }).reverse(); }

  saveOptimizingState(state: OptimizingTableState): void { this.states.set(state.tableId, state); }
  tryClaimOptimizing(tableId: number, owner: string, nowMicros: bigint, leaseMicros: bigint, deadOwner?: string): boolean {
    const s = this.states.get(tableId);
    if (s !== undefined && s.status !== 'idle' && nowMicros - s.heartbeatMicros <= leaseMicros && s.owner !== deadOwner) return false;
    this.states.set(tableId, {
      tableId, status: 'planning', statusSinceMicros: nowMicros, owner, heartbeatMicros: nowMicros,
      lastMinorMicros: s?.lastMinorMicros, lastMajorMicros: s?.lastMajorMicros, lastFullMicros: s?.lastFullMicros,
      consecutiveFailures: s?.consecutiveFailures ?? 0, nextAttemptMicros: s?.nextAttemptMicros,
    });
    return true;
  }
  listOptimizingStates(): OptimizingTableState[] { return [...this.states.values()]; }

  async expireSnapshots(table: TableMetadata, opts: { olderThanMicros: bigint; retainLast?: number }): Promise<{ expiredSnapshots: number; deletedFiles: number }> {
    this.expireCalls.push({ tableId: table.id, olderThanMicros: opts.olderThanMicros, retainLast: opts.retainLast });
    if (this.housekeepingError) throw this.housekeepingError;
    return { expiredSnapshots: 0, deletedFiles: 0 };
  }
  async releaseLogSegments(): Promise<number> {
    this.segmentReleases++;
    return 0;
  }

  async removeOrphanFiles(table: TableMetadata, opts: { olderThanMicros: bigint }): Promise<{ deletedFiles: string[] }> {
    this.orphanCalls.push({ tableId: table.id, olderThanMicros: opts.olderThanMicros });
    if (this.housekeepingError) throw this.housekeepingError;
    return { deletedFiles: [] };
  }
}
