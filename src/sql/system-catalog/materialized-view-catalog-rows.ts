import type { SqlType } from '../../common/sql-type.js';
import { HEAP_AM_OID, namespaceOid } from './catalog-oids.js';
import { catalogAcls } from './catalog-acls.js';
import type { CatalogView } from './catalog-view.js';
import { isRestoreView } from './restorable-view.js';
import { uniqueIndexesOf } from './unique-index-rows.js';
import { viewDefinitionText } from './view-definition-text.js';

/**
 * Materialized views in the catalogs as PostgreSQL 15 shows them: pg_class relkind 'm'
 * (a heap relation with a _RETURN rule, so relhasrules), pg_attribute with the query's
 * columns (never NOT NULL), and pg_matviews. information_schema, pg_tables and
 * publications FOR ALL TABLES leave them out, as PostgreSQL does (they list relkinds
 * r, v, f, p only): CatalogView keeps them apart from `tables`.
 */
type Row = Record<string, unknown>;

/** hasindexes / relhasindex: only indexes a user made; the view's key is Floe's. */
function hasIndexes(view: CatalogView['materializedViews'][number]): boolean {
  return uniqueIndexesOf(view.table).length > 0;
}

/**
 * reloptions: the view's WITH (…) options. pg_dump is shown none, as for tables' Floe
 * properties: PostgreSQL refuses storage parameters it does not know (restorable-view.ts).
 */
function reloptions(v: CatalogView, options: readonly string[] | undefined): string[] | null {
  return options !== undefined && options.length > 0 && !isRestoreView(v.ctx.settings) ? [...options] : null;
}

export function pgClassMaterializedViewRows(v: CatalogView, defaults: Row): Row[] {
  return v.materializedViews.map((view) => ({
    ...defaults, oid: view.id, relname: view.name, relnamespace: namespaceOid(view.namespace), relam: HEAP_AM_OID, relfilenode: view.id,
    relkind: 'm', relnatts: view.columns.length, relhasindex: hasIndexes(view), relhasrules: true, relispopulated: view.populated,
    relpersistence: 'p', reloptions: reloptions(v, view.options),
  }));
}

export function materializedViewAttributeRows(v: CatalogView, add: (relid: number, num: number, name: string, type: SqlType) => void): void {
  for (const view of v.materializedViews) view.columns.forEach((c, i) => add(view.id, i + 1, c.name, c.type));
}

export function pgMatviewsRows(v: CatalogView): Row[] {
  const acls = catalogAcls(v.ctx);
  return v.materializedViews.map((view) => ({
    schemaname: view.namespace, matviewname: view.name, matviewowner: acls.userName(acls.relation(view.id).owner), tablespace: null,
    hasindexes: hasIndexes(view), ispopulated: view.populated, definition: viewDefinitionText(v, view),
  }));
}
