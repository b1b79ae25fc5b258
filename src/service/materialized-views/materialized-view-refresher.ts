import { materializedViewLagMicros, type Warehouse } from '../../lake/index.js';
import { freshnessOf } from '../../sql/index.js';
import { backOffMs } from '../optimizing/back-off.js';
import type { ServiceLogger } from '../optimizing/optimizing-warehouse.js';
import { systemClock, type ServiceClock } from '../optimizing/service-clock.js';
import { costsFromLastRefresh, dueRefreshes, movingAverage, type ViewRefreshState } from './refresh-decision.js';

/** Runs one refresh (a session's `CALL refresh_materialized_view`, which src/cli provides). */
export type RefreshRunner = (view: { readonly namespace: string; readonly name: string }, mode: 'auto' | 'full') => Promise<{ readonly mode: string; readonly durationMs: number }>;

/**
 * What the refresher remembers of a view between ticks, from its first refresh of it on. Its
 * costs begin as the refresh the catalog recorded last (the population at CREATE, or the last
 * refresh before a restart), so a full refresh is not paid again only to measure what the
 * view's creation measured already.
 */
interface ViewMemory {
  incrementalMs: number | undefined;
  fullMs: number | undefined;
  failures: number;
  notBeforeMicros: bigint | undefined;
}

const TICK_MS = 250;

/**
 * Keeps each materialized view with a declared `freshness` within it: every tick it measures
 * the views' lag, refreshes the due ones one at a time (refresh-decision.ts picks them and the
 * mode), and backs a failing view off without holding the others up. A refresh is one
 * commit that moves the view's positions only from the generation it read, so a refresher
 * killed at any point leaves each view as it was, and two refreshers of one warehouse never
 * apply a change twice.
 */
export class MaterializedViewRefresher {
  readonly #warehouse: Warehouse;
  readonly #run: RefreshRunner;
  readonly #clock: ServiceClock;
  readonly #logger: ServiceLogger | undefined;
  readonly #memory = new Map<number, ViewMemory>();
  #cancelTimer: (() => void) | undefined;
  #running: Promise<void> | undefined;
  #stopped = true;

  constructor(opts: { warehouse: Warehouse; run: RefreshRunner; clock?: ServiceClock; logger?: ServiceLogger }) {
    this.#warehouse = opts.warehouse;
    this.#run = opts.run;
    this.#clock = opts.clock ?? systemClock;
    this.#logger = opts.logger;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancelTimer?.();
    await this.#running;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#cancelTimer = this.#clock.setTimer(() => {
      this.#running = this.tick().finally(() => { this.#running = undefined; this.#schedule(); });
    }, TICK_MS);
  }

  /** The views' states as the decision reads them. */
  states(): ViewRefreshState[] {
    const w = this.#warehouse;
    // Most warehouses have none: then a tick reads nothing else (the ids are kept through commits).
    if (w.materializedViewIds().length === 0) return [];
    const kept = w.listMaterializedViews().flatMap((mv) => {
      const freshnessMs = freshnessOf(mv.options);
      return freshnessMs === undefined ? [] : [{ mv, freshnessMs }];
    });
    if (kept.length === 0) return [];
    const now = this.#clock.nowMicros();
    const heads = w.branchHeads('main');
    return kept.map(({ mv, freshnessMs }) => {
      const lag = materializedViewLagMicros(w, mv, now, heads);
      // Not remembered before this refresher refreshes the view: a view still being created has no refresh recorded yet.
      const m = this.#memory.get(mv.tableId);
      const costs = m ?? costsFromLastRefresh(mv.lastRefresh);
      return {
        tableId: mv.tableId, freshnessMs, lagMs: lag === undefined ? undefined : Number(lag) / 1000, incremental: mv.fullRefreshReason === undefined,
        incrementalMs: costs.incrementalMs, fullMs: costs.fullMs, notBeforeMicros: m?.notBeforeMicros,
      };
    });
  }

  /** One round: refreshes the views due now. */
  async tick(): Promise<void> {
    for (const due of dueRefreshes(this.states(), this.#clock.nowMicros())) {
      if (this.#stopped) return;
      const table = this.#warehouse.getTableById(due.tableId);
      if (table === undefined) continue;
      let m = this.#memory.get(due.tableId);
      if (m === undefined) {
        m = { ...costsFromLastRefresh(this.#warehouse.getMaterializedView(due.tableId)?.lastRefresh), failures: 0, notBeforeMicros: undefined };
        this.#memory.set(due.tableId, m);
      }
      try {
        const done = await this.#run({ namespace: table.namespace, name: table.name }, due.mode);
        if (done.mode === 'full') {
          m.fullMs = movingAverage(m.fullMs, done.durationMs);
          // Forgetting the incremental cost slowly lets an incremental refresh be tried again.
          if (m.incrementalMs !== undefined) m.incrementalMs *= 0.9;
        } else if (done.mode === 'incremental') m.incrementalMs = movingAverage(m.incrementalMs, done.durationMs);
        m.failures = 0;
        m.notBeforeMicros = undefined;
      } catch (e) {
        m.failures++;
        m.notBeforeMicros = this.#clock.nowMicros() + BigInt(backOffMs(m.failures)) * 1000n;
        this.#logger?.warn({ err: e, view: `${table.namespace}.${table.name}`, failures: m.failures }, 'materialized view refresh failed');
      }
    }
  }
}
