/** The pino level a failed statement is logged at. */
export type ErrorLogLevel = 'error' | 'warn' | 'info';

/**
 * PostgreSQL logs every failed statement as ERROR. An operator reading Floe's log wants to
 * tell a bug from a client's mistake without reading SQLSTATEs, so the level follows the
 * SQLSTATE's class:
 * - `error`: Floe's own failures, internal (XX: a bug) and system (58: I/O, a missing file);
 * - `warn`: trouble the operator may act on: resources (53: memory, disk), program limits
 *   (54), operator intervention (57: cancels, statement_timeout, shutdown), contention (40:
 *   serialization failures, deadlocks; 55P03: lock_timeout);
 * - `info`: the client's mistakes (syntax, undefined names, bad values, constraint
 *   violations, …), which the client was told and the operator needs only as a record.
 */
export function errorLogLevel(sqlstate: string): ErrorLogLevel {
  const errorClass = sqlstate.slice(0, 2);
  if (errorClass === 'XX' || errorClass === '58') return 'error';
  if (errorClass === '53' || errorClass === '54' || errorClass === '57' || errorClass === '40' || sqlstate === '55P03') return 'warn';
  return 'info';
}
