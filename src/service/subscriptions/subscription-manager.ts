import { PROCESS_OWNER, isDeadLocalOwner } from '../../common/process-owner.js';
import type { Warehouse } from '../../lake/index.js';
import type { ServiceLogger } from '../optimizing/optimizing-warehouse.js';
import type { SubscriptionWorkers } from './subscription-workers.js';
import { SubscriptionWorker } from './subscription-worker.js';

/** How often the catalog is read for subscriptions created, enabled, disabled or dropped elsewhere. */
const POLL_MS = 1000;
/** How long a runner stopped for a statement stays stopped at most, if the statement failed and its subscription stays. */
const HOLD_MS = 30_000;
/**
 * A runner lease not heartbeated for this long is another process's to take: its holder
 * died or hangs. Heartbeats come every poll, so this is many missed polls.
 */
export const RUNNER_LEASE_MICROS = 15_000_000n;

/**
 * The subscriptions' runners inside `floe serve`: one SubscriptionWorker per enabled
 * subscription that has a slot, started and stopped as the catalog says. Of several
 * gateways on one warehouse, one runs each subscription: the one holding its runner lease in
 * the catalog, heartbeated every poll. When that gateway stops, it gives the lease up and
 * another takes it at its next poll; when it dies, another takes it once the lease runs out
 * (RUNNER_LEASE_MICROS), and resumes from the position committed with the data. A runner
 * whose heartbeat finds the lease taken (its process hung past the lease) stops.
 */
export class SubscriptionManager implements SubscriptionWorkers {
  readonly #warehouse: Warehouse;
  readonly #logger: ServiceLogger;
  readonly #workers = new Map<number, SubscriptionWorker>();
  /** Runners stopped for a statement (DROP, DISABLE) and not restarted meanwhile, until when (Date.now()). */
  readonly #held = new Map<number, number>();
  /** Subscriptions whose runner is stopping: none starts again until its lease is given up. */
  readonly #stoppingIds = new Set<number>();
  /** This manager's name in runner leases. */
  readonly owner: string;
  readonly #leaseMicros: bigint;
  #timer: NodeJS.Timeout | undefined;
  #stopping = false;

  constructor(opts: { readonly warehouse: Warehouse; readonly logger: ServiceLogger; readonly leaseMicros?: bigint }) {
    this.#warehouse = opts.warehouse;
    this.#logger = opts.logger;
    this.#leaseMicros = opts.leaseMicros ?? RUNNER_LEASE_MICROS;
    this.owner = PROCESS_OWNER;
  }

  start(): void {
    this.reconcile();
    this.#timer = setInterval(() => this.reconcile(), POLL_MS);
    this.#timer.unref();
  }

  reconcile(): void {
    if (this.#stopping) return;
    let subs;
    try {
      subs = this.#warehouse.listSubscriptions();
    } catch (e) {
      this.#logger.warn({ err: e }, 'could not read subscriptions');
      return;
    }
    const wanted = new Set(subs.filter((s) => s.enabled && s.slotName !== undefined).map((s) => s.id));
    for (const [id, w] of this.#workers) {
      if (!wanted.has(id) || !w.running) {
        void this.#stopWorker(id, w);
      } else if (!this.#claim(id)) {
        this.#logger.warn({ subscription: id, owner: this.owner }, 'subscription runner lost its lease; stopping');
        void this.#stopWorker(id, w);
      }
    }
    const now = Date.now();
    for (const [id, until] of this.#held) if (until <= now || !wanted.has(id)) this.#held.delete(id);
    for (const id of wanted) {
      if (this.#workers.has(id) || this.#held.has(id) || this.#stoppingIds.has(id) || !this.#claim(id)) continue;
      const w = new SubscriptionWorker(this.#warehouse, id, this.#logger);
      this.#workers.set(id, w);
      w.start();
    }
  }

  /**
   * Takes or heartbeats the lease; a catalog that cannot be written counts as not held. A
   * holder on this host whose process is gone (a gateway SIGKILLed and started again) need
   * not be waited out.
   */
  #claim(id: number): boolean {
    try {
      const holder = this.#workers.has(id) ? undefined : this.#warehouse.listSubscriptionRunners().find((r) => r.subscriptionId === id);
      const dead = holder !== undefined && holder.owner !== this.owner && isDeadLocalOwner(holder.owner);
      return this.#warehouse.claimSubscriptionRunner(id, this.owner, dead ? -1n : this.#leaseMicros);
    } catch (e) {
      this.#logger.warn({ err: e, subscription: id }, 'could not take or renew a subscription runner lease');
      return false;
    }
  }

  /** Stops a runner, then gives its lease up so that another gateway need not wait for it to run out. */
  #stopWorker(id: number, w: SubscriptionWorker): Promise<void> {
    this.#workers.delete(id);
    this.#stoppingIds.add(id);
    return w.stop().finally(() => {
      try { this.#warehouse.releaseSubscriptionRunner(id, this.owner); } catch { /* it runs out by itself */ }
      this.#stoppingIds.delete(id);
    });
  }

  async stopWorker(subscriptionId: number): Promise<void> {
    // DROP SUBSCRIPTION drops the slot next, waiting until nobody streams it: no poll may start the runner again meanwhile.
    this.#held.set(subscriptionId, Date.now() + HOLD_MS);
    const w = this.#workers.get(subscriptionId);
    if (w !== undefined) await this.#stopWorker(subscriptionId, w);
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await Promise.all([...this.#workers].map(([id, w]) => this.#stopWorker(id, w)));
  }
}

