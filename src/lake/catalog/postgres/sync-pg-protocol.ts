/** What the calling thread and the catalog's PostgreSQL worker say to each other (sync-pg-client.ts). */
import type { MessagePort } from 'node:worker_threads';

export interface SyncPgStatement {
  readonly sql: string;
  readonly params?: readonly unknown[];
  /** A prepared statement's name: PostgreSQL parses and plans it once per connection. */
  readonly name?: string;
}

export type SyncPgRequest =
  /**
   * Statements run one after another, in autocommit or inside a transaction the caller
   * opened, up to the first that fails (its error is the reply): one bridged unit.
   */
  | { readonly kind: 'query'; readonly statements: readonly SyncPgStatement[] }
  /** Statements run back to back between BEGIN and COMMIT in the worker: one bridged unit, ROLLBACK on the first error. */
  | { readonly kind: 'transaction'; readonly statements: readonly SyncPgStatement[]; readonly isolation?: 'read committed' | 'repeatable read' | 'serializable' }
  | { readonly kind: 'listen'; readonly channel: string }
  | { readonly kind: 'close' };

export type Row = Record<string, unknown>;

/** A statement's rows, and how many rows it inserted, updated or deleted (0 for others). */
export interface StatementResult {
  readonly rows: Row[];
  readonly rowCount: number;
}

export type SyncPgReply =
  /** `failure`: the statement after the last of `results` failed, and those after it did not run. */
  | { readonly ok: true; readonly results: StatementResult[]; readonly failure?: SyncPgError }
  | { readonly ok: false; readonly error: SyncPgError };

/** A failure as PostgreSQL (or the connection) reported it. */
export interface SyncPgError {
  readonly message: string;
  /** SQLSTATE when PostgreSQL sent one; connection failures have none. */
  readonly code?: string;
  readonly detail?: string;
  readonly hint?: string;
  /** The connection is gone: nothing more can be said on it. */
  readonly lost?: boolean;
}

/** Slots of the shared Int32Array. */
export const SIGNAL_REPLY = 0;
/** Raised by one for every NOTIFY on a channel the worker listens on. */
export const SIGNAL_NOTIFY_EPOCH = 1;
export const SIGNAL_SLOTS = 2;

export interface SyncPgWorkerData {
  readonly url: string;
  readonly signal: SharedArrayBuffer;
  readonly port: MessagePort;
}
