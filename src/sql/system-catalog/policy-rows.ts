import type { SqlType } from '../../common/sql-type.js';
import type { RowPolicyCatalog } from '../../lake/index.js';
import type { VirtualTableContext } from '../binder/virtual-table.js';
import type { CatalogView } from './catalog-view.js';
import { deparseCheck } from './deparse-check.js';
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

/**
 * A policy expression as pg_get_expr prints it (pg_policy's polqual and polwithcheck hold
 * that text, which pg_get_expr passes on): deparse-check.ts's rendering over the table's
 * columns, or the text as written where it does not cover the expression.
 */
function policyExpr(text: string | null, columns: ReadonlyMap<string, SqlType>): string | null {
  return text === null ? null : deparseCheck(text, false, columns);
}

function columnTypes(v: CatalogView): Map<number, ReadonlyMap<string, SqlType>> {
  return new Map(v.tables.map((t) => [t.id, new Map(t.columns.map((c) => [c.name, c.type]))]));
}

/** pg_policy: the policies, their expressions deparsed. */
export function pgPolicyRows(v: CatalogView): Row[] {
  const types = columnTypes(v);
  return (policiesOf(v.ctx)?.policies() ?? []).map((p) => {
    const columns = types.get(p.tableId) ?? new Map();
    return {
      oid: p.oid, polname: p.name, polrelid: p.tableId, polcmd: COMMAND_LETTERS[p.command], polpermissive: p.permissive,
      polroles: [...p.roles], polqual: policyExpr(p.using, columns), polwithcheck: policyExpr(p.check, columns),
    };
  });
}

/** pg_policies: the same, by schema and table name, roles by name. */
export function pgPoliciesRows(v: CatalogView): Row[] {
  const roles = roleCatalogOf(v.ctx);
  const tables = new Map(v.tables.map((t) => [t.id, t]));
  const types = columnTypes(v);
  return (policiesOf(v.ctx)?.policies() ?? []).flatMap((p) => {
    const t = tables.get(p.tableId);
    if (t === undefined) return [];
    return [{
      schemaname: t.namespace, tablename: t.name, policyname: p.name, permissive: p.permissive ? 'PERMISSIVE' : 'RESTRICTIVE',
      roles: p.roles.map((r) => (r === 0 ? 'public' : roles?.getByOid(r)?.name ?? String(r))), cmd: p.command.toUpperCase(),
      qual: policyExpr(p.using, types.get(p.tableId) ?? new Map()), with_check: policyExpr(p.check, types.get(p.tableId) ?? new Map()),
    }];
  });
}
