import { PG_CLASS_OID, namespaceOid, viewRuleOid } from './catalog-oids.js';
import type { CatalogView, CatalogViewInfo } from './catalog-view.js';

/**
 * The _RETURN rule every view and materialized view has in PostgreSQL: a pg_rewrite row,
 * and pg_depend rows tying it to its view (internal) and to the relations its query reads
 * (normal). pg_dump orders a view after what it reads only through these: without them a
 * view named before its table alphabetically would be created first, and the restore fail.
 * Each view also depends on its schema (normal), as every relation does in PostgreSQL:
 * pg_dump's query for the order of REFRESH MATERIALIZED VIEW starts from that row.
 * Floe keeps the query as text, not a parse tree, so ev_action holds no tree.
 */
type Row = Record<string, unknown>;

const PG_REWRITE_OID = 2618;
const PG_NAMESPACE_OID = 2615;

function viewsWithRules(v: CatalogView): CatalogViewInfo[] {
  return [...v.views, ...v.materializedViews];
}

export function pgRewriteRows(v: CatalogView): Row[] {
  return viewsWithRules(v).map((view) => ({
    oid: viewRuleOid(view.id), rulename: '_RETURN', ev_class: view.id, ev_type: '1', ev_enabled: 'O', is_instead: true,
    ev_qual: '<>', ev_action: '<>',
  }));
}

export function viewRuleDependencies(v: CatalogView): Row[] {
  const rows: Row[] = [];
  for (const view of viewsWithRules(v)) {
    const objid = viewRuleOid(view.id);
    const on = (refobjid: number, deptype: string) => ({ classid: PG_REWRITE_OID, objid, objsubid: 0, refclassid: PG_CLASS_OID, refobjid, refobjsubid: 0, deptype });
    rows.push({ classid: PG_CLASS_OID, objid: view.id, objsubid: 0, refclassid: PG_NAMESPACE_OID, refobjid: namespaceOid(view.namespace), refobjsubid: 0, deptype: 'n' });
    rows.push(on(view.id, 'i'));
    for (const id of new Set(view.dependsOn ?? [])) if (id !== view.id) rows.push(on(id, 'n'));
  }
  return rows;
}
