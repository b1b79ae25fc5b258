import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { type Expr, Exprs } from '../../exec/index.js';
import {
  LogicalDelete, LogicalFilter, LogicalJoin, type LogicalPlan, LogicalProject, LogicalUpdate,
} from '../../planner/index.js';
import { withChecks } from './bind-check-constraints.js';
import type { BoundStatement } from '../bound-statement.js';
import { positionOf, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindCondition } from './bind-expr.js';
import { bindFromClause, scanRelation, withRowSecurity, type BoundFrom } from './bind-from.js';
import { bindReturning, resolveDmlTarget, tableRowScope, type DmlTarget } from './bind-dml-target.js';
import { bindSetList } from './bind-insert.js';
import { finishDml } from './finish-dml.js';
import type { Scope } from './scope.js';

/** src/lake's ROW_ID_COLUMN: append tables expose each row's id to UPDATE/DELETE (deletion vectors). */
export const rowIdColumn = '_row_id';
const int8: SqlType = { kind: 'int8' };

interface TargetRows {
  /**
   * The rows, once the statement is bound: one that reads the target's rows (WHERE,
   * RETURNING, or SET or anything else reading its columns) sees only those SELECT's
   * policies show, as in PostgreSQL.
   */
  readonly plan: (readsRows: boolean) => LogicalPlan;
  /** The statement reads the rows whatever its expressions name: it has a WHERE or RETURNING. */
  readonly readsRows: boolean;
  readonly scope: Scope;
  /** Table width, plus one when the row id follows. */
  readonly rowWidth: number;
}

/** Scan of the target (plus row id for append tables), joined with FROM/USING items, filtered by WHERE. */
function targetRows(ctx: BindContext, n: Raw, t: DmlTarget, extraFrom: Raw[] | undefined, verb: string): TargetRows {
  const append = t.table.primaryKey.length === 0;
  const correlation = { correlated: false };
  // Row security: the command's own policies; a statement that reads the rows (WHERE, RETURNING) is held to SELECT's too, as in PostgreSQL. TRUNCATE is not subject to it.
  const command = verb === 'UPDATE' ? 'update' : verb === 'DELETE' ? 'delete' : 'none';
  const target = scanRelation(ctx, { kind: 'lake', table: t.table, ...(t.branch !== undefined ? { branch: t.branch } : {}) }, {
    relation: t.relation, colnames: [], travel: undefined, parent: undefined, correlation, location: n.relation,
    ...(append ? { extraColumns: [{ name: rowIdColumn, type: int8 }] } : {}), rowSecurity: command,
  });
  const readsRows = n.whereClause !== undefined || (n.returningList ?? n.returningClause) !== undefined;
  let scope = target.scope;
  let from: BoundFrom | undefined;
  if (extraFrom && extraFrom.length > 0) {
    from = bindFromClause(ctx, extraFrom, undefined, correlation);
    const offset = scope.columns.length;
    scope = { columns: [...scope.columns, ...from.scope.columns.map((c) => ({ ...c, index: c.index + offset }))], correlation };
  }
  let predicate: Expr | undefined;
  if (n.whereClause) {
    if (unwrapCurrentOf(n.whereClause)) throw new FloeError(SqlState.featureNotSupported, `${verb} … WHERE CURRENT OF is not supported`, { position: positionOf(n.whereClause) });
    predicate = bindCondition(ctx, n.whereClause, { scope, clause: 'WHERE' });
  }
  const plan = (reads: boolean): LogicalPlan => {
    let p = command !== 'none' && reads ? withRowSecurity(ctx, t.table, target.plan, 'select') : target.plan;
    if (from !== undefined) p = LogicalJoin.create({ joinType: 'inner', left: p, right: from.plan, columns: [...p.columns, ...from.plan.columns] });
    return predicate === undefined ? p : LogicalFilter.create({ input: p, predicate, columns: p.columns });
  };
  return { plan, readsRows, scope, rowWidth: t.table.columns.length + (append ? 1 : 0) };
}

/** Whether the bound statement reads the target's rows: by its form, or by naming a column of it anywhere. */
function readsTargetRows(ctx: BindContext, rows: TargetRows, t: DmlTarget): boolean {
  return rows.readsRows || ctx.access.readsColumnsOf(t.table.id);
}

/**
 * RETURNING of UPDATE … FROM / DELETE … USING may read the FROM items' columns, as in
 * PostgreSQL: the DML input carries them after its own columns, and RETURNING's row is
 * the written table row followed by them (`returningExtra`).
 */
function returnedFromColumns(n: Raw, rows: TargetRows): { exprs: Expr[]; scope: (t: DmlTarget) => Scope } {
  const returning = (n.returningClause?.exprs ?? n.returningClause ?? n.returningList) as Raw[] | undefined;
  const fromColumns = Array.isArray(returning) && returning.length > 0 ? rows.scope.columns.filter((c) => c.index >= rows.rowWidth) : [];
  const exprs = fromColumns.map((c) => Exprs.column(c.index, c.type, c.name));
  return {
    exprs,
    scope: (t) => {
      const width = t.table.columns.length;
      return { columns: [...tableRowScope(t, t.relation), ...fromColumns.map((c) => ({ ...c, index: width + c.index - rows.rowWidth }))] };
    },
  };
}

function unwrapCurrentOf(node: Raw): boolean {
  return Boolean(node?.CurrentOfExpr);
}

function keepColumns(plan: LogicalPlan, count: number, extra: readonly Expr[] = []): LogicalPlan {
  if (plan.columns.length === count && extra.length === 0) return plan;
  const exprs = [...plan.columns.slice(0, count).map((c, i) => Exprs.column(i, c.type, c.name)), ...extra];
  return LogicalProject.create({
    input: plan, exprs,
    columns: [...plan.columns.slice(0, count), ...extra.map((e, i) => ({ name: `set${i + 1}`, type: e.type }))],
  });
}

export function bindUpdate(ctx: BindContext, n: Raw): BoundStatement {
  if (n.withClause) throw new FloeError(SqlState.featureNotSupported, 'WITH on UPDATE is not supported yet', { position: positionOf(n.withClause) });
  const t = resolveDmlTarget(ctx, n.relation, 'update');
  const rows = targetRows(ctx, n, t, n.fromClause, 'UPDATE');
  let set = bindSetList(ctx, n.targetList as Raw[], t, rows.scope);
  const from = returnedFromColumns(n, rows);
  const returning = bindReturning(ctx, n.returningClause ?? n.returningList, t, from.scope(t));
  const reads = readsTargetRows(ctx, rows, t);
  const target = rows.plan(reads);
  let input: LogicalPlan;
  if (target.columns.length > rows.rowWidth) {
    // SET reads FROM items: compute the new values below and hand them up as extra columns,
    // followed by the FROM items' columns when RETURNING reads them.
    input = keepColumns(target, rows.rowWidth, [...set.map((s) => s.expr), ...from.exprs]);
    set = set.map((s, i) => ({ column: s.column, expr: Exprs.column(rows.rowWidth + i, s.expr.type) }));
  } else {
    input = target;
  }
  const plan = LogicalUpdate.create({
    table: t.ref, ...(t.branch !== undefined ? { ref: t.branch } : {}), input, set,
    ...(returning ? { returning: returning.exprs } : {}), ...withChecks(ctx, t.table, 'update', reads),
    ...(returning && from.exprs.length > 0 ? { returningExtra: rows.rowWidth + set.length } : {}),
    columns: (returning?.columns ?? []).map((c) => ({ name: c.name, type: c.type })),
  });
  return finishDml(ctx, plan, returning?.columns ?? [], (count) => `UPDATE ${count}`);
}

export function bindDelete(ctx: BindContext, n: Raw): BoundStatement {
  if (n.withClause) throw new FloeError(SqlState.featureNotSupported, 'WITH on DELETE is not supported yet', { position: positionOf(n.withClause) });
  const t = resolveDmlTarget(ctx, n.relation, 'delete from');
  const rows = targetRows(ctx, n, t, n.usingClause, 'DELETE');
  const from = returnedFromColumns(n, rows);
  const returning = bindReturning(ctx, n.returningClause ?? n.returningList, t, from.scope(t));
  const plan = LogicalDelete.create({
    table: t.ref, ...(t.branch !== undefined ? { ref: t.branch } : {}), input: keepColumns(rows.plan(readsTargetRows(ctx, rows, t)), rows.rowWidth, from.exprs),
    ...(returning ? { returning: returning.exprs } : {}),
    ...(returning && from.exprs.length > 0 ? { returningExtra: rows.rowWidth } : {}),
    columns: (returning?.columns ?? []).map((c) => ({ name: c.name, type: c.type })),
  });
  return finishDml(ctx, plan, returning?.columns ?? [], (count) => `DELETE ${count}`);
}

/** TRUNCATE t: deletes every row (one table per statement); the tag is PostgreSQL's. */
export function bindTruncate(ctx: BindContext, n: Raw): BoundStatement {
  const rels = (n.relations as Raw[] | undefined) ?? [];
  if (rels.length !== 1) {
    throw new FloeError(SqlState.featureNotSupported, 'TRUNCATE of several tables in one statement is not supported', { position: positionOf(rels[1]) });
  }
  const rv = rels[0].RangeVar ?? rels[0];
  const t = resolveDmlTarget(ctx, rv, 'truncate');
  const rows = targetRows(ctx, { relation: rv }, t, undefined, 'TRUNCATE');
  const plan = LogicalDelete.create({
    table: t.ref, ...(t.branch !== undefined ? { ref: t.branch } : {}), input: keepColumns(rows.plan(false), rows.rowWidth), columns: [],
  });
  return finishDml(ctx, plan, [], () => 'TRUNCATE TABLE');
}
