import { optimizingSettings } from '../../lake/index.js';
import type { OptimizeKind, OptimizerGroup, OptimizingRun, SchedulingPolicy, TableMetadata } from '../../lake/index.js';
import { OccupationTracker, OCCUPATION_WINDOW_MICROS } from './occupation-tracker.js';
import { OptimizerGroups } from './optimizer-groups.js';
import { DEFAULT_LEASE_MICROS, OptimizingClaim } from './optimizing-claim.js';
import { DEFAULT_PROCESS_DEADLINE_MS, runOptimizingProcess } from './optimizing-process.js';
import type { OptimizeReport, OptimizerGroupRow, OptimizerRow, OptimizingService, OptimizingTableRow } from './optimizing-service.js';
import { processOwner } from './optimizer-registration.js';
import { optimizerRows } from './optimizer-rows.js';
import { optimizingTableRow } from './optimizing-table-row.js';
import type { OptimizingWarehouse, ServiceLogger } from './optimizing-warehouse.js';
import { systemClock } from './service-clock.js';
import type { ServiceClock } from './service-clock.js';

export interface InlineOptimizeOptions {
  readonly warehouse: OptimizingWarehouse;
  readonly clock: ServiceClock;
  readonly owner: string;
  readonly leaseMicros: bigint;
  readonly deadlineMs: number;
  readonly logger?: ServiceLogger;
  /** The optimizer group it stands in for, for the log (a scheduler's group without threads). */
  readonly group?: string;
}

/**
 * CALL optimize on the calling thread: claims the table when it can (so floe_optimizing
 * shows the status and last times), runs and records the process, and throws what it
 * failed with. When another process holds the table it runs anyway, without touching
 * the saved status: optimizer commits conflict only per node, so the lake keeps both safe.
 */
export async function optimizeInline(o: InlineOptimizeOptions, table: TableMetadata, kind: OptimizeKind): Promise<OptimizeReport> {
  const claim = OptimizingClaim.tryTake(o.warehouse, o.clock, table.id, o.owner, o.leaseMicros);
  let outcome;
  try {
    outcome = await runOptimizingProcess({
      warehouse: o.warehouse, clock: o.clock, table, kind, trigger: 'call', deadlineMs: o.deadlineMs,
      ...(o.logger === undefined ? {} : { logger: o.logger }),
      ...(o.group === undefined ? {} : { group: o.group }),
      onStatus: (s) => claim?.setStatus(s),
    });
  } catch (e) {
    claim?.release({ kind, succeeded: false });
    throw e;
  }
  claim?.release({ kind, succeeded: outcome.error === undefined });
  if (outcome.error !== undefined) throw outcome.error;
  return outcome.report;
}

/**
 * The OptimizingService of a session created without a scheduler (tests, embedded use):
 * no background work, but CALL optimize runs inline and is recorded, and the views work.
 */
export class InlineOptimizingService implements OptimizingService {
  readonly #o: InlineOptimizeOptions;
  readonly #groups: OptimizerGroups;

  constructor(warehouse: OptimizingWarehouse, opts: { clock?: ServiceClock; defaultThreads?: number; owner?: string; logger?: ServiceLogger } = {}) {
    this.#o = {
      warehouse, clock: opts.clock ?? systemClock, owner: opts.owner ?? processOwner(),
      ...(opts.logger === undefined ? {} : { logger: opts.logger }),
      leaseMicros: DEFAULT_LEASE_MICROS, deadlineMs: DEFAULT_PROCESS_DEADLINE_MS,
    };
    this.#groups = new OptimizerGroups(warehouse, opts.defaultThreads ?? 0);
  }

  optimizeNow(table: TableMetadata, kind: OptimizeKind = 'minor'): Promise<OptimizeReport> {
    return optimizeInline(this.#o, table, kind);
  }

  optimizers(): OptimizerRow[] {
    return optimizerRows(this.#o.warehouse, this.#o.clock.nowMicros(), this.#o.leaseMicros);
  }

  tables(): OptimizingTableRow[] {
    const w = this.#o.warehouse;
    const now = this.#o.clock.nowMicros();
    const states = new Map(w.listOptimizingStates().map((s) => [s.tableId, s]));
    const threads = new Map(this.#groups.list().map((g) => [g.name, g.threads]));
    // Occupation from the history: the processes of the last hour, whoever ran them.
    const occupation = new OccupationTracker();
    const from = now - OCCUPATION_WINDOW_MICROS;
    for (const r of w.listOptimizingRuns({ limit: 10_000 })) {
      if (r.startedMicros < from) break;
      occupation.add(r.tableId, r.startedMicros, r.startedMicros + BigInt(Math.round(r.durationMs * 1000)));
    }
    return w.listTables().flatMap((table) => {
      // A table dropped while the view is read has no metrics: it has no row either.
      let metrics;
      try { metrics = w.optimizingMetrics(table); } catch { return []; }
      return [optimizingTableRow({
        table,
        metrics,
        state: states.get(table.id),
        // A group with no threads here (the inline default) measures against one thread.
        occupation: occupation.occupation(table.id, Math.max(1, threads.get(optimizingSettings(table).group) ?? 1), now),
        nowMicros: now,
        leaseMicros: this.#o.leaseMicros,
      })];
    });
  }

  history(): OptimizingRun[] {
    return this.#o.warehouse.listOptimizingRuns();
  }

  groups(): OptimizerGroupRow[] {
    const tables = this.#o.warehouse.listTables().map((t) => optimizingSettings(t).group);
    return this.#groups.list().map((g) => ({ ...g, tasksRunning: 0, tasksQueued: 0, tables: tables.filter((n) => n === g.name).length }));
  }

  createGroup(group: OptimizerGroup, opts?: { ifNotExists?: boolean }): void { this.#groups.create(group, opts); }
  alterGroup(name: string, change: { threads?: number; schedulingPolicy?: SchedulingPolicy }): void { this.#groups.alter(name, change); }
  dropGroup(name: string, opts?: { ifExists?: boolean }): void { this.#groups.drop(name, opts); }
}
