import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { TableConstraint } from '../../lake/index.js';
import type { ColumnSpec, UniqueSpec } from '../ddl-command.js';
import { positionOf, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { resolveRelation } from './resolve-relation.js';

/** PostgreSQL's CREATE_TABLE_LIKE_* bits (TableLikeOption). */
const LIKE = { constraints: 1 << 2, defaults: 1 << 3, identity: 1 << 5, indexes: 1 << 6 } as const;

export interface BoundTableLike {
  readonly columns: readonly ColumnSpec[];
  /** INCLUDING INDEXES: the source's primary key and UNIQUE constraints (renamed for the new table by the session). */
  readonly primaryKey: readonly string[];
  readonly unique: readonly UniqueSpec[];
  /** INCLUDING CONSTRAINTS: the source's CHECK constraints, names kept, as PostgreSQL keeps them. */
  readonly checks: readonly TableConstraint[];
}

/**
 * `LIKE source [INCLUDING …]` in CREATE TABLE: the source's column names, types and
 * NOT NULL always; defaults, identity, CHECKs and the key as the options ask. A view's or
 * catalog relation's columns can be copied too (names and types only). Comments are not copied.
 */
export function bindTableLike(ctx: BindContext, like: Raw): BoundTableLike {
  const rv = like.relation;
  const options = Number(like.options ?? 0);
  const rel = resolveRelation(ctx, rv.schemaname, rv.relname, positionOf(rv));
  if (rel.kind === 'view' || rel.kind === 'virtual') {
    const cols = rel.kind === 'view' ? rel.view.columns : rel.table.columns;
    return { columns: cols.map((c) => ({ name: c.name, type: c.type, nullable: true })), primaryKey: [], unique: [], checks: [] };
  }
  if (rel.branch !== undefined) throw new FloeError(SqlState.featureNotSupported, 'LIKE of a branch is not supported: name the table', { position: positionOf(rv) });
  const t = rel.table;
  const columns: ColumnSpec[] = t.columns.map((c) => ({
    name: c.name, type: c.type, nullable: c.nullable && !t.primaryKey.includes(c.name),
    ...((options & LIKE.defaults) !== 0 && c.defaultExpr !== undefined ? { defaultExpr: c.defaultExpr } : {}),
    ...((options & LIKE.identity) !== 0 && c.identity !== undefined ? { sequence: { kind: c.identity.generation, options: {} } } : {}),
  }));
  const indexes = (options & LIKE.indexes) !== 0;
  const constraints = t.constraints ?? [];
  return {
    columns,
    primaryKey: indexes ? t.primaryKey : [],
    unique: indexes
      ? constraints.flatMap((k) => (k.kind === 'unique' ? [{ columns: k.columns, nullsNotDistinct: k.nullsNotDistinct === true }] : []))
      : [],
    checks: (options & LIKE.constraints) !== 0 ? constraints.filter((k) => k.kind === 'check') : [],
  };
}
