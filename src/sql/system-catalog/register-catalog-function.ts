import { registerScalarFunction, type ScalarFunctionDef } from '../../exec/index.js';

/**
 * Registers a function catalog queries call. Such a function reads the session's catalog
 * (relations, roles, privileges) through its EvalContext, which only the session's thread
 * holds, so it is marked to run there, never in a scan worker.
 */
export function registerCatalogFunction(def: ScalarFunctionDef): string {
  return registerScalarFunction({ ...def, session: true });
}
