import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { OptimizeKind } from '../optimize/optimize-result.js';
import type {
  NewOptimizingRun, OptimizerGroup, OptimizerRecord, OptimizingRun, OptimizingStatus, OptimizingTableState, SchedulingPolicy,
} from '../optimize/optimizing-records.js';
import { DEFAULT_OPTIMIZER_GROUP, defaultGroupDropError, groupInUseError } from '../warehouse/check-optimizer-group.js';
import type { SqlCatalogAccess } from './sql-sequences.js';

/**
 * The self-optimizing service's tables in the catalog: optimizer groups, the history
 * of optimize processes (bounded per table), and each table's status with the lease that
 * lets several schedulers share one warehouse. The `default` group is not stored until it is
 * altered: the service supplies it (its threads are the process's --optimizer-threads), and
 * it can never be dropped.
 */
/** Runs kept per table; older ones are deleted as new ones are recorded. */
export const OPTIMIZING_RUNS_KEPT = 1000;

interface GroupRow { name: string; threads: bigint; scheduling_policy: string }

interface RunRow {
  run_id: bigint; table_id: bigint; kind: string; status: string; trigger: string; started_micros: bigint;
  duration_ms: bigint; nodes: bigint; splits: bigint; files_in: bigint; bytes_in: bigint; rows_in: bigint;
  files_out: bigint; bytes_out: bigint; rows_out: bigint; snapshot_id: bigint | null; error: string | null;
}

interface StateRow {
  table_id: bigint; status: string; status_since_micros: bigint; owner: string; heartbeat_micros: bigint;
  last_minor_micros: bigint | null; last_major_micros: bigint | null; last_full_micros: bigint | null;
  consecutive_failures: bigint; next_attempt_micros: bigint | null;
}

const toGroup = (r: GroupRow): OptimizerGroup => ({
  name: r.name, threads: Number(r.threads), schedulingPolicy: r.scheduling_policy as SchedulingPolicy,
});

const optionalBigint = (v: bigint | null): bigint | undefined => (v === null ? undefined : BigInt(v));

function toRun(r: RunRow): OptimizingRun {
  return {
    id: Number(r.run_id), tableId: Number(r.table_id), kind: r.kind as OptimizeKind, status: r.status as OptimizingRun['status'],
    trigger: r.trigger, startedMicros: BigInt(r.started_micros), durationMs: Number(r.duration_ms), nodes: Number(r.nodes),
    splits: Number(r.splits), filesIn: Number(r.files_in), bytesIn: Number(r.bytes_in), rowsIn: Number(r.rows_in),
    filesOut: Number(r.files_out), bytesOut: Number(r.bytes_out), rowsOut: Number(r.rows_out),
    snapshotId: optionalBigint(r.snapshot_id), error: r.error ?? undefined,
  };
}

function toState(r: StateRow): OptimizingTableState {
  return {
    tableId: Number(r.table_id), status: r.status as OptimizingStatus, statusSinceMicros: BigInt(r.status_since_micros),
    owner: r.owner, heartbeatMicros: BigInt(r.heartbeat_micros), lastMinorMicros: optionalBigint(r.last_minor_micros),
    lastMajorMicros: optionalBigint(r.last_major_micros), lastFullMicros: optionalBigint(r.last_full_micros),
    consecutiveFailures: Number(r.consecutive_failures), nextAttemptMicros: optionalBigint(r.next_attempt_micros),
  };
}

export class SqlOptimizing {
  readonly #c: SqlCatalogAccess;

  constructor(access: SqlCatalogAccess) {
    this.#c = access;
  }

  /** Registers an optimizer, first deleting those whose heartbeat is older than `forgetBeforeMicros` (long dead). */
  registerOptimizer(o: OptimizerRecord, forgetBeforeMicros: bigint): void {
    this.#c.immediate(() => {
      this.#c.sql('DELETE FROM optimizers WHERE heartbeat_micros < ?').run(forgetBeforeMicros);
      this.#c.sql(`INSERT INTO optimizers VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (optimizer_id) DO UPDATE SET host = excluded.host, pid = excluded.pid,
        groups = excluded.groups, threads = excluded.threads, started_micros = excluded.started_micros, heartbeat_micros = excluded.heartbeat_micros`).run(
        o.id, o.host, o.pid, o.groups === undefined ? null : JSON.stringify(o.groups), o.threads, o.startedMicros, o.heartbeatMicros);
    });
  }

  /** False when the row is gone (another process forgot it as dead): the caller registers again. */
  heartbeatOptimizer(id: string, nowMicros: bigint): boolean {
    return this.#c.immediate(() => this.#c.sql('UPDATE optimizers SET heartbeat_micros = ? WHERE optimizer_id = ?').run(nowMicros, id).changes > 0);
  }

  listOptimizers(): OptimizerRecord[] {
    const rows = this.#c.sql('SELECT * FROM optimizers ORDER BY started_micros, optimizer_id').all() as {
      optimizer_id: string; host: string; pid: bigint; groups: string | null; threads: bigint; started_micros: bigint; heartbeat_micros: bigint;
    }[];
    return rows.map((r) => ({
      id: r.optimizer_id, host: r.host, pid: Number(r.pid), groups: r.groups === null ? undefined : JSON.parse(r.groups) as string[],
      threads: Number(r.threads), startedMicros: BigInt(r.started_micros), heartbeatMicros: BigInt(r.heartbeat_micros),
    }));
  }

  dropOptimizer(id: string): void {
    this.#c.immediate(() => { this.#c.sql('DELETE FROM optimizers WHERE optimizer_id = ?').run(id); });
  }

  listGroups(): OptimizerGroup[] {
    return this.#c.cached('optimizer groups', () => (this.#c.sql('SELECT * FROM optimizer_groups ORDER BY name').all() as GroupRow[]).map(toGroup));
  }

  #group(name: string): OptimizerGroup | undefined {
    const r = this.#c.sql('SELECT * FROM optimizer_groups WHERE name = ?').get(name) as GroupRow | undefined;
    return r === undefined ? undefined : toGroup(r);
  }

  /** False when it existed and ifNotExists was given. */
  createGroup(group: OptimizerGroup, ifNotExists: boolean): boolean {
    return this.#c.immediate(() => {
      if (this.#group(group.name) !== undefined) {
        if (ifNotExists) return false;
        throw new FloeError(SqlState.duplicateObject, `optimizer group "${group.name}" already exists`);
      }
      this.#c.sql('INSERT INTO optimizer_groups VALUES (?, ?, ?)').run(group.name, group.threads, group.schedulingPolicy);
      return true;
    });
  }

  alterGroup(name: string, change: { threads?: number; schedulingPolicy?: SchedulingPolicy }): OptimizerGroup {
    return this.#c.immediate(() => {
      const cur = this.#group(name);
      if (cur === undefined) throw undefinedGroup(name);
      const next: OptimizerGroup = {
        name, threads: change.threads ?? cur.threads, schedulingPolicy: change.schedulingPolicy ?? cur.schedulingPolicy,
      };
      this.#c.sql('UPDATE optimizer_groups SET threads = ?, scheduling_policy = ? WHERE name = ?').run(next.threads, next.schedulingPolicy, name);
      return next;
    });
  }

  /**
   * 2BP01 while a table's `self-optimizing.group` names the group (listed in DETAIL, as
   * PostgreSQL lists an object's dependents), and always for `default`.
   */
  dropGroup(name: string, ifExists: boolean): void {
    this.#c.immediate(() => {
      if (name === DEFAULT_OPTIMIZER_GROUP) throw defaultGroupDropError();
      if (this.#group(name) === undefined) {
        if (ifExists) return;
        throw undefinedGroup(name);
      }
      const users = (this.#c.sql('SELECT namespace, name, properties FROM tables ORDER BY namespace, name').all() as { namespace: string; name: string; properties: string }[])
        .filter((t) => (JSON.parse(t.properties) as Record<string, string>)['self-optimizing.group'] === name);
      if (users.length > 0) throw groupInUseError(name, users);
      this.#c.sql('DELETE FROM optimizer_groups WHERE name = ?').run(name);
    });
  }

  /**
   * Records a run and keeps only the newest OPTIMIZING_RUNS_KEPT of its table. Without an
   * fsync, as the state rows: a run's record is history (floe_optimizing_runs, metrics), and
   * one lost to an OS crash loses nothing of the table. A fold in a stream records a run
   * many times a second, and each fsync stalled the gateway's main thread.
   */
  recordRun(run: NewOptimizingRun, kept = OPTIMIZING_RUNS_KEPT): OptimizingRun {
    return this.#c.immediateNormal(() => {
      const r = this.#c.sql(`INSERT INTO optimizing_runs (table_id, kind, status, trigger, started_micros, duration_ms, nodes, splits,
        files_in, bytes_in, rows_in, files_out, bytes_out, rows_out, snapshot_id, error) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING *`)
        .get(run.tableId, run.kind, run.status, run.trigger, run.startedMicros, Math.round(run.durationMs), run.nodes, run.splits,
          run.filesIn, run.bytesIn, run.rowsIn, run.filesOut, run.bytesOut, run.rowsOut, run.snapshotId ?? null, run.error ?? null) as RunRow;
      this.#c.sql(`DELETE FROM optimizing_runs WHERE table_id = ? AND run_id <= (
        SELECT run_id FROM optimizing_runs WHERE table_id = ? ORDER BY run_id DESC LIMIT 1 OFFSET ?)`).run(run.tableId, run.tableId, kept);
      return toRun(r);
    });
  }

  /** Newest first. */
  listRuns(opts: { tableId?: number; limit?: number }): OptimizingRun[] {
    // Not -1, which SQLite reads as no limit and PostgreSQL refuses.
    const limit = opts.limit ?? Number.MAX_SAFE_INTEGER;
    const rows = (opts.tableId === undefined
      ? this.#c.sql('SELECT * FROM optimizing_runs ORDER BY run_id DESC LIMIT ?').all(limit)
      : this.#c.sql('SELECT * FROM optimizing_runs WHERE table_id = ? ORDER BY run_id DESC LIMIT ?').all(opts.tableId, limit)) as RunRow[];
    return rows.map(toRun);
  }

  /**
   * Status and lease rows change with every scheduling step: they are written without an
   * fsync (a lost one after an OS crash only means a table looks idle, or its lease runs out).
   */
  saveState(s: OptimizingTableState): void {
    this.#c.immediateNormal(() => this.#c.sql(`INSERT INTO optimizing_states VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET status = excluded.status,
      status_since_micros = excluded.status_since_micros, owner = excluded.owner, heartbeat_micros = excluded.heartbeat_micros,
      last_minor_micros = excluded.last_minor_micros, last_major_micros = excluded.last_major_micros, last_full_micros = excluded.last_full_micros,
      consecutive_failures = excluded.consecutive_failures, next_attempt_micros = excluded.next_attempt_micros`).run(
      s.tableId, s.status, s.statusSinceMicros, s.owner, s.heartbeatMicros, s.lastMinorMicros ?? null, s.lastMajorMicros ?? null,
      s.lastFullMicros ?? null, s.consecutiveFailures, s.nextAttemptMicros ?? null));
  }

  listStates(): OptimizingTableState[] {
    return this.#c.cached('optimizing states', () => (this.#c.sql('SELECT * FROM optimizing_states ORDER BY table_id').all() as StateRow[]).map(toState));
  }

  /**
   * One write transaction (it takes the write lock first, so two processes queue rather than both read
   * "idle"): the table is taken when it has no state yet, is idle, or its owner's heartbeat
   * is older than the lease (the owner died). A live claim refuses everyone, its own owner
   * too: two schedulers in one process must not share a table either. A table that no
   * longer exists cannot be claimed.
   */
  tryClaim(tableId: number, owner: string, nowMicros: bigint, leaseMicros: bigint, deadOwner?: string): boolean {
    return this.#c.immediateNormal(() => {
      if (this.#c.sql('SELECT 1 FROM tables WHERE table_id = ?').get(tableId) === undefined) return false;
      const r = this.#c.sql('SELECT * FROM optimizing_states WHERE table_id = ?').get(tableId) as StateRow | undefined;
      const cur = r === undefined ? undefined : toState(r);
      if (cur !== undefined && cur.status !== 'idle' && nowMicros - cur.heartbeatMicros <= leaseMicros && cur.owner !== deadOwner) return false;
      this.saveState({
        tableId, status: 'planning', statusSinceMicros: nowMicros, owner, heartbeatMicros: nowMicros,
        lastMinorMicros: cur?.lastMinorMicros, lastMajorMicros: cur?.lastMajorMicros, lastFullMicros: cur?.lastFullMicros,
        consecutiveFailures: cur?.consecutiveFailures ?? 0, nextAttemptMicros: cur?.nextAttemptMicros,
      });
      return true;
    });
  }
}

function undefinedGroup(name: string): FloeError {
  return new FloeError(SqlState.undefinedObject, `optimizer group "${name}" does not exist`);
}
