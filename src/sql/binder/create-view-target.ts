import { FloeError } from '../../common/floe-error.js';
import { TEMP_SCHEMA_ALIAS } from '../../common/temp-namespace.js';
import type { TableName, ViewTemporariness } from '../ddl-command.js';
import type { Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { qualifyForDdl } from './resolve-relation.js';

const INVALID_TABLE_DEFINITION = '42P16';
const NOT_TEMPORARY_SCHEMA = 'cannot create temporary relation in non-temporary schema';

/**
 * Where CREATE VIEW puts the view, by PostgreSQL's rules: TEMP / TEMPORARY or a pg_temp
 * name puts it in the session's temporary schema (`pg_temp`, resolved by the session), and
 * so does reading a temporary relation (PostgreSQL's NOTICE `view "v" will be a temporary
 * view`). A temporary view in a named permanent schema is 42P16: written TEMP here; implied,
 * by the session after its NOTICE (the view keeps the written schema for that).
 * Call after binding the query (`ctx.readsTemporaryRelation`).
 */
export function createViewTarget(ctx: BindContext, rv: Raw): { view: TableName; temporary?: ViewTemporariness } {
  const schema = rv.schemaname as string | undefined;
  const ownTemp = schema === TEMP_SCHEMA_ALIAS || (schema !== undefined && schema === ctx.env.warehouse.tempNamespace);
  const temporary: ViewTemporariness | undefined = rv.relpersistence === 't' || ownTemp ? 'explicit' : ctx.readsTemporaryRelation ? 'implied' : undefined;
  if (temporary === undefined) return { view: qualifyForDdl(ctx, schema, rv.relname) };
  if (schema !== undefined && !ownTemp) {
    if (temporary === 'implied') return { view: { namespace: schema, name: rv.relname as string }, temporary };
    throw new FloeError(INVALID_TABLE_DEFINITION, NOT_TEMPORARY_SCHEMA);
  }
  return { view: { namespace: TEMP_SCHEMA_ALIAS, name: rv.relname as string }, temporary };
}
