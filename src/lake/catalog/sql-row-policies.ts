import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { PolicyCommand, RowPolicy, RowPolicyCatalog, RowSecuritySwitch } from '../security/row-policies.js';
import type { SqlCatalogAccess } from './sql-sequences.js';

/**
 * Row-level security in the catalog: `row_policies` (one row per policy, roles as a JSON
 * array of oids) and `row_security` (a table's ENABLE / FORCE switch). Policy oids come
 * from the relations' counter, as PostgreSQL's pg_policy oids share its oid space.
 */
interface PolicyRow {
  policy_oid: bigint; table_id: bigint; name: string; command: string; permissive: bigint; roles: string;
  using_expr: string | null; check_expr: string | null;
}

const toPolicy = (r: PolicyRow): RowPolicy => ({
  oid: Number(r.policy_oid), tableId: Number(r.table_id), name: r.name, command: r.command as PolicyCommand,
  permissive: Number(r.permissive) !== 0, roles: JSON.parse(r.roles) as number[], using: r.using_expr, check: r.check_expr,
});

export class SqlRowPolicies implements RowPolicyCatalog {
  readonly #c: SqlCatalogAccess;

  constructor(access: SqlCatalogAccess) {
    this.#c = access;
  }

  policies(tableId?: number): RowPolicy[] {
    const all = this.#c.cached('row policies', () => (this.#c.sql('SELECT * FROM row_policies ORDER BY table_id, name').all() as PolicyRow[]).map(toPolicy));
    return tableId === undefined ? all : all.filter((p) => p.tableId === tableId);
  }

  rowSecurity(tableId: number): RowSecuritySwitch {
    return this.#switches().get(tableId) ?? { enabled: false, forced: false };
  }

  #switches(): Map<number, RowSecuritySwitch> {
    return this.#c.cached('row security', () => new Map((this.#c.sql('SELECT * FROM row_security').all() as { table_id: bigint; enabled: bigint; forced: bigint }[])
      .map((r) => [Number(r.table_id), { enabled: Number(r.enabled) !== 0, forced: Number(r.forced) !== 0 }])));
  }

  version(): string {
    const policies = this.policies();
    const switches = this.#switches();
    if (policies.length === 0 && switches.size === 0) return '';
    return this.#c.cached('row security version', () => JSON.stringify([policies, [...switches]]));
  }

  createPolicy(p: Omit<RowPolicy, 'oid'>): RowPolicy {
    return this.#c.immediate(() => {
      if (this.#c.sql('SELECT 1 FROM row_policies WHERE table_id = ? AND name = ?').get(p.tableId, p.name) !== undefined) {
        throw new FloeError(SqlState.duplicateObject, `policy "${p.name}" for table ${p.tableId} already exists`);
      }
      const oid = this.#c.nextId();
      this.#c.sql('INSERT INTO row_policies VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(oid, p.tableId, p.name, p.command, p.permissive ? 1 : 0, JSON.stringify(p.roles), p.using, p.check);
      return { oid, ...p };
    });
  }

  alterPolicy(oid: number, change: Partial<Pick<RowPolicy, 'name' | 'roles' | 'using' | 'check'>>): void {
    this.#c.immediate(() => {
      const r = this.#c.sql('SELECT * FROM row_policies WHERE policy_oid = ?').get(oid) as PolicyRow | undefined;
      if (r === undefined) throw new FloeError(SqlState.undefinedObject, `policy with OID ${oid} does not exist`);
      const p = { ...toPolicy(r), ...change };
      this.#c.sql('UPDATE row_policies SET name = ?, roles = ?, using_expr = ?, check_expr = ? WHERE policy_oid = ?')
        .run(p.name, JSON.stringify(p.roles), p.using, p.check, oid);
    });
  }

  dropPolicy(oid: number): void {
    this.#c.immediate(() => { this.#c.sql('DELETE FROM row_policies WHERE policy_oid = ?').run(oid); });
  }

  setRowSecurity(tableId: number, change: Partial<RowSecuritySwitch>): void {
    this.#c.immediate(() => {
      const next = { ...this.rowSecurity(tableId), ...change };
      this.#c.sql(`INSERT INTO row_security VALUES (?, ?, ?)
        ON CONFLICT (table_id) DO UPDATE SET enabled = excluded.enabled, forced = excluded.forced`).run(tableId, next.enabled ? 1 : 0, next.forced ? 1 : 0);
    });
  }
}
