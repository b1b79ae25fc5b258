/**
 * What a bound statement reads and writes, for the privilege check the session makes at
 * each execution (PostgreSQL's ExecCheckRTPerms): per relation, the rights it needs on
 * the whole relation, and the columns it reads, inserts and updates (a role with column
 * privileges only may run a statement that touches just those columns).
 */
export interface RelationAccess {
  readonly id: number;
  readonly kind: 'table' | 'view' | 'sequence';
  readonly namespace: string;
  readonly name: string;
  /** AclRight bits: SELECT, INSERT, UPDATE, DELETE, TRUNCATE. */
  readonly rights: number;
  /** Column numbers (1-based) read, inserted and updated. */
  readonly selectColumns: ReadonlySet<number>;
  readonly insertColumns: ReadonlySet<number>;
  readonly updateColumns: ReadonlySet<number>;
  /** Named inside this view's query: checked as the view's owner, as PostgreSQL checks a view's relations. */
  readonly throughView?: number;
}

/** A relation only superusers may read (pg_authid, pg_shadow, pg_hba_file_rules). */
export interface SuperuserOnlyAccess {
  readonly kind: 'table' | 'view';
  readonly name: string;
}

export interface StatementAccesses {
  readonly relations: readonly RelationAccess[];
  readonly superuserOnly: readonly SuperuserOnlyAccess[];
}
