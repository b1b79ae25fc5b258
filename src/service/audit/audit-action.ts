import type { AuditAction } from './audit-event.js';

/**
 * What the session knows of a finished statement, enough to decide whether and how it is
 * audited. `kind` is the bound statement's kind (src/sql/bound-statement.ts).
 */
export interface AuditedStatement {
  readonly kind: 'ddl' | 'dml' | 'query' | 'utility';
  /** PostgreSQL's command tag, with or without its row count: 'CREATE TABLE', 'INSERT 0 3', 'GRANT', 'COPY 10'. */
  readonly commandTag: string;
  /** COPY: FROM (rows into a table) or TO (rows out of one). A COPY without it counts as a write. */
  readonly copyDirection?: 'from' | 'to';
  /** ALTER … OWNER TO, whatever the object: a privilege change. */
  readonly changesOwner?: boolean;
  /** A statement of another kind that also changes table data (a data-modifying WITH, SELECT INTO). */
  readonly writesData?: boolean;
}

/**
 * Command tags that change who may do what: PostgreSQL's (and pgaudit's ROLE class). CREATE
 * USER and CREATE GROUP report CREATE ROLE; GRANT and REVOKE of a role report GRANT ROLE and
 * REVOKE ROLE.
 */
const PRIVILEGE_TAGS: ReadonlySet<string> = new Set([
  'GRANT', 'REVOKE', 'GRANT ROLE', 'REVOKE ROLE', 'CREATE ROLE', 'ALTER ROLE', 'DROP ROLE',
  'ALTER DEFAULT PRIVILEGES', 'REASSIGN OWNED', 'DROP OWNED',
]);

/** Utility commands that change table data: CALL runs Floe's procedures (rollback_to_snapshot, fast_forward, …). */
const WRITE_TAGS: ReadonlySet<string> = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'TRUNCATE TABLE', 'CALL']);

/** Utility commands that read table data: a cursor's query is audited when it is declared, not per FETCH. */
const READ_TAGS: ReadonlySet<string> = new Set(['SELECT', 'DECLARE CURSOR']);

/**
 * The audit action of a finished statement, or undefined when it is not audited:
 * - GRANT, REVOKE, role statements and ALTER … OWNER TO: 'privilege';
 * - other DDL (and a utility command spelled CREATE, ALTER, DROP or COMMENT): 'ddl';
 * - INSERT, UPDATE, DELETE, MERGE, TRUNCATE, COPY FROM, CALL: 'write';
 * - SELECT, COPY TO, DECLARE CURSOR: 'read', only when `logReads` (audit.log_reads) is on;
 * - everything else (SET, SHOW, BEGIN, COMMIT, FETCH, EXPLAIN, LISTEN, …): undefined.
 * EXECUTE of a prepared statement and EXPLAIN ANALYZE are to be described by the statement
 * they run. `logReads` takes the setting's text in PostgreSQL's boolean spellings.
 */
export function auditActionOf(stmt: AuditedStatement, logReads: string | boolean): AuditAction | undefined {
  const tag = commandOfTag(stmt.commandTag);
  if (PRIVILEGE_TAGS.has(tag) || stmt.changesOwner === true) return 'privilege';
  if (tag === 'COPY') {
    if (stmt.copyDirection === 'to' && stmt.writesData !== true) return isOn(logReads) ? 'read' : undefined;
    return 'write';
  }
  if (stmt.kind === 'ddl') return tag === 'TRUNCATE TABLE' ? 'write' : 'ddl';
  if (stmt.kind === 'dml' || stmt.writesData === true || WRITE_TAGS.has(tag)) return 'write';
  if (stmt.kind === 'utility' && /^(CREATE|ALTER|DROP|COMMENT|REFRESH|IMPORT) /.test(tag)) return 'ddl';
  if (stmt.kind === 'query' || READ_TAGS.has(tag)) return isOn(logReads) ? 'read' : undefined;
  return undefined;
}

/** The command of a tag without its counts: 'INSERT 0 3' → 'INSERT', 'COPY 10' → 'COPY'. */
function commandOfTag(tag: string): string {
  return tag.trim().toUpperCase().replace(/(\s+\d+)+$/, '');
}

/** PostgreSQL's boolean spellings (parse_bool): on, true, yes, 1 and their unique prefixes; anything else is off. */
function isOn(value: string | boolean): boolean {
  if (typeof value === 'boolean') return value;
  const v = value.trim().toLowerCase();
  if (v === '') return false;
  return v === 'on' || v === '1' || 'true'.startsWith(v) || 'yes'.startsWith(v);
}
