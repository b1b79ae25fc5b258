import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import type { UniqueSpec } from '../ddl-command.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { qualifyExisting } from './resolve-relation.js';

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

/** CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON t [USING btree] (col, …) [NULLS [NOT] DISTINCT]. */
export function bindCreateIndex(ctx: BindContext, n: Raw): BoundStatement {
  const rv = n.relation;
  const table = qualifyExisting(ctx, rv.schemaname, rv.relname);
  const columns = ((n.indexParams as Raw[] | undefined) ?? []).map((p) => {
    const e = unwrap(p)[1];
    if (!e.name) throw new FloeError(SqlState.featureNotSupported, 'indexes on expressions are not supported', { position: positionOf(e.expr) });
    return e.name as string;
  });
  if (n.whereClause || n.indexIncludingParams?.length) {
    throw new FloeError(SqlState.featureNotSupported, 'partial indexes and INCLUDE columns are not supported', { position: positionOf(rv) });
  }
  const method = ((n.accessMethod as string | undefined) ?? 'btree').toLowerCase();
  if (method !== 'btree' && method !== 'hash') {
    throw new FloeError(SqlState.featureNotSupported, `access method "${method}" is not supported`, { hint: 'Floe builds btree and hash indexes (as per-file filters).', position: positionOf(rv) });
  }
  if (n.unique && method !== 'btree') throw new FloeError(SqlState.featureNotSupported, `access method "${method}" does not support unique indexes`);
  return {
    kind: 'ddl',
    command: {
      kind: 'createIndex', table, ...(n.idxname ? { name: n.idxname as string } : {}), columns: columns.filter((c) => c !== ''),
      unique: Boolean(n.unique), nullsNotDistinct: Boolean(n.nulls_not_distinct), ifNotExists: Boolean(n.if_not_exists), method,
    },
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
