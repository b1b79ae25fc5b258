/** pg_catalog and information_schema for the binder and executor, and the catalog functions. */
export { createSystemCatalog, parseShapeType } from './system-catalog.js';
export type { SystemCatalog } from './system-catalog.js';
export { registerCatalogFunctions, FLOE_VERSION_STRING } from './catalog-functions.js';
export type { CatalogTableInfo, CatalogWarehouse } from './catalog-view.js';
export { regclassName, regtypeName } from './catalog-lookup.js';
export { regprocName, regprocOid, regprocedureName } from './proc-lookup.js';
export type { ServiceRelations, OptimizingTableInfo, OptimizingRunInfo, OptimizerGroupInfo } from './service-relations.js';
