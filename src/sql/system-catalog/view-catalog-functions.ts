import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { type EvalContext } from '../../exec/index.js';
import { registerCatalogFunction } from './register-catalog-function.js';
import type { SqlType } from '../../common/sql-type.js';
import { lakeWarehouse, type CatalogView } from './catalog-view.js';
import { viewDefinitionText } from './view-definition-text.js';
import { materializedViewById } from './materialized-view-relations.js';
import { PUBLIC_NAMESPACE_OID } from './catalog-oids.js';

const text: SqlType = { kind: 'text' };
/** initdb's comment on the public schema (pg_description has it too: catalog-rows.ts). */
const PUBLIC_SCHEMA_COMMENT = 'standard public schema';
const oid: SqlType = { kind: 'oid' };

function viewDef(ctx: EvalContext, id: number): string | null {
  const w = lakeWarehouse(ctx.warehouse);
  const view = w === undefined ? undefined : w.getViewById?.(id) ?? materializedViewById(w, id);
  if (w === undefined || view === undefined) return null;
  const catalog = { ctx: { searchPath: ctx.searchPath } as CatalogView['ctx'], tables: w.listTables(), views: w.listViews?.() ?? [] };
  return viewDefinitionText(catalog, view);
}

function comment(ctx: EvalContext, objectId: number, subId: number): string | null {
  return lakeWarehouse(ctx.warehouse)?.listComments?.().find((c) => c.objectId === objectId && c.subId === subId)?.description ?? null;
}

/**
 * pg_get_viewdef of a view or materialized view (by oid or by name, with the pretty flag or a wrap column, which
 * change nothing here), obj_description and col_description over COMMENT ON.
 * `regclassOf` resolves a relation name as '…'::regclass does.
 */
export function registerViewCatalogFunctions(regclassOf: (name: string, ctx: EvalContext) => number | undefined): void {
  const byName = (name: string, ctx: EvalContext): number => {
    const id = regclassOf(name, ctx);
    if (id === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${name}" does not exist`);
    return id;
  };
  for (const extra of [[], [{ kind: 'bool' }], [{ kind: 'int4' }]] as SqlType[][]) {
    registerCatalogFunction({ name: 'pg_get_viewdef', args: [oid, ...extra], returns: text, impl: (a, ctx) => viewDef(ctx, a[0] as number) });
    registerCatalogFunction({ name: 'pg_get_viewdef', args: [text, ...extra], returns: text, impl: (a, ctx) => viewDef(ctx, byName(a[0] as string, ctx)) });
  }
  // A view's only rule is its _RETURN rule, which psql's \d+ leaves out: no other rules exist.
  registerCatalogFunction({ name: 'pg_get_ruledef', args: [oid], returns: text, impl: () => null });
  registerCatalogFunction({ name: 'pg_get_ruledef', args: [oid, { kind: 'bool' }], returns: text, impl: () => null });
  registerCatalogFunction({ name: 'obj_description', args: [oid], returns: text, impl: (a, ctx) => comment(ctx, a[0] as number, 0) });
  registerCatalogFunction({
    name: 'obj_description', args: [oid, { kind: 'name' }], returns: text,
    impl: (a, ctx) => (a[1] === 'pg_class' ? comment(ctx, a[0] as number, 0)
      : a[1] === 'pg_namespace' && a[0] === PUBLIC_NAMESPACE_OID ? PUBLIC_SCHEMA_COMMENT : null),
  });
  registerCatalogFunction({ name: 'col_description', args: [oid, { kind: 'int4' }], returns: text, impl: (a, ctx) => comment(ctx, a[0] as number, a[1] as number) });
}
