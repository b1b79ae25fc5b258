import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import { strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { qualifyExisting } from './resolve-relation.js';

const KINDS: Readonly<Record<string, 'table' | 'view' | 'materialized view' | 'column'>> = {
  OBJECT_TABLE: 'table', OBJECT_VIEW: 'view', OBJECT_MATVIEW: 'materialized view', OBJECT_COLUMN: 'column',
};

/** COMMENT ON TABLE | VIEW | MATERIALIZED VIEW | COLUMN name IS 'text' | NULL; the session checks the object and stores it. */
export function bindCommentOn(ctx: BindContext, n: Raw): BoundStatement {
  const objectKind = KINDS[n.objtype as string];
  if (objectKind === undefined) {
    throw new FloeError(SqlState.featureNotSupported, `COMMENT ON ${String(n.objtype).replace('OBJECT_', '').replaceAll('_', ' ')} is not supported`);
  }
  const names = strList(unwrap(n.object)[1].items);
  const column = objectKind === 'column' ? names.pop() : undefined;
  if (objectKind === 'column' && names.length === 0) {
    throw new FloeError(SqlState.syntaxError, 'column name must be qualified');
  }
  const name = names[names.length - 1]!;
  const relation = qualifyExisting(ctx, names.length > 1 ? names[names.length - 2] : undefined, name);
  const text = typeof n.comment === 'string' ? n.comment : null;
  return { kind: 'ddl', command: { kind: 'comment', relation, objectKind, ...(column !== undefined ? { column } : {}), text } };
}
