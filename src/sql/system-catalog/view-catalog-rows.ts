import type { SqlType } from '../../common/sql-type.js';
import { isTempNamespaceName } from '../../common/temp-namespace.js';
import { PG_CLASS_OID, namespaceOid } from './catalog-oids.js';
import { catalogAcls } from './catalog-acls.js';
import type { CatalogView } from './catalog-view.js';
import { viewDefinitionText } from './view-definition-text.js';

/**
 * Views and comments in the catalogs: pg_class (relkind 'v'), pg_attribute, pg_views,
 * information_schema.views / .tables ('VIEW') / .columns, pg_description, and the text
 * pg_get_viewdef prints.
 */
type Row = Record<string, unknown>;


export function pgClassViewRows(v: CatalogView, defaults: Row): Row[] {
  return v.views.map((view) => ({
    ...defaults, oid: view.id, relname: view.name, relnamespace: namespaceOid(view.namespace), relam: 0, relfilenode: 0,
    relkind: 'v', relnatts: view.columns.length, relhasrules: true,
    relpersistence: isTempNamespaceName(view.namespace) ? 't' : 'p', reloptions: view.options?.length ? view.options : null,
  }));
}

export function viewAttributeRows(v: CatalogView, add: (relid: number, num: number, name: string, type: SqlType) => void): void {
  for (const view of v.views) view.columns.forEach((c, i) => add(view.id, i + 1, c.name, c.type));
}

export function pgViewsRows(v: CatalogView): Row[] {
  const acls = catalogAcls(v.ctx);
  return v.views.map((view) => ({ schemaname: view.namespace, viewname: view.name, viewowner: acls.userName(acls.relation(view.id).owner), definition: viewDefinitionText(v, view) }));
}

export function isViewsRows(v: CatalogView): Row[] {
  return v.views.map((view) => ({
    table_catalog: v.ctx.database, table_schema: view.namespace, table_name: view.name, view_definition: viewDefinitionText(v, view), check_option: 'NONE',
    is_updatable: 'NO', is_insertable_into: 'NO', is_trigger_updatable: 'NO', is_trigger_deletable: 'NO', is_trigger_insertable_into: 'NO',
  }));
}

export function isTablesViewRows(v: CatalogView): Row[] {
  return v.views.map((view) => ({
    table_catalog: v.ctx.database, table_schema: view.namespace, table_name: view.name, table_type: isTempNamespaceName(view.namespace) ? 'LOCAL TEMPORARY' : 'VIEW', self_referencing_column_name: null,
    reference_generation: null, user_defined_type_catalog: null, user_defined_type_schema: null, user_defined_type_name: null,
    is_insertable_into: 'NO', is_typed: 'NO', commit_action: null,
  }));
}

/** Comments on relations (objsubid 0) and their columns (objsubid = attnum), as pg_description holds them. */
export function pgDescriptionRows(v: CatalogView): Row[] {
  return v.comments.map((c) => ({ objoid: c.objectId, classoid: PG_CLASS_OID, objsubid: c.subId, description: c.description }));
}
