import type { ServerFunctions } from '../server-functions.js';
import type { SessionSequences } from '../session-sequences.js';

/**
 * What a scalar function may look at besides its arguments: the session's view
 * of the world. Built once per query from the ExecContext.
 */
export interface EvalContext {
  /** Session settings, lower-case names (timezone, search_path, datestyle, …). */
  readonly settings: ReadonlyMap<string, string>;
  readonly user: string;
  readonly database: string;
  readonly searchPath: readonly string[];
  /** The warehouse (src/lake public API), typed loosely to keep expressions free of lake internals. */
  readonly warehouse: unknown;
  /** src/sql/binder/virtual-table.ts VirtualTableRegistry, when the session has one. */
  readonly virtualTables: unknown;
  /** Transaction start time (now(), current_timestamp), microseconds since the epoch. */
  readonly transactionStartMicros: bigint;
  /** Statement start time (statement_timestamp()). */
  readonly statementStartMicros: bigint;
  /**
   * Changes a session setting as SET (or SET LOCAL) would, for set_config(); returns the
   * value now in force. Absent where no session owns the settings.
   */
  readonly setSetting?: (name: string, value: string, isLocal: boolean) => string;
  /** nextval / currval / setval / lastval: the session's sequences. Absent where no session runs the query. */
  readonly sequences?: SessionSequences;
  /** pg_sleep, pg_cancel_backend, pg_notify, advisory locks, pg_stat_activity: the server's sessions. Absent where no session runs the query. */
  readonly server?: ServerFunctions;
}
