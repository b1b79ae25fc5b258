import { optimizingSettings } from '../../lake/index.js';
import type { TableMetadata } from '../../lake/index.js';
import { backOffMs } from './back-off.js';
import { DEFAULT_PROCESS_DEADLINE_MS, errorText } from './optimizing-process.js';
import { silentLogger } from './optimizing-warehouse.js';
import type { OptimizingWarehouse, ServiceLogger } from './optimizing-warehouse.js';
import { systemClock } from './service-clock.js';
import type { ServiceClock } from './service-clock.js';

export interface HousekeepingOptions {
  readonly warehouse: OptimizingWarehouse;
  readonly clock?: ServiceClock;
  readonly logger?: ServiceLogger;
  /** How often each table's snapshots are expired (default 1 min). */
  readonly expireEveryMs?: number;
  /** How often each table's orphan files are removed (default 1 h). */
  readonly orphansEveryMs?: number;
  /**
   * Orphan files younger than this are kept (default 1 h; see ORPHAN_GRACE_MS). Must
   * exceed the longest optimize process, whose files are orphans until it commits.
   */
  readonly orphanGraceMs?: number;
  /** How often due work is looked for (default 10 s). */
  readonly checkEveryMs?: number;
  /** 0 ≤ x < 1, spreads first runs over the period so tables do not all go at once (default Math.random). */
  readonly random?: () => number;
}

/**
 * Why an hour is a safe grace for orphan removal. Files become catalog-referenced only by
 * a commit; until then they are "orphans" that must not be deleted:
 * - a transaction's staged files: removeOrphanFiles keeps everything written since the
 *   oldest open transaction began, whatever the grace (and a stale one is aborted first);
 * - an optimize process's output: it is not a transaction, so only the grace protects it;
 *   a process is aborted at its deadline (30 min) and checks its signal before
 *   committing, so no file older than the deadline can still be committed;
 * - files of a crashed writer or a killed optimize are garbage after any grace.
 * So the grace is the larger of one hour and twice the process deadline.
 */
export const ORPHAN_GRACE_MS = Math.max(3_600_000, 2 * DEFAULT_PROCESS_DEADLINE_MS);

/** The two housekeeping processes, as their log lines name them. */
type HousekeepingKind = 'expire-snapshots' | 'remove-orphan-files';

interface TableSchedule {
  nextExpireMicros: bigint;
  nextOrphansMicros: bigint;
  failures: number;
}

/**
 * Snapshot expiry and orphan cleanup on a schedule, per table, independent of optimizing,
 * and the release of log segments nothing reads any more (once a minute), so a table that
 * streams for a month keeps neither a month of snapshots nor of files nor of log.
 * Expiry keeps `snapshot.retain-last` snapshots and those younger than `snapshot.max-age`
 * (the lake also keeps what open transactions and refs need). A run killed at any point
 * loses nothing: expiry commits to the catalog before it deletes files, so a kill in
 * between leaves orphans, which the next orphan pass removes. A failure is logged and
 * backs that table off (as optimizing does); it never stops the others.
 */
export class Housekeeping {
  readonly #warehouse: OptimizingWarehouse;
  readonly #clock: ServiceClock;
  readonly #log: ServiceLogger;
  readonly #expireEveryMicros: bigint;
  readonly #orphansEveryMicros: bigint;
  readonly #graceMicros: bigint;
  readonly #checkEveryMs: number;
  readonly #random: () => number;
  readonly #tables = new Map<number, TableSchedule>();
  #nextReleaseMicros = 0n;
  #cancelTimer: (() => void) | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(opts: HousekeepingOptions) {
    this.#warehouse = opts.warehouse;
    this.#clock = opts.clock ?? systemClock;
    this.#log = opts.logger ?? silentLogger;
    this.#expireEveryMicros = BigInt(opts.expireEveryMs ?? 60_000) * 1000n;
    this.#orphansEveryMicros = BigInt(opts.orphansEveryMs ?? 3_600_000) * 1000n;
    this.#graceMicros = BigInt(opts.orphanGraceMs ?? ORPHAN_GRACE_MS) * 1000n;
    this.#checkEveryMs = opts.checkEveryMs ?? 10_000;
    this.#random = opts.random ?? Math.random;
  }

  start(): void {
    this.#schedule(0);
  }

  /** Stops scheduling and waits for a pass under way (each step of it is safe to cut short anyway). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancelTimer?.();
    await this.#running;
  }

  /** One pass: every table whose expiry or orphan removal is due gets it. */
  async runOnce(): Promise<void> {
    if (this.#running) return this.#running;
    this.#running = this.#pass().finally(() => { this.#running = undefined; });
    return this.#running;
  }

  async #pass(): Promise<void> {
    let tables: TableMetadata[];
    try {
      tables = this.#warehouse.listTables();
    } catch (e) {
      this.#log.warn({ err: errorText(e) }, 'housekeeping could not list tables');
      return;
    }
    const now = this.#clock.nowMicros();
    const live = new Set(tables.map((t) => t.id));
    for (const id of this.#tables.keys()) if (!live.has(id)) this.#tables.delete(id);
    for (const table of tables) {
      if (this.#stopped) return;
      let s = this.#tables.get(table.id);
      if (s === undefined) {
        // First sight: spread over the period, so a restart does not sweep every table at once.
        s = {
          nextExpireMicros: now + jitter(this.#expireEveryMicros, this.#random()),
          nextOrphansMicros: now + jitter(this.#orphansEveryMicros, this.#random()),
          failures: 0,
        };
        this.#tables.set(table.id, s);
      }
      const name = `${table.namespace}.${table.name}`;
      if (s.nextExpireMicros > now && s.nextOrphansMicros > now) continue;
      let kind: HousekeepingKind = 'expire-snapshots';
      let started = this.#clock.nowMicros();
      try {
        if (s.nextExpireMicros <= now) {
          const settings = optimizingSettings(table);
          const r = await this.#warehouse.expireSnapshots(table, {
            olderThanMicros: this.#clock.nowMicros() - BigInt(settings.snapshotMaxAgeMs) * 1000n,
            retainLast: settings.snapshotRetainLast,
          });
          this.#finished(kind, name, started, { expired_snapshots: r.expiredSnapshots, deleted_files: r.deletedFiles });
          s.nextExpireMicros = this.#clock.nowMicros() + this.#expireEveryMicros;
        }
        if (s.nextOrphansMicros <= now) {
          kind = 'remove-orphan-files';
          started = this.#clock.nowMicros();
          const r = await this.#warehouse.removeOrphanFiles(table, { olderThanMicros: this.#clock.nowMicros() - this.#graceMicros });
          this.#finished(kind, name, started, { deleted_files: r.deletedFiles.length });
          s.nextOrphansMicros = this.#clock.nowMicros() + this.#orphansEveryMicros;
        }
        s.failures = 0;
      } catch (e) {
        s.failures++;
        const retry = this.#clock.nowMicros() + BigInt(backOffMs(s.failures)) * 1000n;
        if (s.nextExpireMicros <= now) s.nextExpireMicros = retry;
        if (s.nextOrphansMicros <= now) s.nextOrphansMicros = retry;
        this.#log.warn({
          kind, table: name, outcome: 'failed', duration_ms: this.#msSince(started), err: errorText(e), failures: s.failures,
        }, 'housekeeping failed; backing off');
      }
    }
    if (!this.#stopped && this.#nextReleaseMicros <= now) await this.#releaseLogSegments();
  }

  /**
   * Deletes this process's log segments that no file row points into any more (expiry and
   * change compaction free them). The log store's tiering does it too when it runs; without
   * it, which is `floe serve`'s default, this is what keeps a month of streaming from
   * keeping a month of log.
   */
  async #releaseLogSegments(): Promise<void> {
    this.#nextReleaseMicros = this.#clock.nowMicros() + this.#expireEveryMicros;
    try {
      const released = await this.#warehouse.releaseLogSegments();
      if (released > 0) this.#log.info({ segments: released }, 'released log segments');
    } catch (e) {
      this.#log.warn({ err: errorText(e) }, 'could not release log segments');
    }
  }

  /**
   * One housekeeping process's end line. It runs every minute on every table, so a run that
   * removed nothing is a debug line; one that removed something is info, as an operator
   * wants to know when files went away.
   */
  #finished(kind: HousekeepingKind, table: string, started: bigint, removed: { expired_snapshots?: number; deleted_files: number }): void {
    const line = { kind, table, outcome: 'success', duration_ms: this.#msSince(started), ...removed };
    if ((removed.expired_snapshots ?? 0) > 0 || removed.deleted_files > 0) this.#log.info(line, 'housekeeping finished');
    else this.#log.debug(line, 'housekeeping finished');
  }

  #msSince(started: bigint): number {
    return Math.round(Number(this.#clock.nowMicros() - started) / 1000);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#cancelTimer = this.#clock.setTimer(() => {
      void this.runOnce().finally(() => this.#schedule(this.#checkEveryMs));
    }, ms);
  }
}

function jitter(period: bigint, r: number): bigint {
  return BigInt(Math.floor(Number(period) * Math.min(Math.max(r, 0), 0.999)));
}
