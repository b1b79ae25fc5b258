import type { TableMetadata, TierOptions, TierResult, Warehouse } from '../../lake/index.js';
import { logSettings } from '../../lake/index.js';
import { DEFAULT_LEASE_MICROS, isAbandoned } from '../optimizing/optimizing-claim.js';
import type { ServiceClock } from '../optimizing/service-clock.js';
import { systemClock } from '../optimizing/service-clock.js';
import type { ServiceLogger } from '../optimizing/optimizing-warehouse.js';
import { silentLogger } from '../optimizing/optimizing-warehouse.js';

/** The slice of Warehouse the tiering service uses (tests fake just this). */
export type LogTieringWarehouse = Pick<Warehouse, 'listTables' | 'logBacklog' | 'tierLogFiles' | 'releaseLogSegments' | 'listOptimizingStates'>;

export interface LogTieringOptions {
  readonly clock?: ServiceClock;
  readonly logger?: ServiceLogger;
  /** How often tables are looked at (ms); default 250. A table is tiered when due by its own properties. */
  readonly pollMs?: number;
  /** How long an optimizer's claim on a table holds without a heartbeat (the optimizing service's lease). */
  readonly optimizerLeaseMicros?: bigint;
  /** Where a group's rewrite runs (`floe serve` passes its tiering thread, tiering-pool.ts); default: this thread. */
  readonly rewriteChangeGroup?: TierOptions['runTask'];
  /** How often a round also releases log segments (ms); default 30 s. */
  readonly releaseEveryMs?: number;
}

/**
 * Default gap between segment releases. A segment goes only once nothing has pointed into it
 * for the log store's grace period (10 minutes by default), so looking every round (4 a
 * second) found nothing new while listing the log directory and querying the catalog once per
 * replayed writer on the main thread, between statements.
 */
export const DEFAULT_RELEASE_EVERY_MS = 30_000;

/** What one round did. */
export interface TieringRound {
  readonly tablesTiered: number;
  readonly filesIn: number;
  readonly filesOut: number;
  readonly segmentsReleased: number;
}

/**
 * The log store's background tiering (docs/design-notes.md, "Tiering"): every poll, each
 * keyed table whose oldest untiered log file is older than its `log.tier-interval`, or
 * whose log files pass its `log.tier-size`, is tiered, one table at a time; then, every
 * `releaseEveryMs`, log segments nothing points into any more are released. The groups'
 * rewrites (decode the log files, encode a Parquet file per node) run where
 * `rewriteChangeGroup` says, the catalog's swaps on the calling thread. Killing the
 * process at any point is safe: a tiered file is durable before the catalog swaps it in.
 * A table an optimizer holds (its claim in the catalog, from any process) waits for the
 * next round: a fold names the log files it read as still needed, so a swap of them in
 * the meantime makes it start over, and a stream of commits could make it fail each time.
 */
export class LogTieringService {
  readonly #warehouse: LogTieringWarehouse;
  readonly #clock: ServiceClock;
  readonly #logger: ServiceLogger;
  readonly #pollMs: number;
  readonly #optimizerLeaseMicros: bigint;
  readonly #tierOptions: TierOptions;
  readonly #releaseEveryMicros: bigint;
  /** When a round next releases log segments (0: the first round does). */
  #nextReleaseMicros = 0n;
  #cancel: (() => void) | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = true;
  /** Set by stop(): a round in progress ends after its current table. */
  #stopping = false;

  constructor(warehouse: LogTieringWarehouse, opts: LogTieringOptions = {}) {
    this.#warehouse = warehouse;
    this.#clock = opts.clock ?? systemClock;
    this.#logger = opts.logger ?? silentLogger;
    this.#pollMs = opts.pollMs ?? 250;
    this.#optimizerLeaseMicros = opts.optimizerLeaseMicros ?? DEFAULT_LEASE_MICROS;
    this.#tierOptions = opts.rewriteChangeGroup === undefined ? {} : { runTask: opts.rewriteChangeGroup };
    this.#releaseEveryMicros = BigInt(Math.round((opts.releaseEveryMs ?? DEFAULT_RELEASE_EVERY_MS) * 1000));
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#stopping = false;
    this.#schedule();
  }

  /** Stops polling and waits for a round in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopping = true;
    this.#cancel?.();
    this.#cancel = undefined;
    await this.#running;
  }

  /** One round now: every due table (or every table with log files, when `force`) that no optimizer holds; a forced round also releases segments. */
  async runOnce(force = false): Promise<TieringRound> {
    const nowMicros = this.#clock.nowMicros();
    let tablesTiered = 0;
    let filesIn = 0;
    let filesOut = 0;
    const optimizing = new Set(this.#warehouse.listOptimizingStates()
      .filter((s) => s.status !== 'idle' && !isAbandoned(s, nowMicros, this.#optimizerLeaseMicros)).map((s) => s.tableId));
    for (const table of this.#warehouse.listTables()) {
      if (this.#stopping) break;
      if (table.primaryKey.length === 0 || optimizing.has(table.id) || !isDue(this.#warehouse, table, nowMicros, force)) continue;
      let r: TierResult;
      try {
        r = await this.#warehouse.tierLogFiles(table, this.#tierOptions);
      } catch (err) {
        // A dropped table, a storage error: the next round tries again; nothing was swapped.
        this.#logger.warn({ err, table: `${table.namespace}.${table.name}` }, 'tiering failed');
        continue;
      }
      tablesTiered++;
      filesIn += r.filesIn;
      filesOut += r.filesOut;
      this.#logger.debug({ table: `${table.namespace}.${table.name}`, ...r }, 'tiered log files');
    }
    let segmentsReleased = 0;
    if (!force && nowMicros < this.#nextReleaseMicros) return { tablesTiered, filesIn, filesOut, segmentsReleased };
    this.#nextReleaseMicros = nowMicros + this.#releaseEveryMicros;
    try {
      segmentsReleased = await this.#warehouse.releaseLogSegments();
      if (segmentsReleased > 0) this.#logger.debug({ segmentsReleased }, 'released log segments');
    } catch (err) {
      this.#logger.warn({ err }, 'releasing log segments failed');
    }
    return { tablesTiered, filesIn, filesOut, segmentsReleased };
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#cancel = this.#clock.setTimer(() => {
      this.#running = this.runOnce().catch((err: unknown) => this.#logger.warn({ err }, 'tiering round failed'))
        .finally(() => { this.#running = undefined; this.#schedule(); });
    }, this.#pollMs);
  }
}

function isDue(warehouse: LogTieringWarehouse, table: TableMetadata, nowMicros: bigint, force: boolean): boolean {
  const backlog = warehouse.logBacklog(table);
  if (backlog.files === 0) return false;
  if (force) return true;
  const { tierIntervalMs, tierSize } = logSettings(table);
  if (backlog.bytes >= tierSize) return true;
  return backlog.oldestMicros !== undefined && nowMicros - backlog.oldestMicros >= BigInt(tierIntervalMs) * 1000n;
}
