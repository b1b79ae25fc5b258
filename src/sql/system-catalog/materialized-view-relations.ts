import type { CatalogMaterializedViewInfo, CatalogMaterializedViewRecord, CatalogTableInfo, CatalogWarehouse } from './catalog-view.js';

/**
 * Which lake tables the catalogs show as materialized views, and what they show of any
 * table. A materialized view is a keyed lake table plus a record of its query; PostgreSQL
 * knows it as relkind 'm', with the query's columns only and no key. Floe's own columns
 * (`hidden`: the view's key, aggregate state) are never shown, for any table, and the key
 * is Floe's, so a view shows no primary key; indexes a user made on it stay.
 */

/** A table as the catalogs see it: without hidden columns (they come last, so attnums hold). */
export function visibleTable<T extends CatalogTableInfo>(t: T): T {
  return t.columns.some((c) => c.hidden === true) ? { ...t, columns: t.columns.filter((c) => c.hidden !== true) } : t;
}

/** The materialized view a lake table is, given its record (none: it is no view). */
function materializedViewOf(t: CatalogTableInfo, record: CatalogMaterializedViewRecord | undefined): CatalogMaterializedViewInfo | undefined {
  if (record === undefined) return undefined;
  const shown = visibleTable(t);
  // Constraints stay in place: an index's oid derives from its position among them.
  const table: CatalogTableInfo = { ...shown, primaryKey: [] };
  return {
    id: t.id, namespace: t.namespace, name: t.name, definition: record.definition, searchPath: record.searchPath,
    dependsOn: record.dependsOn, options: record.options, populated: record.populated, columns: table.columns, table,
  };
}

/** A lake table as the catalogs see it: its user's columns, and no key when it is a materialized view. */
export function catalogTable(w: CatalogWarehouse, t: CatalogTableInfo): CatalogTableInfo {
  return materializedViewOf(t, w.getMaterializedView?.(t.id))?.table ?? visibleTable(t);
}

/** The materialized view with this oid, if any. */
export function materializedViewById(w: CatalogWarehouse, oid: number): CatalogMaterializedViewInfo | undefined {
  const record = w.getMaterializedView?.(oid);
  if (record === undefined) return undefined;
  const t = w.getTableById?.(oid) ?? w.listTables().find((x) => x.id === oid);
  return t === undefined ? undefined : materializedViewOf(t, record);
}

/** Whether this lake table is a materialized view. */
export function isMaterializedView(w: CatalogWarehouse, tableId: number): boolean {
  return w.getMaterializedView?.(tableId) !== undefined;
}

/** The warehouse's tables split as the catalogs list them: plain tables, and materialized views. */
export function catalogRelations(w: CatalogWarehouse): { tables: CatalogTableInfo[]; materializedViews: CatalogMaterializedViewInfo[] } {
  const tables: CatalogTableInfo[] = [];
  const materializedViews: CatalogMaterializedViewInfo[] = [];
  // One pass over the records, not a lookup per table.
  const records = new Map((w.listMaterializedViews?.() ?? []).map((r) => [r.tableId, r]));
  for (const t of w.listTables()) {
    const view = materializedViewOf(t, records.get(t.id));
    if (view !== undefined) materializedViews.push(view);
    else tables.push(visibleTable(t));
  }
  return { tables, materializedViews };
}
