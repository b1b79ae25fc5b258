import type { RowPolicyCatalog } from '../../lake/index.js';
import type { VirtualTableContext } from '../binder/virtual-table.js';
import type { CatalogView } from './catalog-view.js';
import { roleCatalogOf } from './role-rows.js';

type Row = Record<string, unknown>;

/** pg_policy's polcmd letters. */
const COMMAND_LETTERS = { all: '*', select: 'r', insert: 'a', update: 'w', delete: 'd' } as const;

function policiesOf(ctx: Pick<VirtualTableContext, 'warehouse'>): RowPolicyCatalog | undefined {
  return (ctx.warehouse as { readonly rowPolicies?: RowPolicyCatalog } | undefined)?.rowPolicies;
}

/** pg_class.relrowsecurity and relforcerowsecurity of a table. */
export function rowSecurityFlags(v: CatalogView, tableId: number): Row {
  const s = policiesOf(v.ctx)?.rowSecurity(tableId);
  return s === undefined ? {} : { relrowsecurity: s.enabled, relforcerowsecurity: s.forced };
}

/** pg_policy: the policies as written (polqual and polwithcheck hold the expressions' text, which pg_get_expr returns). */
export function pgPolicyRows(v: CatalogView): Row[] {
  return (policiesOf(v.ctx)?.policies() ?? []).map((p) => ({
    oid: p.oid, polname: p.name, polrelid: p.tableId, polcmd: COMMAND_LETTERS[p.command], polpermissive: p.permissive,
    polroles: [...p.roles], polqual: p.using, polwithcheck: p.check,
  }));
}

/** pg_policies: the same, by schema and table name, roles by name. */
export function pgPoliciesRows(v: CatalogView): Row[] {
  const roles = roleCatalogOf(v.ctx);
  const tables = new Map(v.tables.map((t) => [t.id, t]));
  return (policiesOf(v.ctx)?.policies() ?? []).flatMap((p) => {
    const t = tables.get(p.tableId);
    if (t === undefined) return [];
    return [{
      schemaname: t.namespace, tablename: t.name, policyname: p.name, permissive: p.permissive ? 'PERMISSIVE' : 'RESTRICTIVE',
      roles: p.roles.map((r) => (r === 0 ? 'public' : roles?.getByOid(r)?.name ?? String(r))), cmd: p.command.toUpperCase(),
      qual: p.using === null ? null : `(${p.using})`, with_check: p.check === null ? null : `(${p.check})`,
    }];
  });
}
