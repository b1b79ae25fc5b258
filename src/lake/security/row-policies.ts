/**
 * Row-level security: a table's switch (ENABLE / FORCE ROW LEVEL SECURITY) and its
 * policies (CREATE POLICY), as PostgreSQL's pg_class.relrowsecurity / relforcerowsecurity
 * and pg_policy keep them. Expressions are SQL text, bound by the SQL layer over the
 * table's row; the lake parses no SQL.
 */
export type PolicyCommand = 'all' | 'select' | 'insert' | 'update' | 'delete';

export interface RowPolicy {
  readonly oid: number;
  readonly tableId: number;
  readonly name: string;
  readonly command: PolicyCommand;
  /** PERMISSIVE (OR'ed with its peers) or RESTRICTIVE (AND'ed). */
  readonly permissive: boolean;
  /** Role oids the policy applies to; 0 is PUBLIC. */
  readonly roles: readonly number[];
  /** USING: which existing rows are visible, updatable or deletable. */
  readonly using: string | null;
  /** WITH CHECK: which new rows may be written. */
  readonly check: string | null;
}

export interface RowSecuritySwitch {
  readonly enabled: boolean;
  readonly forced: boolean;
}

export interface RowPolicyCatalog {
  /** Every policy (of one table when given), by table then name. */
  policies(tableId?: number): RowPolicy[];
  /** The table's switch (both off when never set). */
  rowSecurity(tableId: number): RowSecuritySwitch;
  /** 42710 when the table has a policy of that name. */
  createPolicy(p: Omit<RowPolicy, 'oid'>): RowPolicy;
  /** Replaces a policy's name, roles or expressions. */
  alterPolicy(oid: number, change: Partial<Pick<RowPolicy, 'name' | 'roles' | 'using' | 'check'>>): void;
  dropPolicy(oid: number): void;
  setRowSecurity(tableId: number, change: Partial<RowSecuritySwitch>): void;
  /** Text that changes whenever any policy or switch does ('' while there are none): cached plans bound under one check it. */
  version(): string;
}
