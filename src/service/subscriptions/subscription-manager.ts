import type { Warehouse } from '../../lake/index.js';
import type { ServiceLogger } from '../optimizing/optimizing-warehouse.js';
import type { SubscriptionWorkers } from './subscription-workers.js';
import { SubscriptionWorker } from './subscription-worker.js';

/** How often the catalog is read for subscriptions created, enabled, disabled or dropped elsewhere. */
const POLL_MS = 1000;
/** How long a runner stopped for a statement stays stopped at most, if the statement failed and its subscription stays. */
const HOLD_MS = 30_000;

/**
 * The subscriptions' runners inside `floe serve`: one SubscriptionWorker per enabled
 * subscription that has a slot, started and stopped as the catalog says. Two servers on one
 * warehouse cannot both stream a subscription: its slot takes one connection at a time, and
 * the other runner backs off until it is free.
 */
export class SubscriptionManager implements SubscriptionWorkers {
  readonly #warehouse: Warehouse;
  readonly #logger: ServiceLogger;
  readonly #workers = new Map<number, SubscriptionWorker>();
  /** Runners stopped for a statement (DROP, DISABLE) and not restarted meanwhile, until when (Date.now()). */
  readonly #held = new Map<number, number>();
  #timer: NodeJS.Timeout | undefined;
  #stopping = false;

  constructor(opts: { readonly warehouse: Warehouse; readonly logger: ServiceLogger }) {
    this.#warehouse = opts.warehouse;
    this.#logger = opts.logger;
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
        this.#workers.delete(id);
        void w.stop();
      }
    }
    const now = Date.now();
    for (const [id, until] of this.#held) if (until <= now || !wanted.has(id)) this.#held.delete(id);
    for (const id of wanted) {
      if (this.#workers.has(id) || this.#held.has(id)) continue;
      const w = new SubscriptionWorker(this.#warehouse, id, this.#logger);
      this.#workers.set(id, w);
      w.start();
    }
  }

  async stopWorker(subscriptionId: number): Promise<void> {
    // DROP SUBSCRIPTION drops the slot next, waiting until nobody streams it: no poll may start the runner again meanwhile.
    this.#held.set(subscriptionId, Date.now() + HOLD_MS);
    const w = this.#workers.get(subscriptionId);
    this.#workers.delete(subscriptionId);
    await w?.stop();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    const all = [...this.#workers.values()];
    this.#workers.clear();
    await Promise.all(all.map((w) => w.stop()));
  }
}
