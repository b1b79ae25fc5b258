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
import { bindFromClause, scanRelation, withRowSecurity } from './bind-from.js';
import { bindReturning, resolveDmlTarget, tableRowScope, type DmlTarget } from './bind-dml-target.js';
import { bindSetList } from './bind-insert.js';
import { finishDml } from './finish-dml.js';
import type { Scope } from './scope.js';

/** src/lake's ROW_ID_COLUMN: append tables expose each row's id to UPDATE/DELETE (deletion vectors). */
export const rowIdColumn = '_row_id';
const int8: SqlType = { kind: 'int8' };

interface TargetRows {
  readonly plan: LogicalPlan;
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
  const reads = n.whereClause !== undefined || (n.returningList ?? n.returningClause) !== undefined;
  let plan = command !== 'none' && reads ? withRowSecurity(ctx, t.table, target.plan, 'select') : target.plan;
  let scope = target.scope;
  if (extraFrom && extraFrom.length > 0) {
    const from = bindFromClause(ctx, extraFrom, undefined, correlation);
    const offset = scope.columns.length;
    plan = LogicalJoin.create({ joinType: 'inner', left: plan, right: from.plan, columns: [...plan.columns, ...from.plan.columns] });
    scope = { columns: [...scope.columns, ...from.scope.columns.map((c) => ({ ...c, index: c.index + offset }))], correlation };
  }
  if (n.whereClause) {
    if (unwrapCurrentOf(n.whereClause)) throw new FloeError(SqlState.featureNotSupported, `${verb} … WHERE CURRENT OF is not supported`, { position: positionOf(n.whereClause) });
    const predicate = bindCondition(ctx, n.whereClause, { scope, clause: 'WHERE' });
    plan = LogicalFilter.create({ input: plan, predicate, columns: plan.columns });
  }
  return { plan, scope, rowWidth: t.table.columns.length + (append ? 1 : 0) };
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
  let input: LogicalPlan;
  if (rows.plan.columns.length > rows.rowWidth) {
    // SET reads FROM items: compute the new values below and hand them up as extra columns,
    // followed by the FROM items' columns when RETURNING reads them.
    input = keepColumns(rows.plan, rows.rowWidth, [...set.map((s) => s.expr), ...from.exprs]);
    set = set.map((s, i) => ({ column: s.column, expr: Exprs.column(rows.rowWidth + i, s.expr.type) }));
  } else {
    input = rows.plan;
  }
  const returning = bindReturning(ctx, n.returningClause ?? n.returningList, t, from.scope(t));
  const plan = LogicalUpdate.create({
    table: t.ref, ...(t.branch !== undefined ? { ref: t.branch } : {}), input, set,
    ...(returning ? { returning: returning.exprs } : {}), ...withChecks(ctx, t.table, 'update'),
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
    table: t.ref, ...(t.branch !== undefined ? { ref: t.branch } : {}), input: keepColumns(rows.plan, rows.rowWidth, from.exprs),
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
    table: t.ref, ...(t.branch !== undefined ? { ref: t.branch } : {}), input: keepColumns(rows.plan, rows.rowWidth), columns: [],
  });
  return finishDml(ctx, plan, [], () => 'TRUNCATE TABLE');
}
