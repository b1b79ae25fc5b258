import { cancellableSleep } from '../common/cancellable-sleep.js';
import { durationSettingMs } from '../common/duration-setting.js';
import type { SessionEvents, StartupInfo, TransactionStatus } from '../common/session-handler.js';
import type {
  AdvisoryLockKey, AdvisoryLockRequest, AdvisoryLockRow, BackendActivity, ServerFunctions, StatementStatisticsRow,
} from '../exec/index.js';
import { SessionNotifications } from './session-notifications.js';
import type { RegisteredSession, SessionRegistry } from './session-registry.js';
import type { StatementStatistics } from './statement-statistics.js';

const nowMicros = (): bigint => BigInt(Date.now()) * 1000n;

/** pg_stat_activity.query keeps track_activity_query_size (1kB) less its terminating NUL, as PostgreSQL does. */
const MAX_ACTIVITY_QUERY_BYTES = 1023;

/** A query cut to MAX_ACTIVITY_QUERY_BYTES of UTF-8 at a character boundary. */
function activityQuery(query: string): string {
  if (query.length * 3 <= MAX_ACTIVITY_QUERY_BYTES || Buffer.byteLength(query) <= MAX_ACTIVITY_QUERY_BYTES) return query;
  const bytes = Buffer.from(query);
  let end = MAX_ACTIVITY_QUERY_BYTES;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** What the session tells its server functions about itself. */
export interface SessionServerHost {
  readonly startup: StartupInfo;
  settings(): ReadonlyMap<string, string>;
  transactionStatus(): TransactionStatus;
  /** The open transaction block's start, if any. */
  transactionStartMicros(): bigint | undefined;
  events(): SessionEvents | undefined;
  warning(message: string): void;
  /** The server's statement statistics (floe_stat_statements). */
  readonly statistics: StatementStatistics;
  /** pg_hba_file_rules's rows, from the server's rules file. */
  readonly hbaFileRules?: () => readonly Readonly<Record<string, unknown>>[];
}

/**
 * One session's side of the server's shared state: its pg_stat_activity row,
 * its LISTEN/NOTIFY state, its advisory locks, and the calls that reach other
 * sessions (pg_cancel_backend, pg_terminate_backend). Registered in the server's
 * SessionRegistry from construction until close().
 */
export class SessionServerFunctions implements ServerFunctions {
  readonly #registry: SessionRegistry;
  readonly #host: SessionServerHost;
  readonly #pid: number;
  readonly notifications = new SessionNotifications();
  #state: BackendActivity['state'] = 'idle';
  #query = '';
  #queryStart: bigint | null = null;
  #stateChange: bigint = nowMicros();
  #wait: { type: string; event: string } | undefined;
  #closed = false;
  readonly #closedSignal: { promise: Promise<void>; resolve: () => void };

  constructor(registry: SessionRegistry, host: SessionServerHost) {
    this.#registry = registry;
    this.#host = host;
    this.#pid = host.startup.processId;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => { resolve = r; });
    this.#closedSignal = { promise, resolve };
    const entry: RegisteredSession = {
      pid: this.#pid,
      activity: () => this.#activity(),
      cancel: () => host.events()?.cancel?.(),
      terminate: () => host.events()?.terminate?.(),
      deliver: (n) => { if (this.notifications.isListening(n.channel)) host.events()?.notification?.(n); },
      closed: promise,
    };
    registry.register(entry);
  }

  // ---- the session's life, as pg_stat_activity shows it ----

  /** A statement (or query string) begins. */
  statementStarted(query: string): void {
    const now = nowMicros();
    this.#state = 'active';
    this.#query = activityQuery(query);
    this.#queryStart = now;
    this.#stateChange = now;
  }

  /** ReadyForQuery: the session waits for the client. */
  cycleEnded(): void {
    const status = this.#host.transactionStatus();
    const state = status === 'I' ? 'idle' : status === 'T' ? 'idle in transaction' : 'idle in transaction (aborted)';
    if (state !== this.#state) this.#stateChange = nowMicros();
    this.#state = state;
  }

  /** A transaction ended (an autocommit statement's too): NOTIFYs go out on commit, transaction-level locks go either way. */
  transactionEnded(committed: boolean): void {
    if (committed) this.#registry.publish(this.notifications.commit());
    else this.notifications.rollback();
    this.#registry.advisoryLocks.releaseAll(this.#pid, 'xact');
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.notifications.rollback();
    this.#registry.advisoryLocks.releaseAll(this.#pid, 'both');
    this.#registry.unregister(this.#pid);
    this.#closedSignal.resolve();
  }

  #activity(): BackendActivity {
    const s = this.#host.startup;
    const active = this.#state === 'active';
    const txnStart = this.#host.transactionStartMicros();
    return {
      pid: this.#pid,
      datname: s.database,
      usename: s.user,
      applicationName: this.#host.settings().get('application_name') ?? '',
      clientAddr: s.remoteAddress === '' ? null : s.remoteAddress.replace(/^::ffff:/, ''),
      clientPort: s.remotePort ?? null,
      backendStartMicros: s.connectedAtMicros ?? this.#stateChange,
      xactStartMicros: txnStart ?? (active ? this.#queryStart : null),
      queryStartMicros: this.#queryStart,
      stateChangeMicros: this.#stateChange,
      state: this.#state,
      // An idle session waits for its client (Client/ClientRead), as PostgreSQL reports it.
      waitEventType: this.#wait?.type ?? (active ? null : 'Client'),
      waitEvent: this.#wait?.event ?? (active ? null : 'ClientRead'),
      query: this.#query,
      // A replication connection's backend is a walsender, as PostgreSQL names it.
      backendType: s.parameters.replication === undefined ? 'client backend' : 'walsender',
    };
  }

  async #waitingFor<T>(type: string, event: string, work: () => Promise<T>): Promise<T> {
    this.#wait = { type, event };
    try {
      return await work();
    } finally {
      this.#wait = undefined;
    }
  }

  // ---- ServerFunctions ----

  sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return this.#waitingFor('Timeout', 'PgSleep', () => cancellableSleep(ms, signal));
  }

  cancelBackend(pid: number): boolean {
    const s = this.#registry.get(pid);
    if (s === undefined) {
      this.#host.warning(`PID ${pid} is not a PostgreSQL backend process`);
      return false;
    }
    s.cancel();
    return true;
  }

  async terminateBackend(pid: number, timeoutMs: number): Promise<boolean> {
    const s = this.#registry.get(pid);
    if (s === undefined) {
      this.#host.warning(`PID ${pid} is not a PostgreSQL backend process`);
      return false;
    }
    s.terminate();
    if (timeoutMs <= 0 || pid === this.#pid) return true;
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      s.closed.then(() => true),
      new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); }),
    ]);
    clearTimeout(timer);
    if (!ended) this.#host.warning(`backend with PID ${pid} did not terminate within ${timeoutMs} milliseconds`);
    return ended;
  }

  notify(channel: string, payload: string): void {
    this.notifications.notify(this.#pid, channel, payload);
  }

  advisoryLock(key: AdvisoryLockKey, request: AdvisoryLockRequest, signal: AbortSignal | undefined): Promise<boolean> {
    const locks = this.#registry.advisoryLocks;
    const opts = { ...request, signal, lockTimeoutMs: durationSettingMs(this.#host.settings(), 'lock_timeout') };
    if (!request.wait) return locks.acquire(this.#pid, key, opts);
    return this.#waitingFor('Lock', 'advisory', () => locks.acquire(this.#pid, key, opts));
  }

  advisoryUnlock(key: AdvisoryLockKey, shared: boolean): boolean {
    const released = this.#registry.advisoryLocks.release(this.#pid, key, shared);
    if (!released) this.#host.warning(`you don't own a lock of type ${shared ? 'ShareLock' : 'ExclusiveLock'}`);
    return released;
  }

  advisoryUnlockAll(): void {
    this.#registry.advisoryLocks.releaseAll(this.#pid, 'session');
  }

  activity(): readonly BackendActivity[] {
    return this.#registry.list().map((s) => s.activity());
  }

  locks(): readonly AdvisoryLockRow[] {
    return this.#registry.advisoryLocks.rows();
  }

  hbaFileRules(): readonly Readonly<Record<string, unknown>>[] {
    return this.#host.hbaFileRules?.() ?? [];
  }

  statementStatistics(): readonly StatementStatisticsRow[] {
    return this.#host.statistics.rows();
  }

  resetStatementStatistics(): void {
    this.#host.statistics.reset();
  }
}
