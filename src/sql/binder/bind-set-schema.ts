import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import type { Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { qualifyExisting } from './resolve-relation.js';

/** ALTER TABLE | VIEW name SET SCHEMA s (the session tells a table from a view, as PostgreSQL lets either word name either). */
export function bindSetSchema(ctx: BindContext, n: Raw): BoundStatement {
  // A materialized view moves as the table it is.
  const type = n.objectType === 'OBJECT_MATVIEW' ? 'OBJECT_TABLE' : n.objectType as string;
  if (type !== 'OBJECT_TABLE' && type !== 'OBJECT_VIEW') {
    throw new FloeError(SqlState.featureNotSupported, `ALTER ${type.replace('OBJECT_', '')} SET SCHEMA is not supported`);
  }
  const table = qualifyExisting(ctx, n.relation.schemaname, n.relation.relname);
  const ifExists = Boolean(n.missing_ok);
  if (type === 'OBJECT_VIEW' || ctx.env.warehouse.getView?.(table.namespace, table.name) !== undefined) {
    return { kind: 'ddl', command: { kind: 'alterView', view: table, ifExists, setSchema: n.newschema, tag: type === 'OBJECT_VIEW' ? 'ALTER VIEW' : 'ALTER TABLE' } };
  }
  return { kind: 'ddl', command: { kind: 'setTableSchema', table, schema: n.newschema, ifExists } };
}
