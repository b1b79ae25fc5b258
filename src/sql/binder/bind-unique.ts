import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import type { UniqueSpec } from '../ddl-command.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';

/**
 * A UNIQUE constraint node (column or table constraint, or ALTER TABLE ADD): its
 * columns (`column` for a column constraint) and name. Options an index would carry
 * beyond that (INCLUDE, USING INDEX, WITH, a tablespace) are refused; DEFERRABLE is kept.
 */
export function uniqueSpecOf(con: Raw, column?: string): UniqueSpec {
  if (con.including?.length || con.indexname || con.options?.length || con.indexspace) {
    throw new FloeError(SqlState.featureNotSupported, 'UNIQUE with INCLUDE, USING INDEX or storage options is not supported', { position: positionOf(con) });
  }
  const columns = column !== undefined ? [column] : strList(con.keys);
  if (new Set(columns).size !== columns.length) {
    const dup = columns.find((c, i) => columns.indexOf(c) !== i)!;
    throw new FloeError(SqlState.duplicateColumn, `column "${dup}" appears twice in unique constraint`, { position: positionOf(con) });
  }
  return {
    ...(con.conname ? { name: con.conname as string } : {}), columns, nullsNotDistinct: Boolean(con.nulls_not_distinct),
    ...(con.deferrable ? { deferrable: con.initdeferred ? 'deferred' as const : 'immediate' as const } : {}),
  };
}

/** DROP INDEX [IF EXISTS] [schema.]name, …; the session looks the names up along the search path. */
export function bindDropIndex(ctx: BindContext, n: Raw): BoundStatement {
  void ctx;
  const names = (n.objects as Raw[]).map((o) => {
    const parts = strList(unwrap(o)[1].items);
    const name = parts[parts.length - 1]!;
    return parts.length > 1 ? { schema: parts[parts.length - 2]!, name } : { name };
  });
  return { kind: 'ddl', command: { kind: 'dropIndex', names, ifExists: Boolean(n.missing_ok) } };
}
