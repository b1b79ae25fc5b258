import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { type Expr, Exprs } from '../../exec/index.js';
import { namespaceOid } from '../system-catalog/catalog-oids.js';
import { lakeWarehouse } from '../system-catalog/catalog-view.js';
import { strList, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { splitQualifiedName } from './resolve-relation.js';

const SYSTEM_SCHEMAS = ['pg_catalog', 'information_schema', 'public'];

/**
 * `'name'::regnamespace` (pg_dump compares opcnamespace with `'pg_catalog'::regnamespace`):
 * the schema's oid, resolved when binding as PostgreSQL resolves a constant; 3F000 for a
 * schema that does not exist. Undefined when the cast is not of that form.
 */
export function regnamespaceLiteral(ctx: BindContext, typeName: Raw, arg: Expr, position: number | undefined): Expr | undefined {
  const names = strList(typeName.names);
  if (names[names.length - 1]?.toLowerCase() !== 'regnamespace' || arg.kind !== 'literal' || typeof arg.value !== 'string') return undefined;
  const parts = splitQualifiedName(arg.value);
  const name = parts[parts.length - 1]!;
  const known = new Set([...SYSTEM_SCHEMAS, ...(lakeWarehouse(ctx.env.warehouse)?.listNamespaces() ?? [])]);
  if (parts.length !== 1 || !known.has(name)) {
    throw new FloeError(SqlState.invalidSchemaName, `schema "${arg.value}" does not exist`, { ...(position === undefined ? {} : { position }) });
  }
  return Exprs.literal(namespaceOid(name), { kind: 'oid' });
}
