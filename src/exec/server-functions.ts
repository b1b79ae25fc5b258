/**
 * The server functions' way out of the executor (pg_sleep, pg_cancel_backend,
 * pg_terminate_backend, pg_notify, the advisory locks) and the live state that
 * pg_stat_activity and pg_locks show. The session implements it over the
 * server's registry of sessions; the executor only calls it.
 */
export interface ServerFunctions {
  /** Waits, reporting wait event Timeout/PgSleep; rejects with the signal's reason when the statement is cancelled. */
  sleep(ms: number, signal: AbortSignal | undefined): Promise<void>;
  /** pg_cancel_backend: false (with a WARNING) for a pid no session has. */
  cancelBackend(pid: number): boolean;
  /** pg_terminate_backend: with a timeout, waits that long for the session to end. */
  terminateBackend(pid: number, timeoutMs: number): Promise<boolean>;
  /** pg_notify / NOTIFY: queued in the transaction, sent at its commit. */
  notify(channel: string, payload: string): void;
  /** Takes an advisory lock; with `wait` false, returns false instead of waiting (pg_try_advisory_lock). */
  advisoryLock(key: AdvisoryLockKey, request: AdvisoryLockRequest, signal: AbortSignal | undefined): Promise<boolean>;
  /** Releases one session-level hold; false (with a WARNING) when the session holds none. */
  advisoryUnlock(key: AdvisoryLockKey, shared: boolean): boolean;
  /** pg_advisory_unlock_all: every session-level advisory lock of this session. */
  advisoryUnlockAll(): void;
  /** pg_stat_activity's rows: every session of the server. */
  activity(): readonly BackendActivity[];
  /** pg_locks's advisory rows: held and awaited locks of every session. */
  locks(): readonly AdvisoryLockRow[];
  /** floe_stat_statements's rows: the server's statement statistics, one per user and normalized statement. */
  statementStatistics(): readonly StatementStatisticsRow[];
  /** floe_stat_statements_reset(): forgets them all. */
  resetStatementStatistics(): void;
  /** pg_hba_file_rules's rows: the connection rules in force (none known where no server runs the session). */
  hbaFileRules(): readonly Readonly<Record<string, unknown>>[];
}

/** What the server counted of one normalized statement run by one user (pg_stat_statements's columns). */
export interface StatementStatisticsRow {
  readonly user: string;
  readonly database: string;
  readonly queryId: bigint;
  readonly query: string;
  readonly calls: number;
  /** Milliseconds, as pg_stat_statements counts them. */
  readonly totalExecTime: number;
  readonly minExecTime: number;
  readonly maxExecTime: number;
  readonly meanExecTime: number;
  readonly stddevExecTime: number;
  readonly rows: number;
}

/**
 * An advisory lock's identity, as PostgreSQL's lock tag holds it: a bigint key is
 * split into its high (classid) and low (objid) 32 bits with objsubid 1; two int4
 * keys are classid and objid with objsubid 2, so the two key spaces never meet.
 */
export interface AdvisoryLockKey {
  readonly classid: number;
  readonly objid: number;
  readonly objsubid: 1 | 2;
}

export interface AdvisoryLockRequest {
  readonly shared: boolean;
  /** Transaction-level (pg_advisory_xact_lock): released when the transaction ends. */
  readonly xact: boolean;
  readonly wait: boolean;
}

export interface BackendActivity {
  readonly pid: number;
  readonly datname: string;
  readonly usename: string;
  readonly applicationName: string;
  readonly clientAddr: string | null;
  readonly clientPort: number | null;
  readonly backendStartMicros: bigint;
  readonly xactStartMicros: bigint | null;
  readonly queryStartMicros: bigint | null;
  readonly stateChangeMicros: bigint | null;
  readonly state: 'active' | 'idle' | 'idle in transaction' | 'idle in transaction (aborted)';
  readonly waitEventType: string | null;
  readonly waitEvent: string | null;
  readonly query: string;
  readonly backendType: 'client backend' | 'walsender';
}

export interface AdvisoryLockRow {
  readonly pid: number;
  readonly key: AdvisoryLockKey;
  readonly mode: 'ExclusiveLock' | 'ShareLock';
  readonly granted: boolean;
  /** When a waiter began waiting (pg_locks.waitstart); null for a granted lock. */
  readonly waitStartMicros: bigint | null;
}
