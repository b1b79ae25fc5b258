import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { dueOptimizingKind, minorReason, optimizingSettings } from '../../lake/index.js';
import type {
  OptimizeKind, OptimizerGroup, OptimizingRun, OptimizingStatus, OptimizingTableState, SchedulingPolicy, TableMetadata,
} from '../../lake/index.js';
import { OccupationTracker, OCCUPATION_WINDOW_MICROS } from './occupation-tracker.js';
import { optimizeInline } from './inline-optimizing-service.js';
import { OptimizerGroups } from './optimizer-groups.js';
import type { OptimizerPool } from './optimizer-pool.js';
import { DEFAULT_LEASE_MICROS, OptimizingClaim, isAbandoned } from './optimizing-claim.js';
import { OptimizerRegistration, processOwner } from './optimizer-registration.js';
import { optimizerRows } from './optimizer-rows.js';
import { DEFAULT_PROCESS_DEADLINE_MS, errorText, runOptimizingProcess } from './optimizing-process.js';
import type { OptimizeReport, OptimizerGroupRow, OptimizerRow, OptimizingService, OptimizingTableRow } from './optimizing-service.js';
import { optimizingTableRow } from './optimizing-table-row.js';
import { silentLogger } from './optimizing-warehouse.js';
import type { OptimizingWarehouse, ServiceLogger } from './optimizing-warehouse.js';
import { orderPendingTables } from './pick-next-table.js';
import type { PendingTable } from './pick-next-table.js';
import { systemClock } from './service-clock.js';
import type { ServiceClock } from './service-clock.js';
import { TableMetricsCache, type TickReads } from './table-metrics-cache.js';

/**
 * A table that was due but whose optimize did nothing waits this long before it is looked
 * at again, doubling with each such run in a row up to NOTHING_DONE_MAX_PAUSE_MICROS.
 */
const NOTHING_DONE_FIRST_PAUSE_MICROS = 1_000_000n;
const NOTHING_DONE_MAX_PAUSE_MICROS = 30_000_000n;
/** Nudges never make ticks closer than this: a burst of commits or finished processes costs one tick. */
const MIN_TICK_GAP_MS = 50;

export interface OptimizingSchedulerOptions {
  readonly warehouse: OptimizingWarehouse;
  readonly clock?: ServiceClock;
  readonly logger?: ServiceLogger;
  /** Threads of the implicit `default` group (`--optimizer-threads`; default 1). */
  readonly defaultThreads?: number;
  /** How often every table is looked at (default 1 s); nudge() looks sooner. */
  readonly tickMs?: number;
  /** A claim whose heartbeat is older than this is abandoned and may be retaken (default 60 s). */
  readonly leaseMs?: number;
  /** How often a running process refreshes its claim (default lease / 4). */
  readonly heartbeatMs?: number;
  /** A process running longer is aborted and recorded as failed (default 30 min). */
  readonly deadlineMs?: number;
  /** Who claims tables in the catalog, and its id in the optimizer list (default: host:pid). */
  readonly owner?: string;
  /** The optimizer groups whose tables this scheduler optimizes (`floe optimizer --group`); default every group. */
  readonly groups?: readonly string[];
  /**
   * Makes the worker pool of a group (`createOptimizerPool` in a server). Without it node
   * rewrites run on the scheduler's thread: tests and embedded use.
   */
  readonly createPool?: (group: OptimizerGroup) => OptimizerPool;
}

interface RunningProcess {
  readonly tableId: number;
  readonly group: string;
  readonly kind: OptimizeKind;
  status: OptimizingStatus;
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

interface CallRequest {
  readonly table: TableMetadata;
  readonly kind: OptimizeKind;
  readonly group: string;
  readonly sinceMicros: bigint;
  readonly resolve: (r: OptimizeReport) => void;
  readonly reject: (e: unknown) => void;
}

/**
 * A table whose last runs did nothing: how many in a row, and the low watermark the last
 * one planned at. Usually the changes that made it due were still above the watermark (a
 * long query held it), so retrying helps only once the watermark has moved.
 */
interface NothingDone {
  readonly runs: number;
  readonly watermark: bigint;
  /** Past this the table is looked at again even if the watermark has not moved. */
  readonly untilMicros: bigint;
}

interface PoolEntry {
  readonly threads: number;
  readonly pool: OptimizerPool;
  inUse: number;
  retired: boolean;
}

/**
 * The self-optimizing scheduler: watches every table, decides which are due and of what
 * kind (dueOptimizingKind, the rule the optimizer shares), and runs one optimize process
 * at a time per table on its group's threads, picking by the group's policy. It is also
 * the OptimizingService a server's sessions use (CALL optimize, floe_optimizing).
 *
 * Never stuck, by construction (docs/design-notes.md, "Scheduler"):
 * 1. every process has a deadline, after which it is aborted and its thread freed;
 * 2. every failure (metrics, planning, a task, the commit, the deadline) is caught per
 *    table, recorded in the history, and backs the table off exponentially;
 * 3. a tick never waits on a process, and a table that fails or is held elsewhere is
 *    skipped, so no table delays another's pick;
 * 4. claims are leases: a holder that stops heartbeating (killed) loses the table;
 * 5. stop() aborts running processes and releases their claims.
 */
export class OptimizingScheduler implements OptimizingService {
  readonly #warehouse: OptimizingWarehouse;
  readonly #clock: ServiceClock;
  readonly #log: ServiceLogger;
  readonly #tickMs: number;
  readonly #leaseMicros: bigint;
  readonly #heartbeatMs: number;
  readonly #deadlineMs: number;
  readonly #owner: string;
  readonly #createPool: ((group: OptimizerGroup) => OptimizerPool) | undefined;
  readonly #groups: OptimizerGroups;
  readonly #servedGroups: ReadonlySet<string> | undefined;
  readonly #registration: OptimizerRegistration;
  readonly #metrics: TableMetricsCache;
  readonly #occupation = new OccupationTracker();
  readonly #running = new Map<number, RunningProcess>();
  readonly #calls: CallRequest[] = [];
  readonly #pools = new Map<string, PoolEntry>();
  readonly #nothingDone = new Map<number, NothingDone>();
  /** Due tables by group, as of the last tick. */
  #pending = new Map<string, PendingTable[]>();
  /** Tables whose missing group was already reported (by table id: the group named). */
  readonly #reportedMissingGroup = new Map<number, string>();
  /** Log lines already written for a repeating tick failure, so a broken catalog does not flood the log. */
  readonly #loggedTickErrors = new Set<string>();
  #started = false;
  #stopped = false;
  #cancelTick: (() => void) | undefined;
  #ticking = false;
  #lastTickMicros = -1_000_000_000n;

  constructor(opts: OptimizingSchedulerOptions) {
    this.#warehouse = opts.warehouse;
    this.#clock = opts.clock ?? systemClock;
    this.#log = opts.logger ?? silentLogger;
    this.#tickMs = opts.tickMs ?? 1000;
    const leaseMs = opts.leaseMs ?? Number(DEFAULT_LEASE_MICROS / 1000n);
    this.#leaseMicros = BigInt(leaseMs) * 1000n;
    this.#heartbeatMs = opts.heartbeatMs ?? Math.max(1, Math.floor(leaseMs / 4));
    this.#deadlineMs = opts.deadlineMs ?? DEFAULT_PROCESS_DEADLINE_MS;
    this.#owner = opts.owner ?? processOwner();
    this.#servedGroups = opts.groups === undefined ? undefined : new Set(opts.groups);
    this.#registration = new OptimizerRegistration({
      warehouse: opts.warehouse, clock: this.#clock, log: this.#log, heartbeatMs: this.#heartbeatMs,
      id: this.#owner, groups: opts.groups, threads: Math.max(0, opts.defaultThreads ?? 1),
    });
    this.#createPool = opts.createPool;
    this.#groups = new OptimizerGroups(opts.warehouse, Math.max(0, opts.defaultThreads ?? 1));
    this.#metrics = new TableMetricsCache(opts.warehouse);
  }

  /** Starts ticking. Occupation is seeded from the last hour of history, so a restart keeps quotas fair. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    try {
      const from = this.#clock.nowMicros() - OCCUPATION_WINDOW_MICROS;
      for (const r of this.#warehouse.listOptimizingRuns({ limit: 10_000 })) {
        if (r.startedMicros < from) break;
        this.#occupation.add(r.tableId, r.startedMicros, r.startedMicros + BigInt(Math.round(r.durationMs * 1000)));
      }
    } catch (e) {
      this.#log.warn({ err: errorText(e) }, 'optimizing history unreadable; quotas start from zero');
    }
    this.#registration.start();
    // Pools start with a group's first process, not here: a gateway whose tables never need
    // optimizing (most test servers) pays no worker (≈1.2 s CPU, 70 MB) for it.
    this.#scheduleTick(0);
  }

  /**
   * Aborts running processes (the table stays as it was), waits for them to release their
   * claims, fails queued CALL optimize requests and closes the worker pools.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#cancelTick?.();
    this.#cancelTick = undefined;
    for (const r of this.#running.values()) r.controller.abort();
    for (const c of this.#calls.splice(0)) c.reject(new FloeError(SqlState.adminShutdown, 'terminating optimize because the optimizing service is stopping'));
    await Promise.all([...this.#running.values()].map((r) => r.done));
    await Promise.all([...this.#pools.values()].map((p) => p.pool.close()));
    this.#pools.clear();
    if (this.#started) this.#registration.stop();
  }

  /** Looks at the tables soon (after a commit, say) instead of at the next tick. */
  nudge(): void {
    if (!this.#started || this.#stopped) return;
    const sinceLastMs = Number(this.#clock.nowMicros() - this.#lastTickMicros) / 1000;
    this.#scheduleTick(Math.max(0, MIN_TICK_GAP_MS - sinceLastMs));
  }

  /** Resolves once no process of this scheduler runs (tests). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running.values()].map((r) => r.done));
  }

  /**
   * One look at every table, then as many processes as the groups have free threads for.
   * Synchronous up to starting the processes: it never waits on one.
   */
  tick(): void {
    if (this.#stopped || this.#ticking) return;
    this.#ticking = true;
    this.#lastTickMicros = this.#clock.nowMicros();
    try {
      this.#pending = this.#findDueTables();
      this.#dispatch();
    } catch (e) {
      const text = errorText(e);
      if (!this.#loggedTickErrors.has(text)) {
        this.#loggedTickErrors.add(text);
        this.#log.warn({ err: text }, 'optimizing scheduler tick failed');
      }
    } finally {
      this.#ticking = false;
    }
  }

  // ---- OptimizingService -------------------------------------------------------------

  async optimizeNow(table: TableMetadata, kind: OptimizeKind = 'minor'): Promise<OptimizeReport> {
    const groupName = optimizingSettings(table).group;
    const group = this.#groups.list().find((g) => g.name === groupName);
    if (group === undefined) throw missingGroupError(groupName);
    if (!this.#started || this.#stopped || group.threads === 0) return optimizeInline({
        warehouse: this.#warehouse, clock: this.#clock, owner: this.#owner, leaseMicros: this.#leaseMicros, deadlineMs: this.#deadlineMs,
        logger: this.#log, group: group.name,
      }, table, kind);
    return new Promise<OptimizeReport>((resolve, reject) => {
      this.#calls.push({ table, kind, group: groupName, sinceMicros: this.#clock.nowMicros(), resolve, reject });
      this.nudge();
    });
  }

  tables(): OptimizingTableRow[] {
    const now = this.#clock.nowMicros();
    const states = new Map(this.#warehouse.listOptimizingStates().map((s) => [s.tableId, s]));
    const threads = new Map(this.#groups.list().map((g) => [g.name, g.threads]));
    const pendingIds = new Set([...this.#pending.values()].flat().map((p) => p.tableId));
    const tick = this.#metrics.tickReads();
    // A table dropped while the view is read has no metrics: it has no row either.
    return this.#warehouse.listTables().flatMap((table) => {
      const s = optimizingSettings(table);
      const running = this.#running.get(table.id);
      let metrics;
      try { metrics = this.#metrics.get(table, tick); } catch { return []; }
      return [optimizingTableRow({
        table,
        metrics,
        state: states.get(table.id),
        occupation: this.#occupation.occupation(table.id, threads.get(s.group) ?? 0, now),
        nowMicros: now,
        leaseMicros: this.#leaseMicros,
        localStatus: running?.status ?? (pendingIds.has(table.id) ? 'pending' : undefined),
      })];
    });
  }

  history(): OptimizingRun[] {
    return this.#warehouse.listOptimizingRuns();
  }

  optimizers(): OptimizerRow[] {
    return optimizerRows(this.#warehouse, this.#clock.nowMicros(), this.#leaseMicros);
  }

  groups(): OptimizerGroupRow[] {
    const tables = this.#warehouse.listTables().map((t) => optimizingSettings(t).group);
    return this.#groups.list().map((g) => ({
      ...g,
      tasksRunning: [...this.#running.values()].filter((r) => r.group === g.name).length,
      tasksQueued: (this.#pending.get(g.name)?.length ?? 0) + this.#calls.filter((c) => c.group === g.name).length,
      tables: tables.filter((name) => name === g.name).length,
    }));
  }

  createGroup(group: OptimizerGroup, opts?: { ifNotExists?: boolean }): void {
    this.#groups.create(group, opts);
    this.nudge();
  }

  alterGroup(name: string, change: { threads?: number; schedulingPolicy?: SchedulingPolicy }): void {
    this.#groups.alter(name, change);
    this.nudge();
  }

  dropGroup(name: string, opts?: { ifExists?: boolean }): void {
    this.#groups.drop(name, opts);
    this.nudge();
  }

  // ---- deciding ----------------------------------------------------------------------

  #findDueTables(): Map<string, PendingTable[]> {
    const now = this.#clock.nowMicros();
    const groups = new Map(this.#groups.list().map((g) => [g.name, g]));
    const states = new Map(this.#warehouse.listOptimizingStates().map((s) => [s.tableId, s]));
    const tables = this.#warehouse.listTables();
    const tick = this.#metrics.tickReads();
    const ids = new Set(tables.map((t) => t.id));
    this.#metrics.retain(ids);
    for (const id of this.#nothingDone.keys()) if (!ids.has(id)) this.#nothingDone.delete(id);
    const pending = new Map<string, PendingTable[]>();
    for (const table of tables) {
      if (this.#running.has(table.id)) continue;
      if (this.#servedGroups !== undefined && !this.#servedGroups.has(optimizingSettings(table).group)) continue;
      // Each table on its own: whatever one throws is its failure, not the tick's.
      try {
        const due = this.#dueEntry(table, states.get(table.id), groups, tick, now);
        if (due === undefined) continue;
        let list = pending.get(due.group);
        if (list === undefined) pending.set(due.group, list = []);
        list.push(due.entry);
      } catch (e) {
        this.#recordFailureWithoutProcess(table, 'minor', e);
      }
    }
    return pending;
  }

  #dueEntry(
    table: TableMetadata, state: OptimizingTableState | undefined, groups: ReadonlyMap<string, OptimizerGroup>,
    tick: TickReads, now: bigint,
  ): { group: string; entry: PendingTable } | undefined {
    const s = optimizingSettings(table);
    if (!s.enabled) return undefined;
    const idle = this.#nothingDone.get(table.id);
    if (idle !== undefined && tick.watermark <= idle.watermark && now < idle.untilMicros) return undefined;
    if (state !== undefined) {
      if (state.nextAttemptMicros !== undefined && state.nextAttemptMicros > now) return undefined;
      // Held by another live process: not ours to pick this time.
      if (state.status !== 'idle' && state.owner !== this.#owner && !isAbandoned(state, now, this.#leaseMicros)) return undefined;
    }
    const metrics = this.#metrics.get(table, tick);
    const last = { minorMicros: state?.lastMinorMicros, majorMicros: state?.lastMajorMicros, fullMicros: state?.lastFullMicros };
    const kind = dueOptimizingKind(metrics, s, last, now);
    if (kind === undefined) return undefined;
    const group = groups.get(s.group);
    if (group === undefined) {
      this.#reportMissingGroup(table, s.group, kind);
      return undefined;
    }
    this.#reportedMissingGroup.delete(table.id);
    const lasts = [last.minorMicros, last.majorMicros, last.fullMicros].filter((x): x is bigint => x !== undefined);
    return {
      group: s.group,
      entry: {
        tableId: table.id,
        kind,
        readAmplificationBreach: metrics.nodes.some((n) => minorReason(n, s, now) === 'read-amplification'),
        readAmplificationRatio: metrics.readAmplification / Math.max(1, s.readAmplificationMax),
        pendingChangeFiles: metrics.pendingChangeFiles,
        lastOptimizedMicros: lasts.length === 0 ? undefined : lasts.reduce((a, b) => (a > b ? a : b)),
        quota: s.quota,
        occupation: this.#occupation.occupation(table.id, group.threads, now),
      },
    };
  }

  /** Once per table and missing group: a failed run in the history and a warning; the table stays pending. */
  #reportMissingGroup(table: TableMetadata, group: string, kind: OptimizeKind): void {
    if (this.#reportedMissingGroup.get(table.id) === group) return;
    this.#reportedMissingGroup.set(table.id, group);
    this.#log.warn({ table: `${table.namespace}.${table.name}`, group }, 'table names an optimizer group that does not exist; it is not optimized');
    this.#recordFailureWithoutProcess(table, kind, missingGroupError(group), false);
  }

  /** A failure outside a process (its metrics could not be read, its group is missing): history, and back-off when asked. */
  #recordFailureWithoutProcess(table: TableMetadata, kind: OptimizeKind, e: unknown, backOff = true): void {
    const now = this.#clock.nowMicros();
    try {
      this.#warehouse.recordOptimizingRun({
        tableId: table.id, kind, status: 'failed', trigger: 'scheduler', startedMicros: now, durationMs: 0,
        nodes: 0, splits: 0, filesIn: 0, bytesIn: 0, rowsIn: 0, filesOut: 0, bytesOut: 0, rowsOut: 0,
        snapshotId: undefined, error: errorText(e),
      });
      if (backOff) {
        const claim = OptimizingClaim.tryTake(this.#warehouse, this.#clock, table.id, this.#owner, this.#leaseMicros);
        claim?.release({ kind, succeeded: false });
      }
    } catch (e2) {
      this.#log.warn({ table: `${table.namespace}.${table.name}`, err: errorText(e2) }, 'could not record an optimizing failure');
    }
  }

  // ---- running -----------------------------------------------------------------------

  #dispatch(): void {
    const now = this.#clock.nowMicros();
    for (const group of this.#groups.list()) {
      let free = group.threads - [...this.#running.values()].filter((r) => r.group === group.name).length;
      if (free <= 0) continue;
      // CALL optimize first: someone is waiting for it.
      for (const call of this.#calls.filter((c) => c.group === group.name)) {
        if (free <= 0) break;
        if (this.#running.has(call.table.id)) continue;
        const claim = OptimizingClaim.tryTake(this.#warehouse, this.#clock, call.table.id, this.#owner, this.#leaseMicros);
        if (claim === undefined) {
          if (now - call.sinceMicros > BigInt(this.#deadlineMs) * 1000n) {
            this.#calls.splice(this.#calls.indexOf(call), 1);
            call.reject(new FloeError(SqlState.lockNotAvailable, `could not optimize table "${call.table.name}": another process has been optimizing it too long`));
          }
          continue;
        }
        this.#calls.splice(this.#calls.indexOf(call), 1);
        this.#start(call.table, call.kind, group, claim, 'call', call);
        free--;
      }
      const ordered = orderPendingTables(this.#pending.get(group.name) ?? [], group.schedulingPolicy);
      for (const p of ordered) {
        if (free <= 0) break;
        if (this.#running.has(p.tableId)) continue;
        const table = this.#warehouse.getTableById(p.tableId);
        if (table === undefined) continue;
        const claim = OptimizingClaim.tryTake(this.#warehouse, this.#clock, p.tableId, this.#owner, this.#leaseMicros);
        if (claim === undefined) continue;
        this.#start(table, p.kind, group, claim, 'scheduler', undefined);
        free--;
      }
      const started = new Set(this.#running.keys());
      this.#pending.set(group.name, (this.#pending.get(group.name) ?? []).filter((p) => !started.has(p.tableId)));
    }
  }

  #start(table: TableMetadata, kind: OptimizeKind, group: OptimizerGroup, claim: OptimizingClaim, trigger: 'scheduler' | 'call', call: CallRequest | undefined): void {
    const controller = new AbortController();
    const pool = this.#poolFor(group);
    let resolveDone!: () => void;
    const proc: RunningProcess = {
      tableId: table.id, group: group.name, kind, status: 'planning', controller,
      done: new Promise<void>((r) => { resolveDone = r; }),
    };
    this.#running.set(table.id, proc);
    const endOccupation = this.#occupation.begin(table.id, this.#clock.nowMicros());
    let stopHeartbeat: (() => void) | undefined;
    const beat = () => {
      stopHeartbeat = this.#clock.setTimer(() => {
        try { claim.heartbeat(); } catch (e) { this.#log.warn({ err: errorText(e) }, 'optimizing heartbeat failed'); }
        beat();
      }, this.#heartbeatMs);
    };
    beat();
    void (async () => {
      let report: OptimizeReport | undefined;
      let error: unknown;
      let canceled = false;
      let watermarkAtPlan: bigint | undefined;
      try {
        const outcome = await runOptimizingProcess({
          warehouse: this.#warehouse,
          clock: this.#clock,
          table,
          kind,
          ...(trigger === 'scheduler' ? { triggers: optimizingSettings(table) } : {}),
          trigger,
          deadlineMs: this.#deadlineMs,
          logger: this.#log,
          group: group.name,
          ...(pool ? { runNodeRewrite: (task) => pool.pool.runNodeRewrite(task) } : {}),
          signal: controller.signal,
          onStatus: (status) => {
            proc.status = status;
            try { claim.setStatus(status); } catch (e) { this.#log.warn({ err: errorText(e) }, 'could not save optimizing status'); }
          },
        });
        report = outcome.report;
        error = outcome.error;
        canceled = outcome.canceled;
        watermarkAtPlan = outcome.lowWatermark;
      } catch (e) {
        // Recording the run failed: the process itself may have succeeded; the table backs off.
        error = e;
        this.#log.warn({ table: `${table.namespace}.${table.name}`, kind, err: errorText(e) }, 'optimize could not be recorded; backing off');
      } finally {
        stopHeartbeat?.();
        endOccupation(this.#clock.nowMicros());
        try {
          const idle = trigger === 'scheduler' && error === undefined && report?.snapshotId === undefined && (report?.filesOut ?? 0) === 0;
          const notBeforeMicros = idle ? this.#pauseAfterNothingDone(table.id, watermarkAtPlan) : undefined;
          if (!idle) this.#nothingDone.delete(table.id);
          // A process the stop canceled says nothing of the table: no failure streak, no back-off.
          claim.release(canceled ? undefined : { kind, succeeded: error === undefined, ...(notBeforeMicros === undefined ? {} : { notBeforeMicros }) });
        } catch (e) {
          // The lease runs out on its own; the table is retaken after it.
          this.#log.warn({ err: errorText(e) }, 'could not release an optimizing claim');
        }
        if (pool) {
          pool.inUse--;
          if (pool.retired && pool.inUse === 0) void pool.pool.close();
        }
        this.#running.delete(table.id);
        // A change compaction swaps files without a snapshot: metrics cached by head would
        // still show the breach, rerun it for nothing and pause the table (#pauseAfterNothingDone).
        this.#metrics.forget(table.id);
        resolveDone();
      }
      if (call) {
        if (error === undefined && report !== undefined) call.resolve(report);
        else call.reject(error);
      }
      this.nudge();
    })();
  }

  /**
   * Due by the metrics, yet the run committed and compacted nothing. Usually the changes it
   * was due for were still above the low watermark: a long query held it, and a change
   * compaction keeps its big earlier output out of a group (size tiers), so the few files
   * below the watermark made no group. Waiting a fixed 30 s let a stream pile up dozens of
   * change files (CH-benCHmark, W=4). So the table is looked at again once the watermark
   * has passed the one this run planned at, after a pause that starts at 1 s and doubles
   * with each such run in a row: a real disagreement between the trigger rule and the
   * optimizer (or a concurrent optimizer that keeps winning) cannot spin. Past 30 s the
   * table is looked at whatever the watermark.
   */
  #pauseAfterNothingDone(tableId: number, watermarkAtPlan: bigint | undefined): bigint {
    const now = this.#clock.nowMicros();
    const runs = (this.#nothingDone.get(tableId)?.runs ?? 0) + 1;
    let pause = NOTHING_DONE_FIRST_PAUSE_MICROS << BigInt(Math.min(runs - 1, 30));
    if (pause > NOTHING_DONE_MAX_PAUSE_MICROS) pause = NOTHING_DONE_MAX_PAUSE_MICROS;
    this.#nothingDone.set(tableId, {
      runs,
      watermark: watermarkAtPlan ?? this.#warehouse.lowWatermark(),
      untilMicros: now + NOTHING_DONE_MAX_PAUSE_MICROS,
    });
    return now + pause;
  }

  /** The group's worker pool, made on first use and replaced when its thread count changes. */
  #poolFor(group: OptimizerGroup): PoolEntry | undefined {
    if (this.#createPool === undefined) return undefined;
    let e = this.#pools.get(group.name);
    if (e !== undefined && e.threads !== group.threads) {
      e.retired = true;
      if (e.inUse === 0) void e.pool.close();
      e = undefined;
    }
    if (e === undefined) {
      e = { threads: group.threads, pool: this.#createPool(group), inUse: 0, retired: false };
      this.#pools.set(group.name, e);
    }
    e.inUse++;
    return e;
  }

  #scheduleTick(ms: number): void {
    if (this.#stopped) return;
    this.#cancelTick?.();
    this.#cancelTick = this.#clock.setTimer(() => {
      this.#cancelTick = undefined;
      this.tick();
      this.#scheduleTick(this.#tickMs);
    }, ms);
  }
}

export function missingGroupError(group: string): FloeError {
  return new FloeError(SqlState.undefinedObject, `optimizer group "${group}" does not exist`, {
    hint: 'Create it with CREATE OPTIMIZER GROUP, or set the table\'s self-optimizing.group to an existing group.',
  });
}
