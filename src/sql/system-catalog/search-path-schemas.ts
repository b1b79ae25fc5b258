import type { EvalContext } from '../../exec/index.js';
import { TEMP_SCHEMA_ALIAS, withTempNamespace } from '../../common/temp-namespace.js';
import { lakeWarehouse } from './catalog-view.js';

/**
 * The schemas an unqualified name is looked up in, in order: search_path's existing schemas
 * ($user resolved), with pg_catalog first unless the path places it (includeImplicit) and the
 * session's temporary schema where PostgreSQL searches it.
 */
export function searchPathSchemas(ctx: Pick<EvalContext, 'warehouse' | 'searchPath' | 'user'>, includeImplicit: boolean): string[] {
  const w = lakeWarehouse(ctx.warehouse);
  const existing = new Set(w?.listNamespaces() ?? ['public']);
  existing.add('pg_catalog');
  existing.add('information_schema');
  const path = ctx.searchPath.map((s) => (s === '$user' ? ctx.user : s)).filter((s) => existing.has(s) || s === TEMP_SCHEMA_ALIAS);
  const withCatalog = includeImplicit && !path.includes('pg_catalog') ? ['pg_catalog', ...path] : path;
  const temp = w?.tempNamespace;
  // The temporary schema is implicit unless search_path names it (pg_temp), like pg_catalog.
  const named = path.includes(TEMP_SCHEMA_ALIAS) || (temp !== undefined && path.includes(temp));
  return withTempNamespace(withCatalog, includeImplicit || named ? temp : undefined);
}
