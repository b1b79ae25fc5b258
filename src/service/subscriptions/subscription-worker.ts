import { cancellableSleep } from '../../common/cancellable-sleep.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SubscriptionMetadata, Warehouse } from '../../lake/index.js';
import type { ServiceLogger } from '../optimizing/optimizing-warehouse.js';
import { copyTables } from './initial-copy.js';
import { ReplicationStream } from './replication-stream.js';
import { closeSource, connectSource } from './source-connection.js';
import { StreamApply } from './stream-apply.js';

/** Reconnect delays: 500 ms doubling to 30 s. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

/**
 * One subscription's runner: copies tables not yet synchronized, then streams the slot from
 * the stored position and applies whole source transactions, several to a Floe commit, each
 * commit carrying the position it reaches. It reconnects with back-off after any failure
 * (the error is kept in the catalog for floe_subscriptions), and restarts when an ALTER
 * moves the subscription's generation.
 */
export class SubscriptionWorker {
  readonly subscriptionId: number;
  readonly #warehouse: Warehouse;
  readonly #logger: ServiceLogger;
  readonly #abort = new AbortController();
  #running: Promise<void> | undefined;

  constructor(warehouse: Warehouse, subscriptionId: number, logger: ServiceLogger) {
    this.#warehouse = warehouse;
    this.subscriptionId = subscriptionId;
    this.#logger = logger;
  }

  start(): void {
    this.#running ??= this.#run().finally(() => { this.#finished = true; });
  }

  /** Stops and waits: nothing it began is left half-done (an uncommitted batch is aborted; the source resends it). */
  async stop(): Promise<void> {
    this.#abort.abort(new FloeError(SqlState.adminShutdown, 'subscription runner stopped'));
    await this.#running;
  }

  get stopped(): boolean {
    return this.#abort.signal.aborted;
  }

  /** Whether its loop still runs (it ends by itself when the subscription is disabled or dropped). */
  get running(): boolean {
    return this.#running !== undefined && !this.#finished;
  }
  #finished = false;
  /** Whether the last session received anything from its replication stream. */
  #sessionStreamed = false;

  #current(): SubscriptionMetadata | undefined {
    return this.#warehouse.listSubscriptions().find((s) => s.id === this.subscriptionId);
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      const sub = this.#current();
      if (sub === undefined || !sub.enabled || sub.slotName === undefined) return;
      try {
        await this.#session(sub);
        failures = 0;
      } catch (e) {
        if (this.stopped) break;
        // The delays grow while reconnecting keeps failing; a session that streamed before it broke (a source
        // restarted after hours) starts them over.
        if (this.#sessionStreamed) failures = 0;
        failures++;
        const message = e instanceof Error ? e.message : String(e);
        this.#logger.warn({ subscription: sub.name, err: e, failures }, 'subscription failed; reconnecting');
        try {
          this.#warehouse.saveSubscriptionError(sub.id, message);
          if (sub.options.disable_on_error === 'true') {
            this.#warehouse.alterSubscription(sub.name, { enabled: false });
            return;
          }
        } catch { /* the catalog is closing */ }
        const delay = Math.min(FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 16), MAX_RETRY_MS);
        await cancellableSleep(delay, this.#abort.signal).catch(() => undefined);
      }
    }
  }

  /** One connection's worth: copy what needs it, then stream until stopped, altered or broken. */
  async #session(first: SubscriptionMetadata): Promise<void> {
    this.#sessionStreamed = false;
    let sub = first;
    const init = sub.tables.filter((t) => t.state === 'init');
    if (init.length > 0) {
      const rows = await copyTables(this.#warehouse, sub, init, this.#abort.signal);
      this.#logger.info({ subscription: sub.name, tables: init.length, rows }, 'subscription copied its tables');
      sub = this.#current() ?? sub;
      if (sub.generation !== first.generation || !sub.enabled) return;
    }
    const repl = await connectSource(sub.conninfo, { replication: true, applicationName: sub.name });
    const onAbort = () => { void closeSource(repl); };
    this.#abort.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const stream = ReplicationStream.start(repl, {
        slot: sub.slotName!, startLsn: sub.appliedLsn, publications: sub.publications, streaming: sub.options.streaming === 'true',
      });
      const apply = new StreamApply(this.#warehouse, sub, stream, this.#abort.signal, () => this.#current(), this.#logger);
      try {
        await apply.run();
      } finally {
        this.#sessionStreamed = apply.streamed;
      }
    } finally {
      this.#abort.signal.removeEventListener('abort', onAbort);
      await closeSource(repl);
    }
  }
}
