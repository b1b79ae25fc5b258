/** What an audit record is about (the `action` column of floe_audit). */
export type AuditAction = 'connect' | 'ddl' | 'privilege' | 'write' | 'read';

/** How the audited attempt ended: `sqlstate` is '00000' exactly when it succeeded. */
export type AuditOutcome = 'success' | 'failure';

/**
 * One audited event: a connection attempt, or a finished statement of an audited kind
 * (auditActionOf). Field for field a row of floe_audit, whose columns are these names in
 * snake case.
 */
export interface AuditEvent {
  /** When it happened, in microseconds since the epoch. */
  readonly at: bigint;
  /** The role the client authenticated (or tried to authenticate) as. */
  readonly userName: string;
  /** The client's IP address; null for a Unix-domain socket, as pg_stat_activity shows it. */
  readonly clientAddr: string | null;
  readonly applicationName: string;
  readonly action: AuditAction;
  /** Qualified names of the objects involved, e.g. `public.t`; empty for a connection. */
  readonly objects: readonly string[];
  /** The statement text; null for a connection. */
  readonly statement: string | null;
  /** Rows returned or changed, where the command counts them (its command tag's count); else null. */
  readonly rows: number | null;
  /** '00000' on success, the error's SQLSTATE on failure. */
  readonly sqlstate: string;
  readonly outcome: AuditOutcome;
}
