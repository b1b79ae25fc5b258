import { FloeError } from '../../common/floe-error.js';
import { AclRight } from '../../lake/index.js';
import { SqlState } from '../../common/sqlstate.js';
import { type Expr, Exprs, type MergeAction } from '../../exec/index.js';
import { LogicalJoin, LogicalMerge, type LogicalPlan, LogicalProject } from '../../planner/index.js';
import { withChecks } from './bind-check-constraints.js';
import type { BoundStatement } from '../bound-statement.js';
import type { ResultColumn } from '../result-column.js';
import { positionOf, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindCondition, bindExpr } from './bind-expr.js';
import { bindFromItem, scanRelation } from './bind-from.js';
import { assignmentTarget, columnIndex, defaultValue, noteInsertedColumns, resolveDmlTarget, tableRowScope } from './bind-dml-target.js';
import { bindSetList } from './bind-insert.js';
import { coerceTo, resolveUnknown } from './coerce.js';
import { figureColumnName } from './figure-column-name.js';
import { finishDml } from './finish-dml.js';
import { rowIdColumn } from './bind-update-delete.js';
import type { Scope, ScopeColumn } from './scope.js';

const bool = { kind: 'bool' } as const;

/** A plan's columns plus a trailing `true` marker, which an outer join turns into NULL where the side is missing. */
function withMarker(plan: LogicalPlan, name: string): LogicalPlan {
  return LogicalProject.create({
    input: plan,
    exprs: [...plan.columns.map((c, i) => Exprs.column(i, c.type, c.name)), Exprs.literal(true, bool)],
    columns: [...plan.columns, { name, type: bool }],
  });
}

/** `merge_action()` as a whole RETURNING item (PostgreSQL 17 parses it as MergeSupportFunc). */
function isMergeAction([tag, v]: [string, Raw]): boolean {
  return tag === 'MergeSupportFunc' || (tag === 'FuncCall' && (v.funcname as Raw[]).map((x: Raw) => x.String?.sval).pop() === 'merge_action');
}

/**
 * MERGE INTO target USING source ON cond WHEN … (PostgreSQL 17's grammar, first
 * matching clause wins). Source and target are joined (inner / left / full as
 * the clauses need); EXEC's merge sink applies the actions and raises 21000
 * when a target row is matched twice.
 */
export function bindMerge(ctx: BindContext, n: Raw): BoundStatement {
  if (n.withClause) throw new FloeError(SqlState.featureNotSupported, 'WITH on MERGE is not supported yet', { position: positionOf(n.withClause) });
  const t = resolveDmlTarget(ctx, n.relation, 'merge into');
  const width = t.table.columns.length;
  const append = t.table.primaryKey.length === 0;
  const correlation = { correlated: false };
  const source = bindFromItem(ctx, n.sourceRelation, undefined, correlation);
  const sw = source.plan.columns.length;
  const target = scanRelation(ctx, { kind: 'lake', table: t.table, ...(t.branch !== undefined ? { branch: t.branch } : {}) }, {
    relation: t.relation, colnames: [], travel: undefined, parent: undefined, correlation, location: n.relation,
    ...(append ? { extraColumns: [{ name: rowIdColumn, type: { kind: 'int8' } }] } : {}),
  });
  const tw = target.plan.columns.length;

  const clauses = ((n.mergeWhenClauses as Raw[] | undefined) ?? []).map((c) => unwrap(c)[1]);
  const bySource = clauses.some((c) => c.matchKind === 'MERGE_WHEN_NOT_MATCHED_BY_SOURCE');
  const byTarget = clauses.some((c) => c.matchKind === 'MERGE_WHEN_NOT_MATCHED_BY_TARGET');
  const joinType = bySource && byTarget ? 'full' : bySource ? 'right' : byTarget ? 'left' : 'inner';

  // ON sees source columns, then (after the source marker) the target's.
  const shift = (cols: readonly ScopeColumn[], by: number): ScopeColumn[] => cols.map((c) => ({ ...c, index: c.index + by }));
  const onScope: Scope = { columns: [...source.scope.columns, ...shift(target.scope.columns, sw + 1)], correlation };
  const condition = bindCondition(ctx, n.joinCondition, { scope: onScope, clause: 'JOIN/ON' });
  const join = LogicalJoin.create({
    joinType, left: withMarker(source.plan, 'source_present'), right: withMarker(target.plan, 'target_present'), condition,
    columns: [...source.plan.columns, { name: 'source_present', type: bool }, ...target.plan.columns, { name: 'target_present', type: bool }],
  });
  const srcMarker = sw;
  const tgtMarker = sw + 1 + tw;
  // merge_action() names the clause each row takes: the first whose kind and condition hold (as the sink decides).
  // When RETURNING asks for it, it travels as one more source column, so the sink returns it with the source row.
  const ret = (n.returningClause?.exprs ?? n.returningList) as Raw[] | undefined;
  const wantsAction = (ret ?? []).some((item) => isMergeAction(unwrap(unwrap(item)[1].val)));
  const srcHere = Exprs.isNotNull(Exprs.column(srcMarker, bool));
  const tgtHere = Exprs.isNotNull(Exprs.column(tgtMarker, bool));
  const text = { kind: 'text' } as const;
  const actionWhens = !wantsAction ? [] : clauses.map((c) => {
    const kind = c.matchKind === 'MERGE_WHEN_MATCHED' ? Exprs.and(srcHere, tgtHere)
      : c.matchKind === 'MERGE_WHEN_NOT_MATCHED_BY_SOURCE' ? Exprs.and(Exprs.not(srcHere), tgtHere) : Exprs.and(srcHere, Exprs.not(tgtHere));
    const cond = c.condition ? bindCondition(ctx, c.condition, { scope: onScope, clause: 'WHEN' }) : undefined;
    const name = ({ CMD_UPDATE: 'UPDATE', CMD_DELETE: 'DELETE', CMD_INSERT: 'INSERT' } as Record<string, string>)[c.commandType as string];
    return { when: cond ? Exprs.and(kind, cond) : kind, then: Exprs.literal(name ?? null, text) };
  });
  const actionName: Expr = actionWhens.length > 0 ? { kind: 'case', whens: actionWhens, type: text } : Exprs.literal(null, text);
  const input = LogicalProject.create({
    input: join,
    exprs: [
      ...source.plan.columns.map((c, i) => Exprs.column(i, c.type, c.name)),
      ...(wantsAction ? [actionName] : []),
      ...target.plan.columns.map((c, i) => Exprs.column(sw + 1 + i, c.type, c.name)),
      srcHere,
      tgtHere,
    ],
    columns: [...source.plan.columns, ...(wantsAction ? [{ name: 'merge_action', type: text }] : []), ...target.plan.columns, { name: 'source_present', type: bool }, { name: 'target_present', type: bool }],
  });
  const sinkSourceWidth = wantsAction ? sw + 1 : sw;

  // Actions see source columns then the target row.
  const actionScope: Scope = { columns: [...source.scope.columns, ...shift(target.scope.columns, sinkSourceWidth)], correlation };
  const actions: MergeAction[] = clauses.map((c): MergeAction => {
    const match = c.matchKind === 'MERGE_WHEN_MATCHED' ? 'matched' : c.matchKind === 'MERGE_WHEN_NOT_MATCHED_BY_SOURCE' ? 'notMatchedBySource' : 'notMatchedByTarget';
    const cond = c.condition ? bindCondition(ctx, c.condition, { scope: actionScope, clause: 'WHEN' }) : undefined;
    const base = { match, ...(cond ? { condition: cond } : {}) } as const;
    switch (c.commandType as string) {
      case 'CMD_NOTHING': return { ...base, action: { kind: 'nothing' } };
      case 'CMD_DELETE':
        ctx.access.relation({ id: t.table.id, kind: 'table', namespace: t.table.namespace, name: t.table.name }, AclRight.delete, ctx.enclosingView);
        return { ...base, action: { kind: 'delete' } };
      case 'CMD_UPDATE': return { ...base, action: { kind: 'update', set: bindSetList(ctx, c.targetList as Raw[], t, actionScope) } };
      case 'CMD_INSERT': {
        const cols = ((c.targetList as Raw[] | undefined) ?? []).map((rt) => columnIndex(t, assignmentTarget(unwrap(rt)[1]), rt));
        const values = (c.values as Raw[] | undefined) ?? [];
        const targets = cols.length > 0 ? cols : t.table.columns.map((_x, i) => i).slice(0, values.length);
        noteInsertedColumns(ctx, t, targets);
        if (values.length !== targets.length) {
          throw new FloeError(SqlState.syntaxError, values.length > targets.length ? 'INSERT has more expressions than target columns' : 'INSERT has more target columns than expressions', { position: positionOf(c.values?.[0] ?? n.relation) });
        }
        // INSERT in MERGE reads only the source row.
        const sourceOnly: Scope = { columns: source.scope.columns, correlation };
        const row: Expr[] = t.table.columns.map((col, i) => {
          const k = targets.indexOf(i);
          if (k < 0 || unwrap(values[k])[0] === 'SetToDefault') return defaultValue(ctx, t, i);
          return coerceTo(ctx, bindExpr(ctx, values[k], { scope: sourceOnly, clause: 'VALUES' }), col.type, 'assignment', positionOf(values[k]));
        });
        return { ...base, action: { kind: 'insert', values: row } };
      }
      default:
        throw new FloeError(SqlState.featureNotSupported, `MERGE action ${c.commandType} is not supported`);
    }
  });

  // RETURNING sees the source row and the written target row (EXEC's merge sink returns source ++ row).
  let returning: { exprs: Expr[]; columns: ResultColumn[] } | undefined;
  if (ret && ret.length > 0) {
    const scope: Scope = { columns: [...source.scope.columns, ...tableRowScope(t, t.relation, sinkSourceWidth)] };
    const exprs: Expr[] = [];
    const columns: ResultColumn[] = [];
    for (const item of ret) {
      const rt = unwrap(item)[1];
      const [vtag, v] = unwrap(rt.val);
      if (vtag === 'ColumnRef' && (v.fields as Raw[]).some((f: Raw) => f.A_Star)) {
        // `*` is every source then target column; `s.*` / `t.*` only that relation's.
        const fields = v.fields as Raw[];
        const qualifier = fields.length > 1 ? (fields[fields.length - 2]!.String?.sval as string | undefined) : undefined;
        const picked = scope.columns.filter((c) => !c.hidden && (qualifier === undefined || c.relation === qualifier));
        if (qualifier !== undefined && picked.length === 0) {
          throw new FloeError(SqlState.undefinedTable, `missing FROM-clause entry for table "${qualifier}"`, { position: positionOf(rt.val) });
        }
        for (const c of picked) {
          exprs.push(Exprs.column(c.index, c.type, c.name));
          columns.push({ name: c.name, type: c.type, tableOid: c.tableOid, columnNumber: c.columnNumber });
        }
        continue;
      }
      if (isMergeAction([vtag, v])) {
        exprs.push(Exprs.column(sw, text, 'merge_action'));
        columns.push({ name: rt.name ?? 'merge_action', type: text, tableOid: 0, columnNumber: 0 });
        continue;
      }
      const e = resolveUnknown(ctx, bindExpr(ctx, rt.val, { scope, clause: 'RETURNING' }));
      exprs.push(e);
      columns.push({ name: rt.name ?? figureColumnName(rt.val), type: e.type, tableOid: 0, columnNumber: 0 });
    }
    returning = { exprs, columns };
  }

  const plan = LogicalMerge.create({
    table: t.ref, ...(t.branch !== undefined ? { ref: t.branch } : {}), input,
    sourceWidth: sinkSourceWidth, sourcePresent: sinkSourceWidth + tw, targetPresent: sinkSourceWidth + tw + 1, actions,
    ...(returning ? { returning: returning.exprs } : {}), ...withChecks(ctx, t.table, 'merge'),
    columns: (returning?.columns ?? []).map((c) => ({ name: c.name, type: c.type })),
  });
  void width;
  return finishDml(ctx, plan, returning?.columns ?? [], (count) => `MERGE ${count}`);
}
