import { FloeError } from '../../common/floe-error.js';
import { AclRight } from '../../lake/index.js';
import { SqlState } from '../../common/sqlstate.js';
import { type Expr, Exprs, type InsertPlan } from '../../exec/index.js';
import { bindCheckConstraints, bindConflictRowChecks, withChecks } from './bind-check-constraints.js';
import { LogicalInsert, type LogicalPlan, LogicalProject, LogicalValues } from '../../planner/index.js';
import type { BoundStatement } from '../bound-statement.js';
import { positionOf, str, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindCondition, bindExpr } from './bind-expr.js';
import { bindSelect, bindValues, defaultMarkerValue } from './bind-query.js';
import { coerceTo } from './coerce.js';
import {
  assignmentTarget, bindReturning, columnIndex, defaultValue, noteInsertedColumns, resolveDmlTarget, tableRowScope, type DmlTarget,
} from './bind-dml-target.js';
import { finishDml } from './finish-dml.js';
import { checkIdentityUpdate, insertedValueUse, overridingOf } from './identity-columns.js';
import { bindConflictArbiter } from './bind-conflict-arbiter.js';
import { bindSubscriptAssignment } from './bind-subscript-assignment.js';

export function bindInsert(ctx: BindContext, n: Raw): BoundStatement {
  if (n.withClause) throw new FloeError(SqlState.featureNotSupported, 'WITH on INSERT is not supported yet', { position: positionOf(n.withClause) });
  const t = resolveDmlTarget(ctx, n.relation, 'insert into');
  const cols = ((n.cols as Raw[] | undefined) ?? []).map((c) => {
    const rt = unwrap(c)[1];
    return { index: columnIndex(t, assignmentTarget(rt), c), node: c };
  });
  const seen = new Set<number>();
  for (const c of cols) {
    if (seen.has(c.index)) {
      throw new FloeError(SqlState.duplicateColumn, `column "${t.table.columns[c.index]!.name}" specified more than once`, { position: positionOf(c.node) });
    }
    seen.add(c.index);
  }
  let targets = cols.length > 0 ? cols.map((c) => c.index) : t.table.columns.map((_c, i) => i);
  const sel0 = n.selectStmt ? unwrap(n.selectStmt)[1] : undefined;
  if (cols.length === 0 && sel0?.valuesLists) {
    // Without a column list, VALUES may give fewer values than columns: the rest take their defaults.
    const widest = Math.max(...(sel0.valuesLists as Raw[]).map((l) => (unwrap(l)[1].items as Raw[]).length));
    if (widest < targets.length) targets = targets.slice(0, widest);
  }
  noteInsertedColumns(ctx, t, targets);
  const targetTypes = targets.map((i) => t.table.columns[i]!.type);
  const overriding = overridingOf(n.override as string | undefined);

  let input: LogicalPlan;
  const sel = n.selectStmt ? unwrap(n.selectStmt)[1] : undefined;
  if (!sel) {
    input = LogicalValues.create({ rows: [t.table.columns.map((_c, i) => defaultValue(ctx, t, i))], columns: tableColumns(t) });
  } else {
    const plainValues = sel.valuesLists && !sel.sortClause && !sel.limitCount && !sel.limitOffset && !sel.withClause;
    const source = plainValues
      ? bindValues(ctx, sel.valuesLists, undefined, { correlated: false }, arity(ctx, sel.valuesLists, targetTypes, n))
      : bindSelect(ctx, sel, undefined, { correlated: false });
    if (source.columns.length > targets.length) {
      throw new FloeError(SqlState.syntaxError, 'INSERT has more expressions than target columns', { position: positionOf(n.selectStmt) });
    }
    if (source.columns.length < targets.length && cols.length === 0) {
      // Without a column list the query fills the leading columns; the rest take their defaults.
      targets = targets.slice(0, source.columns.length);
    }
    if (source.columns.length < targets.length) {
      throw new FloeError(SqlState.syntaxError, 'INSERT has more target columns than expressions', { position: positionOf(cols[source.columns.length]?.node ?? n.relation) });
    }
    if (plainValues && source.plan.kind === 'values') {
      // Full table rows straight from VALUES, DEFAULT markers and omitted columns filled with defaults.
      const rows = source.plan.rows.map((row) => t.table.columns.map((_c, i) => {
        const k = targets.indexOf(i);
        const e = k >= 0 ? row[k]! : undefined;
        if (e === undefined || (e.kind === 'literal' && e.value === defaultMarkerValue)) return defaultValue(ctx, t, i);
        if (insertedValueUse(t, i, overriding) === 'default') return defaultValue(ctx, t, i);
        return coerceTo(ctx, e, t.table.columns[i]!.type, 'assignment');
      }));
      input = LogicalValues.create({ rows, columns: tableColumns(t) });
    } else {
      const exprs = t.table.columns.map((c, i) => {
        const k = targets.indexOf(i);
        if (k < 0 || insertedValueUse(t, i, overriding) === 'default') return defaultValue(ctx, t, i);
        return coerceTo(ctx, Exprs.column(k, source.columns[k]!.type, source.columns[k]!.name), c.type, 'assignment');
      });
      input = LogicalProject.create({ input: source.plan, exprs, columns: tableColumns(t) });
    }
  }

  const onConflict = n.onConflictClause ? bindOnConflict(ctx, n.onConflictClause, t) : undefined;
  const returning = bindReturning(ctx, n.returningClause ?? n.returningList, t, { columns: tableRowScope(t, t.relation) });
  const plan = LogicalInsert.create({
    table: t.ref, ...(t.branch !== undefined ? { ref: t.branch } : {}), input,
    ...(onConflict ? { onConflict } : {}), ...(returning ? { returning: returning.exprs } : {}),
    // RETURNING and DO UPDATE read the rows written: they must be visible to the user (SELECT's policies).
    ...withChecks(ctx, t.table, 'insert', returning !== undefined || onConflict?.action === 'update'),
    columns: (returning?.columns ?? []).map((c) => ({ name: c.name, type: c.type })),
  });
  return finishDml(ctx, plan, returning?.columns ?? [], (count) => `INSERT 0 ${count}`);
}

function tableColumns(t: DmlTarget): { name: string; type: import('../../common/sql-type.js').SqlType }[] {
  return t.table.columns.map((c) => ({ name: c.name, type: c.type }));
}

/** VALUES rows shorter than the target list are an error PostgreSQL reports on the row; longer ones too. */
function arity(ctx: BindContext, lists: readonly Raw[], types: readonly import('../../common/sql-type.js').SqlType[], n: Raw): typeof types {
  void ctx;
  for (const l of lists) {
    const items = unwrap(l)[1].items as Raw[];
    if (items.length > types.length) throw new FloeError(SqlState.syntaxError, 'INSERT has more expressions than target columns', { position: positionOf(items[types.length]) });
    if (items.length < types.length) throw new FloeError(SqlState.syntaxError, 'INSERT has more target columns than expressions', { position: positionOf(n.relation) });
  }
  return types;
}

function bindOnConflict(ctx: BindContext, oc: Raw, t: DmlTarget): InsertPlan['onConflict'] {
  const arbiter = bindConflictArbiter(oc, t.table);
  if (oc.action === 'ONCONFLICT_NOTHING') return { action: 'nothing', arbiter };
  if (arbiter.kind === 'any') {
    throw new FloeError(SqlState.syntaxError, 'ON CONFLICT DO UPDATE requires inference specification or constraint name', {
      position: positionOf(oc), hint: 'For example, ON CONFLICT (column_name).',
    });
  }
  const width = t.table.columns.length;
  // SET and WHERE see the existing row (by the table's name or alias) and EXCLUDED (the proposed row).
  // EXCLUDED's columns carry no table origin: reading them needs no SELECT privilege, as PostgreSQL's EXCLUDED range entry asks for none.
  const scope = { columns: [...tableRowScope(t, t.relation), ...tableRowScope(t, 'excluded', width).map((c) => ({ ...c, tableOid: 0, columnNumber: 0 }))] };
  const set = bindSetList(ctx, oc.targetList as Raw[], t, scope);
  const where = oc.whereClause ? bindCondition(ctx, oc.whereClause, { scope, clause: 'WHERE' }) : undefined;
  const conflictChecks = bindConflictRowChecks(ctx, t.table);
  const updateChecks = bindCheckConstraints(ctx, t.table, 'update', true);
  return {
    action: 'update', arbiter, set, ...(where ? { where } : {}),
    ...(conflictChecks ? { conflictChecks } : {}), ...(updateChecks ? { updateChecks } : {}),
  };
}

/** UPDATE SET / DO UPDATE SET items (including `(a, b) = (x, y)`), coerced to the column types. */
export function bindSetList(
  ctx: BindContext, targetList: readonly Raw[], t: DmlTarget, scope: import('./scope.js').Scope,
): { column: number; expr: Expr }[] {
  const out: { column: number; expr: Expr }[] = [];
  const subscripted = new Set<number>();
  for (const item of targetList) {
    const rt = unwrap(item)[1];
    if (rt.indirection?.length) {
      // col[…] = v; several on one column apply in order, as in PostgreSQL.
      const column = columnIndex(t, rt.name as string, item);
      const earlier = out.findIndex((s) => s.column === column);
      if (earlier >= 0 && !subscripted.has(column)) throw new FloeError(SqlState.syntaxError, `multiple assignments to same column "${rt.name}"`, { position: positionOf(item) });
      const c = t.table.columns[column]!;
      // The target row's column as this SET list's scope places it (MERGE puts the source row first).
      const own = scope.columns.find((x) => x.relation === t.relation && x.tableOid === t.table.id && x.columnNumber === column + 1);
      const current = earlier >= 0 ? out[earlier]!.expr : Exprs.column(own?.index ?? column, c.type, c.name);
      const expr = bindSubscriptAssignment(ctx, rt, c, current, scope);
      if (earlier >= 0) out[earlier] = { column, expr };
      else out.push({ column, expr });
      subscripted.add(column);
      continue;
    }
    const column = columnIndex(t, assignmentTarget(rt), item);
    if (out.some((s) => s.column === column)) {
      throw new FloeError(SqlState.syntaxError, `multiple assignments to same column "${rt.name}"`, { position: positionOf(item) });
    }
    let val = rt.val;
    const [vtag, v] = unwrap(val);
    if (vtag === 'MultiAssignRef') {
      const [stag, s] = unwrap(v.source);
      if (stag !== 'RowExpr') throw new FloeError(SqlState.featureNotSupported, 'SET (…) = (SELECT …) is not supported', { position: positionOf(v.source) });
      val = s.args[v.colno - 1];
    }
    checkIdentityUpdate(t, column, unwrap(val)[0] === 'SetToDefault');
    const expr = unwrap(val)[0] === 'SetToDefault'
      ? defaultValue(ctx, t, column)
      : coerceTo(ctx, bindExpr(ctx, val, { scope, clause: 'UPDATE' }), t.table.columns[column]!.type, 'assignment', positionOf(val));
    out.push({ column, expr });
  }
  void str;
  ctx.access.relation({ id: t.table.id, kind: 'table', namespace: t.table.namespace, name: t.table.name }, AclRight.update, ctx.enclosingView);
  for (const s of out) ctx.access.updated(t.table.id, s.column + 1);
  return out;
}
