import { hostname } from 'node:os';
import type { OptimizerRecord } from '../../lake/index.js';
import { errorText } from './optimizing-process.js';
import type { OptimizingWarehouse, ServiceLogger } from './optimizing-warehouse.js';
import type { ServiceClock } from './service-clock.js';

/** An optimizer not heartbeating for this long is deleted by the next one that registers. */
const FORGET_LOST_AFTER_MICROS = 3_600_000_000n;

/** Who this process is, in claims and in the optimizer list: host and pid, unique across machines sharing a catalog. */
export function processOwner(): string {
  return `${hostname()}:${process.pid}`;
}

/**
 * A scheduler's entry in the catalog's optimizer list (floe_optimizers): written at start,
 * heartbeated while it runs, deleted at stop. A process killed without stopping stays
 * listed until its heartbeat is older than the lease (then it reads as lost) and is
 * forgotten an hour later. A failed heartbeat is logged and tried again at the next beat;
 * a row deleted meanwhile is written again.
 */
export class OptimizerRegistration {
  readonly #warehouse: Pick<OptimizingWarehouse, 'registerOptimizer' | 'heartbeatOptimizer' | 'dropOptimizer'>;
  readonly #clock: ServiceClock;
  readonly #log: ServiceLogger;
  readonly #heartbeatMs: number;
  #record: OptimizerRecord;
  #cancel: (() => void) | undefined;
  #stopped = false;

  constructor(opts: {
    warehouse: Pick<OptimizingWarehouse, 'registerOptimizer' | 'heartbeatOptimizer' | 'dropOptimizer'>;
    clock: ServiceClock; log: ServiceLogger; heartbeatMs: number;
    id: string; groups: readonly string[] | undefined; threads: number;
  }) {
    this.#warehouse = opts.warehouse;
    this.#clock = opts.clock;
    this.#log = opts.log;
    this.#heartbeatMs = opts.heartbeatMs;
    const now = opts.clock.nowMicros();
    this.#record = {
      id: opts.id, host: hostname(), pid: process.pid, groups: opts.groups, threads: opts.threads, startedMicros: now, heartbeatMicros: now,
    };
  }

  start(): void {
    this.#register();
    this.#schedule();
  }

  stop(): void {
    this.#stopped = true;
    this.#cancel?.();
    try {
      this.#warehouse.dropOptimizer(this.#record.id);
    } catch (e) {
      this.#log.warn({ err: errorText(e) }, 'could not remove this optimizer from the catalog');
    }
  }

  #register(): void {
    const now = this.#clock.nowMicros();
    this.#record = { ...this.#record, heartbeatMicros: now };
    try {
      this.#warehouse.registerOptimizer(this.#record, now - FORGET_LOST_AFTER_MICROS);
    } catch (e) {
      this.#log.warn({ err: errorText(e) }, 'could not register this optimizer in the catalog');
    }
  }

  #schedule(): void {
    this.#cancel = this.#clock.setTimer(() => {
      if (this.#stopped) return;
      try {
        if (!this.#warehouse.heartbeatOptimizer(this.#record.id, this.#clock.nowMicros())) this.#register();
      } catch (e) {
        this.#log.warn({ err: errorText(e) }, 'optimizer heartbeat failed');
      }
      this.#schedule();
    }, this.#heartbeatMs);
  }
}
