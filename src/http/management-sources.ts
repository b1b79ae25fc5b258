/**
 * What the HTTP server reads and does that lives outside src/service and src/lake:
 * the wire's users, the server's sessions and the process's gauges. src/http never
 * imports the session or the wire; `floe serve` (src/cli) hands these in.
 */

/** The wire's users and SCRAM verifiers, for HTTP Basic. */
export interface HttpCredentials {
  /** The password checked against the user's SCRAM verifier; false for an unknown user. */
  verify(user: string, password: string): boolean;
  isSuperuser(user: string): boolean;
}

/** One connected client, as pg_stat_activity shows it. */
export interface ConnectedSession {
  readonly pid: number;
  readonly user: string;
  readonly database: string;
  readonly applicationName: string;
  readonly clientAddress: string | null;
  readonly backendStart: string;
  /** active, idle, idle in transaction, idle in transaction (aborted). */
  readonly state: string;
  /** The running statement's text, or the last one's when idle. */
  readonly query: string;
  readonly queryStart: string | null;
  readonly transactionStart: string | null;
  readonly waitEvent: string | null;
}

/** One normalized statement's totals since the last reset (a floe_stat_statements row). */
export interface StatementTotals {
  readonly user: string;
  readonly query: string;
  readonly calls: number;
  /** Milliseconds. */
  readonly totalMs: number;
  readonly meanMs: number;
  readonly maxMs: number;
  readonly rows: number;
}

/** The server's sessions: who is connected, cancelling one's running statement (pg_cancel_backend), and what ended statements cost (floe_stat_statements). */
export interface SessionDirectory {
  list(): readonly ConnectedSession[];
  statements(): readonly StatementTotals[];
  /** false when no session has that pid. */
  cancel(pid: number): boolean;
}

/** Process-wide numbers read at scrape time. */
export interface ServerGauges {
  wireConnections(): number;
  /** Scan tasks waiting for a free worker thread. */
  scanQueueDepth(): number;
  /** Bytes written to spill files since the process started. */
  spilledBytes(): number;
}
