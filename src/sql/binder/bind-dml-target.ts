import { FloeError } from '../../common/floe-error.js';
import { AclRight } from '../../lake/index.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { type Expr, Exprs, type LakeTableRef } from '../../exec/index.js';
import type { CatalogTable } from '../bind-env.js';
import type { ResultColumn } from '../result-column.js';
import { parseFragment } from '../parser/pg-parser.js';
import { positionOf, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import type { ExprScope } from './expr-scope.js';
import { coerceTo, resolveUnknown } from './coerce.js';
import { figureColumnName } from './figure-column-name.js';
import { resolveRelation } from './resolve-relation.js';
import type { Scope, ScopeColumn } from './scope.js';

/** The table an INSERT/UPDATE/DELETE/COPY FROM writes, with the branch a `t$branch_b` name selects. */
export interface DmlTarget {
  readonly table: CatalogTable;
  readonly ref: LakeTableRef;
  readonly branch?: string;
  /** The name the statement's expressions use for it (alias or table name). */
  readonly relation: string;
}

/** The right each statement needs on its target; MERGE's come from its actions (bind-merge.ts). */
const VERB_RIGHTS: Readonly<Record<string, number>> = {
  'insert into': AclRight.insert, 'copy into': AclRight.insert, update: AclRight.update, 'delete from': AclRight.delete, truncate: AclRight.truncate,
  'merge into': 0,
};

/** Records the columns an INSERT (or COPY FROM, or MERGE's INSERT) fills, for column privileges. */
export function noteInsertedColumns(ctx: BindContext, t: DmlTarget, columns: readonly number[]): void {
  ctx.access.relation({ id: t.table.id, kind: 'table', namespace: t.table.namespace, name: t.table.name }, AclRight.insert, ctx.enclosingView);
  for (const c of columns) ctx.access.inserted(t.table.id, c + 1);
}

export function resolveDmlTarget(ctx: BindContext, rv: Raw, verb: string): DmlTarget {
  const travel = ctx.stmt.lake.find((c) => c.kind === 'timeTravel' && c.tableLocation === rv.location);
  if (travel) {
    throw new FloeError(SqlState.featureNotSupported, `cannot ${verb} a table as of a past snapshot or version`, {
      position: travel.location + 1, hint: 'Write to a branch (t$branch_name) instead.',
    });
  }
  const rel = resolveRelation(ctx, rv.schemaname, rv.relname, positionOf(rv));
  if (rel.kind === 'view') {
    throw new FloeError(SqlState.featureNotSupported, `cannot ${verb} view "${rv.relname}"`, {
      position: positionOf(rv), detail: 'Floe views are read-only.', hint: `Write to the view's table instead.`,
    });
  }
  if (rel.kind !== 'lake') {
    throw new FloeError(SqlState.wrongObjectType, `cannot ${verb} relation "${rv.relname}"`, {
      position: positionOf(rv), detail: 'System catalogs and system tables are read-only.',
    });
  }
  if (ctx.env.warehouse.getMaterializedView?.(rel.table.id) !== undefined && ctx.env.maintainsView !== rel.table.id) {
    throw new FloeError(SqlState.wrongObjectType, verb === 'truncate' ? `"${rv.relname}" is not a table` : `cannot change materialized view "${rv.relname}"`, { position: positionOf(rv) });
  }
  const right = VERB_RIGHTS[verb];
  if (right !== undefined) ctx.access.relation({ id: rel.table.id, kind: 'table', namespace: rel.table.namespace, name: rel.table.name }, right, ctx.enclosingView);
  return {
    table: rel.table, ref: { id: rel.table.id, namespace: rel.table.namespace, name: rel.table.name },
    ...(rel.branch !== undefined ? { branch: rel.branch } : {}),
    relation: (rv.alias?.aliasname as string | undefined) ?? rv.relname,
  };
}

/** Scope over a full table row (RETURNING, ON CONFLICT's existing row). */
export function tableRowScope(t: DmlTarget, relation: string, offset = 0): ScopeColumn[] {
  return t.table.columns.map((c, i) => ({
    name: c.name, relation, schema: t.table.namespace, index: offset + i, type: c.type, tableOid: t.table.id, columnNumber: i + 1,
  }));
}

export function columnIndex(t: DmlTarget, name: string, node: Raw): number {
  const i = t.table.columns.findIndex((c) => c.name === name);
  if (i < 0) {
    throw new FloeError(SqlState.undefinedColumn, `column "${name}" of relation "${t.table.name}" does not exist`, { position: positionOf(node) });
  }
  return i;
}

/** A column's DEFAULT (bound from its SQL text), or a typed NULL. */
export function defaultValue(ctx: BindContext, t: DmlTarget, column: number): Expr {
  const col = t.table.columns[column]!;
  // An identity column's default is nextval of its sequence.
  const text = col.identity !== undefined ? `nextval(${col.identity.sequenceId}::regclass)` : col.defaultExpr;
  if (text === undefined || text === '') return Exprs.literal(null, col.type);
  const select = parseFragment('SELECT ', text, 0);
  const val = unwrap(unwrap(select)[1].targetList[0])[1].val;
  // Locations refer to the default's own text, not the statement: drop them from errors.
  try {
    return coerceTo(ctx, bindExpr(ctx, val, { scope: { columns: [] }, clause: 'DEFAULT expressions' }), col.type, 'assignment');
  } catch (e) {
    if (e instanceof FloeError) throw new FloeError(e.sqlstate, `${e.message} (in the default of column "${col.name}")`);
    throw e;
  }
}

/** Binds a RETURNING list over the written row; returns the expressions and the result columns. */
export function bindReturning(
  ctx: BindContext, returning: Raw, t: DmlTarget, scope: Scope,
): { exprs: Expr[]; columns: ResultColumn[] } | undefined {
  const items = (returning?.exprs ?? returning) as Raw[] | undefined;
  if (!items || !Array.isArray(items) || items.length === 0) return undefined;
  const es: ExprScope = { scope, clause: 'RETURNING' };
  const exprs: Expr[] = [];
  const columns: ResultColumn[] = [];
  for (const item of items) {
    const rt = unwrap(item)[1];
    const [vtag, v] = unwrap(rt.val);
    if (vtag === 'ColumnRef' && (v.fields as Raw[]).some((f: Raw) => f.A_Star)) {
      // `*`: every column in scope (the table's, then UPDATE FROM / DELETE USING items'); `p.*`: p's.
      const qualifier = (v.fields as Raw[]).slice(0, -1).map((f: Raw) => f.String?.sval as string);
      const relation = qualifier[qualifier.length - 1];
      const picked = scope.columns.filter((c) => !c.hidden && (relation === undefined || c.relation === relation));
      if (relation !== undefined && picked.length === 0) {
        throw new FloeError(SqlState.undefinedTable, `missing FROM-clause entry for table "${relation}"`, { position: positionOf(rt.val) });
      }
      for (const c of picked) {
        exprs.push(Exprs.column(c.index, c.type, c.name));
        columns.push({ name: c.name, type: c.type, tableOid: c.tableOid, columnNumber: c.columnNumber });
      }
      continue;
    }
    const e = resolveUnknown(ctx, bindExpr(ctx, rt.val, es));
    exprs.push(e);
    const direct = e.kind === 'column' && vtag === 'ColumnRef' ? scope.columns.find((c) => c.index === e.index) : undefined;
    columns.push({
      name: rt.name ?? figureColumnName(rt.val), type: e.type,
      tableOid: direct?.tableOid ?? 0, columnNumber: direct?.columnNumber ?? 0,
    });
  }
  return { exprs, columns };
}

export function assignmentTarget(rt: Raw): string {
  if (rt.indirection?.length) {
    throw new FloeError(SqlState.featureNotSupported, 'assignment to a subfield or array element is not supported', { position: positionOf(rt) });
  }
  return rt.name as string;
}

export type { SqlType };
