import type { ChangeStoreWriter, IcebergExportResult, Warehouse } from '../../lake/index.js';
import type { ServiceClock } from '../optimizing/service-clock.js';
import { systemClock } from '../optimizing/service-clock.js';
import type { ServiceLogger } from '../optimizing/optimizing-warehouse.js';
import { silentLogger } from '../optimizing/optimizing-warehouse.js';

/** The slice of Warehouse the service uses (tests fake just this). */
export type IcebergMetadataWarehouse = Pick<Warehouse, 'listTables' | 'branchHeads' | 'exportIcebergMetadata'>;

export interface IcebergMetadataOptions {
  readonly clock?: ServiceClock;
  readonly logger?: ServiceLogger;
  /** How often the heads of main are looked at (ms); default 1000. */
  readonly pollMs?: number;
  /** Where a keyed table's change store is read and written as files (iceberg-export-pool.ts); default: this thread. */
  readonly writeChangeStore?: ChangeStoreWriter;
}

/** What one round did. */
export interface IcebergMetadataRound {
  readonly written: number;
  readonly skipped: number;
  readonly failed: number;
}

/**
 * Keeps each table's Iceberg metadata (src/lake/iceberg) up to date with its commits,
 * outside every commit: a commit is never slowed or failed by it. Each poll reads the head
 * of main of every table in one catalog read and exports the tables whose head moved since
 * it last looked. A head that moved only in a keyed table's change store (its plain writes)
 * is exported once the table's `metadata.iceberg.change-interval` has passed since the last
 * version: each export rewrites the pending changes as files, and a stream would otherwise
 * pay that every poll. A failed export (storage down) is retried at the next poll; an export
 * that stopped half way left only complete, unreferenced files, which the next one removes.
 */
export class IcebergMetadataService {
  readonly #warehouse: IcebergMetadataWarehouse;
  readonly #clock: ServiceClock;
  readonly #logger: ServiceLogger;
  readonly #pollMs: number;
  readonly #writeChangeStore: ChangeStoreWriter | undefined;
  /** The head each table was last exported (or found unchanged or inexpressible) at. */
  readonly #lookedAt = new Map<number, bigint>();
  /** Tables whose change-only export waits (ms, the clock's time). */
  readonly #deferredUntil = new Map<number, number>();
  #cancel: (() => void) | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = true;

  constructor(warehouse: IcebergMetadataWarehouse, opts: IcebergMetadataOptions = {}) {
    this.#warehouse = warehouse;
    this.#clock = opts.clock ?? systemClock;
    this.#logger = opts.logger ?? silentLogger;
    this.#pollMs = opts.pollMs ?? 1000;
    this.#writeChangeStore = opts.writeChangeStore;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule();
  }

  /** Stops polling and waits for a round in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancel?.();
    this.#cancel = undefined;
    await this.#running;
  }

  /** One round now: every table whose head of main moved since the last look. */
  async runOnce(): Promise<IcebergMetadataRound> {
    const heads = this.#warehouse.branchHeads('main');
    let written = 0;
    let skipped = 0;
    let failed = 0;
    for (const table of this.#warehouse.listTables()) {
      const head = heads.get(table.id);
      if (head === undefined || this.#lookedAt.get(table.id) === head) continue;
      const nowMs = Number(this.#clock.nowMicros() / 1000n);
      if (nowMs < (this.#deferredUntil.get(table.id) ?? 0)) continue;
      let r: IcebergExportResult;
      try {
        r = await this.#warehouse.exportIcebergMetadata(table, {
          deferChanges: true, ...(this.#writeChangeStore === undefined ? {} : { writeChangeStore: this.#writeChangeStore }),
        });
      } catch (err) {
        failed++;
        this.#logger.warn({ err, table: `${table.namespace}.${table.name}` }, 'writing Iceberg metadata failed');
        continue;
      }
      if (r.kind === 'deferred') {
        // Not looked at: the head is exported once the wait is over, moved or not.
        this.#deferredUntil.set(table.id, nowMs + Math.max(0, r.untilMs - Date.now()));
        continue;
      }
      this.#deferredUntil.delete(table.id);
      this.#lookedAt.set(table.id, head);
      if (r.kind === 'written') {
        written++;
        this.#logger.debug({ table: `${table.namespace}.${table.name}`, version: r.version }, 'wrote Iceberg metadata');
      } else if (r.kind === 'skipped') {
        skipped++;
        this.#logger.debug({ table: `${table.namespace}.${table.name}`, reason: r.reason }, 'Iceberg metadata not written');
      }
    }
    return { written, skipped, failed };
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#cancel = this.#clock.setTimer(() => {
      this.#running = this.runOnce().catch((err: unknown) => this.#logger.warn({ err }, 'Iceberg metadata round failed'))
        .finally(() => { this.#running = undefined; this.#schedule(); });
    }, this.#pollMs);
  }
}
