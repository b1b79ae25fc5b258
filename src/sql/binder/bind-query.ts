import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatType, type SqlType } from '../../common/sql-type.js';
import {
  commonSupertype, type Expr, Exprs, listFunctions, type OutputColumn, resolveFunction, type SetFunctionCall,
  setFunctionColumns, type SortKey,
} from '../../exec/index.js';
import {
  LogicalAggregate, LogicalDistinct, LogicalFilter, LogicalLimit, type LogicalPlan, LogicalProject, LogicalProjectSet,
  LogicalSetOp, LogicalSort, LogicalValues, LogicalWindow, mapWindowCall, remapColumns,
} from '../../planner/index.js';
import { positionOf, str, strList, unwrap, type Raw } from './ast.js';
import { scopeOf, type BindContext, type BoundQuery, type CteDefinition } from './bind-context.js';
import { lookupColumn } from './bind-column-ref.js';
import { bindCondition, bindExpr } from './bind-expr.js';
import { groupingIdPlaceholder } from './bind-grouping-func.js';
import { bindSortKey } from './bind-sort-key.js';
import { exprKey, type ExprScope, type GroupingContext, type WindowCollector } from './expr-scope.js';
import { bindFromClause } from './bind-from.js';
import { bindWhere } from './bind-where.js';
import { expandArrayTargets, hiddenTarget } from './bind-pg-expandarray.js';
import { coerceTo, resolveUnknown } from './coerce.js';
import { figureColumnName } from './figure-column-name.js';
import type { Scope, ScopeColumn } from './scope.js';
import { isAggregateName } from './aggregate-names.js';
import { cteReferenceCount, materializeCte } from './cte-materialization.js';
import { bindRecursiveCte } from './bind-recursive-cte.js';
import { bindDataModifyingCte, isDataModifyingCte } from './data-modifying-cte.js';

/** Window columns are numbered from here until the aggregate's width is known, then shifted down. */
const windowPlaceholderBase = 1_000_000;

/** Binds a SubLink's or RangeSubselect's `{ SelectStmt }` node with `parent` as its outer scope. */
export function bindSubquery(ctx: BindContext, node: Raw, parent: Scope | undefined, correlation: { correlated: boolean }): BoundQuery {
  const [tag, s] = unwrap(node);
  if (tag !== 'SelectStmt') throw new FloeError(SqlState.featureNotSupported, `unsupported subquery: ${tag}`, { position: positionOf(node) });
  return bindSelect(ctx, s, parent, correlation);
}

/** Binds a SelectStmt's fields (WITH, set operations, VALUES or a select core; ORDER BY / LIMIT). */
export function bindSelect(
  ctx: BindContext, s: Raw, parent: Scope | undefined, correlation: { correlated: boolean } = { correlated: false },
  targetTypes?: readonly SqlType[],
): BoundQuery {
  const pushed = bindWithClause(ctx, s);
  try {
    if (s.op && s.op !== 'SETOP_NONE') return finishSetOp(ctx, s, bindSetOp(ctx, s, parent, correlation), parent);
    if (s.valuesLists) return finishSetOp(ctx, s, bindValues(ctx, s.valuesLists, parent, correlation, targetTypes), parent);
    return bindSelectCore(ctx, s, parent, correlation);
  } finally {
    if (pushed) ctx.popCtes();
  }
}

/** Binds `s`'s WITH queries and pushes them in scope (the caller pops them); false when `s` has no WITH. */
export function bindWithClause(ctx: BindContext, s: Raw): boolean {
  const w = s.withClause as Raw;
  if (!w) return false;
  const defs = new Map<string, CteDefinition>();
  ctx.pushCtes(defs);
  for (const item of w.ctes as Raw[]) {
    const cte = unwrap(item)[1];
    const name = cte.ctename as string;
    if (defs.has(name)) {
      throw new FloeError(SqlState.duplicateTable ?? '42712', `WITH query name "${name}" specified more than once`, { position: positionOf(cte) });
    }
    if (isDataModifyingCte(cte)) { defs.set(name, bindDataModifyingCte(ctx, cte, s)); continue; }
    const [qtag] = unwrap(cte.ctequery);
    if (qtag !== 'SelectStmt') throw new FloeError(SqlState.featureNotSupported, 'data-modifying statements in WITH are not supported', { position: positionOf(cte) });
    let query = w.recursive && cteReferenceCount(cte.ctequery, name) > 0
      ? bindRecursiveCte(ctx, cte, defs)
      : bindSubquery(ctx, cte.ctequery, undefined, { correlated: false });
    const aliases = strList(cte.aliascolnames);
    if (aliases.length > query.columns.length) {
      throw new FloeError(SqlState.invalidColumnReference, `WITH query "${name}" has ${query.columns.length} columns available but ${aliases.length} columns specified`, { position: positionOf(cte) });
    }
    if (aliases.length > 0) query = { plan: query.plan, columns: query.columns.map((c, i) => (i < aliases.length ? { ...c, name: aliases[i]! } : c)) };
    const materialized = materializeCte(name, cte.ctematerialized, cteReferenceCount(s, name), query.plan);
    defs.set(name, { name, query, ...(materialized ? { materialized } : {}) });
  }
  return true;
}

// ---------------------------------------------------------------- VALUES

export function bindValues(
  ctx: BindContext, lists: readonly Raw[], parent: Scope | undefined, correlation: { correlated: boolean },
  targetTypes?: readonly SqlType[],
): BoundQuery {
  const scope: Scope = { columns: [], ...(parent ? { parent } : {}), correlation };
  const es: ExprScope = { scope, clause: 'VALUES' };
  const rows = lists.map((l) => (unwrap(l)[1].items as Raw[]).map((item) => {
    if (unwrap(item)[0] === 'SetToDefault') return undefined;
    return bindExpr(ctx, item, es);
  }));
  const width = rows[0]?.length ?? 0;
  if (rows.some((r) => r.length !== width)) {
    throw new FloeError(SqlState.syntaxError, 'VALUES lists must all be the same length', { position: positionOf(lists[1]) });
  }
  const types: SqlType[] = [];
  for (let c = 0; c < width; c++) {
    const target = targetTypes?.[c];
    if (target) { types.push(target); continue; }
    const known = rows.map((r) => r[c]).filter((e): e is Expr => e !== undefined && e.type.kind !== 'unknown').map((e) => e.type);
    const t = known.length === 0 ? { kind: 'text' } as SqlType : commonSupertype(known);
    if (!t) throw new FloeError(SqlState.datatypeMismatch, `VALUES types ${formatType(known[0]!)} and ${formatType(known[1]!)} cannot be matched`, { position: positionOf(lists[0]) });
    types.push(t);
  }
  const bound = rows.map((r) => r.map((e, c) => (e === undefined ? defaultMarker(types[c]!) : coerceTo(ctx, e, types[c]!, targetTypes ? 'assignment' : 'implicit'))));
  const columns = types.map((type, i): ScopeColumn => ({ name: `column${i + 1}`, index: i, type, tableOid: 0, columnNumber: 0 }));
  return { plan: LogicalValues.create({ rows: bound, columns: outputCols(columns) }), columns };
}

/**
 * VALUES (DEFAULT) in an INSERT: a marker literal the INSERT binder replaces with the column default.
 * Elsewhere DEFAULT is rejected before reaching here.
 */
export const defaultMarkerType: SqlType = { kind: 'unknown' };
function defaultMarker(type: SqlType): Expr {
  return { kind: 'literal', value: defaultMarkerValue, type };
}
export const defaultMarkerValue = Symbol.for('floe.default');

// ---------------------------------------------------------------- set operations

function bindSetOp(ctx: BindContext, s: Raw, parent: Scope | undefined, correlation: { correlated: boolean }): BoundQuery {
  const left = bindSelect(ctx, s.larg, parent, correlation);
  const right = bindSelect(ctx, s.rarg, parent, correlation);
  const opName = s.op === 'SETOP_UNION' ? 'UNION' : s.op === 'SETOP_INTERSECT' ? 'INTERSECT' : 'EXCEPT';
  if (left.columns.length !== right.columns.length) {
    throw new FloeError(SqlState.syntaxError, `each ${opName} query must have the same number of columns`, { position: positionOf(s.rarg?.targetList?.[0]) });
  }
  const types = left.columns.map((l, i) => {
    const r = right.columns[i]!;
    const known = [l.type, r.type].filter((t) => t.kind !== 'unknown');
    const t = known.length === 0 ? { kind: 'text' } as SqlType : commonSupertype(known);
    if (!t) throw new FloeError(SqlState.datatypeMismatch, `${opName} types ${formatType(l.type)} and ${formatType(r.type)} cannot be matched`);
    return t;
  });
  const cast = (q: BoundQuery): LogicalPlan => {
    if (q.columns.every((c, i) => c.type.kind === types[i]!.kind && exprKey(c.type) === exprKey(types[i]))) return q.plan;
    const exprs = q.columns.map((c, i) => coerceTo(ctx, Exprs.column(i, c.type, c.name), types[i]!, 'implicit'));
    return LogicalProject.create({ input: q.plan, exprs, columns: q.columns.map((c, i) => ({ name: c.name, type: types[i]! })) });
  };
  const columns = left.columns.map((c, i): ScopeColumn => ({ name: c.name, index: i, type: types[i]!, tableOid: 0, columnNumber: 0 }));
  const op = s.op === 'SETOP_UNION' ? 'union' : s.op === 'SETOP_INTERSECT' ? 'intersect' : 'except';
  const plan = LogicalSetOp.create({ op, all: Boolean(s.all), left: cast(left), right: cast(right), columns: outputCols(columns) });
  return { plan, columns };
}

/** ORDER BY / LIMIT / OFFSET applied to a set operation's or VALUES' result (by output name, ordinal or expression). */
function finishSetOp(ctx: BindContext, s: Raw, q: BoundQuery, parent: Scope | undefined): BoundQuery {
  let plan = q.plan;
  if (s.sortClause) {
    const scope = scopeOf(q.columns, undefined, parent);
    const keys = (s.sortClause as Raw[]).map((item) => {
      const sb = unwrap(item)[1];
      const ordinal = ordinalOf(sb.node, q.columns.length);
      if (ordinal !== undefined) return sortKeyFor(Exprs.column(ordinal, q.columns[ordinal]!.type), sb);
      return bindSortKey(ctx, sb, { scope, clause: 'ORDER BY' });
    });
    plan = LogicalSort.create({ input: plan, keys, columns: plan.columns });
  }
  plan = applyLimit(ctx, s, plan, parent);
  return { plan, columns: q.columns };
}

/** DISTINCT ON (…) rather than plain DISTINCT, which the parser gives as one empty item. */
function isDistinctOn(distinct: readonly Raw[]): boolean {
  return distinct.length > 0 && Object.keys(distinct[0] ?? {}).length > 0;
}

function sortKeyFor(expr: Expr, sb: Raw): SortKey {
  const descending = sb.sortby_dir === 'SORTBY_DESC';
  const nullsFirst = sb.sortby_nulls === 'SORTBY_NULLS_FIRST' ? true : sb.sortby_nulls === 'SORTBY_NULLS_LAST' ? false : descending;
  return { expr, descending, nullsFirst };
}

/** `ORDER BY 2`: the 0-based select-list index, 42P10 when out of range; undefined for non-integer keys. */
function ordinalOf(node: Raw, count: number): number | undefined {
  const [tag, n] = unwrap(node);
  if (tag !== 'A_Const' || n.ival === undefined) return undefined;
  const v = Number(n.ival.ival ?? 0);
  if (v < 1 || v > count) {
    throw new FloeError(SqlState.invalidColumnReference, `ORDER BY position ${v} is not in select list`, { position: positionOf(node) });
  }
  return v - 1;
}

function applyLimit(ctx: BindContext, s: Raw, plan: LogicalPlan, parent: Scope | undefined): LogicalPlan {
  if (!s.limitCount && !s.limitOffset) return plan;
  const withTies = s.limitOption === 'LIMIT_OPTION_WITH_TIES';
  if (withTies && plan.kind !== 'sort') {
    throw new FloeError(SqlState.syntaxError, 'WITH TIES cannot be specified without ORDER BY clause', { position: positionOf(s.limitCount) });
  }
  const es: ExprScope = { scope: { columns: [], ...(parent ? { parent } : {}) }, clause: 'LIMIT' };
  const int8: SqlType = { kind: 'int8' };
  const bindCount = (n: Raw): Expr | undefined => (n ? coerceTo(ctx, bindExpr(ctx, n, es), int8, 'implicit', positionOf(n)) : undefined);
  const limit = bindCount(s.limitCount);
  const offset = bindCount(s.limitOffset);
  return LogicalLimit.create({ input: plan, ...(limit ? { limit } : {}), ...(offset ? { offset } : {}), ...(withTies ? { withTies } : {}), columns: plan.columns });
}

// ---------------------------------------------------------------- select core

function containsAggregate(node: Raw): boolean {
  let found = false;
  const visit = (n: Raw): void => {
    if (found || n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) { n.forEach(visit); return; }
    const [tag, inner] = unwrap(n);
    if (tag === 'SubLink') return; // an inner query's aggregates are its own
    if (tag === 'FuncCall' && !inner.over) {
      const name = strList(inner.funcname).pop()!.toLowerCase();
      if (inner.agg_star || isAggregateName(name)) { found = true; return; }
    }
    for (const v of Object.values(tag ? inner : n)) visit(v);
  };
  visit(node);
  return found;
}

interface SelectItem {
  hidden?: boolean;
  /** A set-returning call (the select list becomes a ProjectSet). */
  set?: SetFunctionCall;
  expr: Expr;
  name: string;
  tableOid: number;
  columnNumber: number;
}

function bindSelectCore(ctx: BindContext, s: Raw, parent: Scope | undefined, correlation: { correlated: boolean }): BoundQuery {
  const from = bindFromClause(ctx, s.fromClause as Raw[] | undefined, parent, correlation);
  let plan = from.plan;
  if (s.whereClause) plan = bindWhere(ctx, s.whereClause, plan, from.scope);

  let targets = (s.targetList as Raw[] | undefined) ?? [];
  let scope = from.scope;
  const expanded = expandArrayTargets(ctx, targets, plan, scope);
  if (expanded) {
    plan = expanded.plan;
    scope = expanded.scope;
    targets = [...expanded.targets];
  }
  const grouped = Boolean(s.groupClause?.length) || containsAggregate(targets) || containsAggregate(s.havingClause)
    || (s.sortClause && containsAggregate(s.sortClause));
  let grouping: GroupingContext | undefined;
  if (grouped) grouping = bindGroupBy(ctx, s, scope, targets);

  const named = new Map<string, Raw>(((s.windowClause as Raw[] | undefined) ?? []).map((w) => [unwrap(w)[1].name as string, unwrap(w)[1]]));
  const windows: WindowCollector = { named, base: windowPlaceholderBase, calls: [], callStrings: [] };
  const es: ExprScope = { scope, clause: 'SELECT', ...(grouping ? { grouping } : {}), windows };

  // Select list, with * expanded.
  const items: SelectItem[] = [];
  for (const t of targets) {
    const rt = unwrap(t)[1];
    const [vtag, v] = unwrap(rt.val);
    if (vtag === 'ColumnRef' && (v.fields as Raw[]).some((f: Raw) => f.A_Star)) {
      for (const c of expandStar(scope, strList((v.fields as Raw[]).filter((f: Raw) => !f.A_Star)), rt.val)) {
        const e = grouping ? bindExpr(ctx, { ColumnRef: { fields: [...(c.relation ? [{ String: { sval: c.relation } }] : []), { String: { sval: c.name } }], location: v.location } }, es) : Exprs.column(c.index, c.type, c.name);
        if (c.tableOid > 0 && c.columnNumber > 0) ctx.access.read(c.tableOid, c.columnNumber);
        items.push({ expr: e, name: c.name, tableOid: c.tableOid, columnNumber: c.columnNumber });
      }
      continue;
    }
    const setCall = vtag === 'FuncCall' && !v.over && !grouping ? bindSetCall(ctx, v, es) : undefined;
    if (setCall) {
      items.push({ expr: Exprs.column(-1, setCall.type), set: setCall, name: rt.name ?? figureColumnName(rt.val), tableOid: 0, columnNumber: 0 });
      continue;
    }
    const expr = resolveUnknown(ctx, bindExpr(ctx, rt.val, es));
    const origin = vtag === 'ColumnRef' ? originOf(scope, v) : undefined;
    items.push({
      expr, name: rt.name ?? figureColumnName(rt.val), tableOid: origin?.tableOid ?? 0, columnNumber: origin?.columnNumber ?? 0,
      ...(rt[hiddenTarget] ? { hidden: true } : {}),
    });
  }

  const having = s.havingClause ? bindCondition(ctx, s.havingClause, { scope, clause: 'HAVING', ...(grouping ? { grouping } : {}) }) : undefined;

  // ORDER BY: output names and ordinals first, else expressions over the same input as the select list.
  const hidden: Expr[] = [];
  const sortKeys: SortKey[] = [];
  const distinct = s.distinctClause as Raw[] | undefined;
  for (const item of (s.sortClause as Raw[] | undefined) ?? []) {
    const sb = unwrap(item)[1];
    const ordinal = ordinalOf(sb.node, items.length);
    if (ordinal !== undefined) { sortKeys.push(sortKeyFor(Exprs.column(ordinal, items[ordinal]!.expr.type), sb)); continue; }
    const byName = outputByName(sb.node, items, scope);
    if (byName !== undefined) { sortKeys.push(sortKeyFor(Exprs.column(byName, items[byName]!.expr.type), sb)); continue; }
    const expr = resolveUnknown(ctx, bindExpr(ctx, sb.node, { ...es, clause: 'ORDER BY' }));
    const key = exprKey(expr);
    let idx = items.findIndex((it) => exprKey(it.expr) === key);
    if (idx < 0) {
      // DISTINCT ON may sort by expressions outside the select list (they pick each group's first row).
      if (distinct && !isDistinctOn(distinct)) {
        throw new FloeError(SqlState.invalidColumnReference, 'for SELECT DISTINCT, ORDER BY expressions must appear in select list', { position: positionOf(sb.node) });
      }
      const h = hidden.findIndex((e) => exprKey(e) === key);
      idx = items.length + (h >= 0 ? h : hidden.push(expr) - 1);
    }
    sortKeys.push(sortKeyFor(Exprs.column(idx, expr.type), sb));
  }

  // DISTINCT ON keys are evaluated like hidden ORDER BY expressions.
  let distinctOn: Expr[] | undefined;
  if (distinct && isDistinctOn(distinct)) {
    distinctOn = distinct.map((d) => {
      const ordinal = ordinalOf(d, items.length);
      if (ordinal !== undefined) return Exprs.column(ordinal, items[ordinal]!.expr.type);
      const expr = resolveUnknown(ctx, bindExpr(ctx, d, { ...es, clause: 'DISTINCT ON' }));
      const key = exprKey(expr);
      let idx = items.findIndex((it) => exprKey(it.expr) === key);
      if (idx < 0) {
        const h = hidden.findIndex((e) => exprKey(e) === key);
        idx = items.length + (h >= 0 ? h : hidden.push(expr) - 1);
      }
      return Exprs.column(idx, expr.type);
    });
  }

  // Assemble: aggregate → HAVING → window → project → distinct / sort → limit → drop hidden columns.
  let windowBase = plan.columns.length;
  let fixGrouping = (e: Expr): Expr => e;
  if (grouping) {
    const aggColumns: OutputColumn[] = [
      ...grouping.keys.map((k, i) => ({ name: k.kind === 'column' && k.name ? k.name : `group${i + 1}`, type: k.type })),
      ...grouping.aggregates.map((a, i) => ({ name: `agg${i + 1}`, type: a.type })),
    ];
    if (grouping.sets) aggColumns.push({ name: 'grouping', type: { kind: 'int4' } });
    plan = LogicalAggregate.create({
      input: plan, groupBy: grouping.keys, ...(grouping.sets ? { groupingSets: grouping.sets } : {}), aggregates: grouping.aggregates, columns: aggColumns,
    });
    windowBase = aggColumns.length;
    const gidIndex = grouping.keys.length + grouping.aggregates.length;
    fixGrouping = (e: Expr): Expr => remapColumns(e, (i) => (i === groupingIdPlaceholder ? gidIndex : i));
    if (having) plan = LogicalFilter.create({ input: plan, predicate: fixGrouping(having), columns: plan.columns });
  }
  const fixWindows = (e: Expr): Expr => fixGrouping(remapColumns(e, (i) => (i >= windowPlaceholderBase && i < groupingIdPlaceholder ? i - windowPlaceholderBase + windowBase : i)));
  if (windows.calls.length > 0) {
    const functions = windows.calls.map((w) => mapWindowCall(w, fixGrouping));
    plan = LogicalWindow.create({
      input: plan, functions,
      columns: [...plan.columns, ...functions.map((f, i) => ({ name: `window${i + 1}`, type: f.type }))],
    });
  }
  const projected = [...items.map((it) => fixWindows(it.expr)), ...hidden.map(fixWindows)];
  const columns: ScopeColumn[] = items.map((it, i) => ({
    name: it.name, index: i, type: it.expr.type, tableOid: it.tableOid, columnNumber: it.columnNumber, ...(it.hidden ? { hidden: true } : {}),
  }));
  const projectColumns: OutputColumn[] = [...outputCols(columns), ...hidden.map((h, i) => ({ name: `sort${i + 1}`, type: h.type }))];
  const setCalls = items.some((it) => it.set);
  if (setCalls && (windows.calls.length > 0 || hidden.length > 0 || distinctOn)) {
    throw new FloeError(SqlState.featureNotSupported, 'set-returning functions in a select list with window functions or ORDER BY expressions are not supported');
  }
  plan = setCalls
    ? LogicalProjectSet.create({ input: plan, exprs: items.map((it, i) => it.set ?? projected[i]!), columns: projectColumns })
    : LogicalProject.create({ input: plan, exprs: projected, columns: projectColumns });

  if (distinct && !distinctOn) plan = LogicalDistinct.create({ input: plan, columns: plan.columns });
  if (distinctOn) {
    const keys = sortKeys.length > 0 ? sortKeys : distinctOn.map((expr) => ({ expr, descending: false, nullsFirst: false }));
    plan = LogicalSort.create({ input: plan, keys, columns: plan.columns });
    plan = LogicalDistinct.create({ input: plan, on: distinctOn, columns: plan.columns });
  } else if (sortKeys.length > 0) {
    plan = LogicalSort.create({ input: plan, keys: sortKeys, columns: plan.columns });
  }
  plan = applyLimit(ctx, s, plan, parent);
  if (hidden.length > 0) {
    plan = LogicalProject.create({
      input: plan, exprs: columns.map((c, i) => Exprs.column(i, c.type, c.name)), columns: outputCols(columns),
    });
  }
  return { plan, columns };
}

/** A select-list call of a set-returning function (unnest, generate_series, …), or undefined. */
function bindSetCall(ctx: BindContext, fn: Raw, es: ExprScope): SetFunctionCall | undefined {
  const names = strList(fn.funcname).map((x) => x.toLowerCase());
  const name = names[names.length - 1]!;
  if (!setFunctionNames().has(name) || fn.agg_star || fn.agg_distinct) return undefined;
  const args = ((fn.args as Raw[] | undefined) ?? []).map((a) => bindExpr(ctx, a, es));
  const resolved = resolveFunction(name, args.map((a) => a.type));
  if (!resolved || resolved.kind !== 'set') return undefined;
  if ((setFunctionColumns(resolved.id)?.length ?? 0) > 1) {
    throw new FloeError(SqlState.featureNotSupported, `${name}() returns a record; call it in FROM (SELECT * FROM ${name}(…))`, { position: positionOf(fn) });
  }
  return { kind: 'setCall', fn: resolved.id, args: args.map((a, i) => coerceTo(ctx, a, resolved.argTypes[i]!, 'implicit')), type: resolved.returnType };
}

function setFunctionNames(): Set<string> {
  return new Set(listFunctions().filter((f) => f.kind === 'set').map((f) => f.name));
}

function bindGroupBy(ctx: BindContext, s: Raw, scope: Scope, targets: readonly Raw[]): GroupingContext {
  const keys: Expr[] = [];
  const keyStrings: string[] = [];
  const es: ExprScope = { scope, clause: 'GROUP BY' };
  const add = (e: Expr): void => {
    const k = exprKey(e);
    if (!keyStrings.includes(k)) { keys.push(e); keyStrings.push(k); }
  };
  const indexOf = (e: Expr): number => {
    add(e);
    return keyStrings.indexOf(exprKey(e));
  };
  const bindKey = (g: Raw): Expr => {
    const [tag, n] = unwrap(g);
    // GROUP BY 1 and GROUP BY <output alias> refer to the select list, as in PostgreSQL.
    const ordinal = tag === 'A_Const' && n.ival !== undefined ? Number(n.ival.ival ?? 0) : undefined;
    if (ordinal !== undefined) {
      if (ordinal < 1 || ordinal > targets.length) {
        throw new FloeError(SqlState.invalidColumnReference, `GROUP BY position ${ordinal} is not in select list`, { position: positionOf(g) });
      }
      return resolveUnknown(ctx, bindExpr(ctx, unwrap(targets[ordinal - 1])[1].val, es));
    }
    if (tag === 'ColumnRef' && n.fields.length === 1 && !n.fields[0].A_Star) {
      const name = str(n.fields[0]);
      const inFrom = scope.columns.some((c) => !c.hidden && c.name === name);
      const alias = targets.find((t) => unwrap(t)[1].name === name);
      if (!inFrom && alias) return resolveUnknown(ctx, bindExpr(ctx, unwrap(alias)[1].val, es));
    }
    return resolveUnknown(ctx, bindExpr(ctx, g, es));
  };
  /** The grouping sets one GROUP BY item stands for (each a list of key indexes). */
  const setsOf = (g: Raw): number[][] => {
    const [tag, n] = unwrap(g);
    if (tag === 'RowExpr') return [(n.args as Raw[]).map((a) => indexOf(bindKey(a)))];
    if (tag !== 'GroupingSet') return [[indexOf(bindKey(g))]];
    const items = (n.content as Raw[] | undefined) ?? [];
    const element = (c: Raw): number[] => {
      const [ct, cn] = unwrap(c);
      return ct === 'RowExpr' ? (cn.args as Raw[]).map((a) => indexOf(bindKey(a))) : [indexOf(bindKey(c))];
    };
    switch (n.kind as string) {
      case 'GROUPING_SET_EMPTY': return [[]];
      case 'GROUPING_SET_SIMPLE': return [items.flatMap(element)];
      case 'GROUPING_SET_ROLLUP': {
        const parts = items.map(element);
        return parts.map((_p, i) => parts.slice(0, parts.length - i).flat()).concat([[]]);
      }
      case 'GROUPING_SET_CUBE': {
        const parts = items.map(element);
        if (parts.length > 12) throw new FloeError(SqlState.programLimitExceeded, 'CUBE is limited to 12 elements', { position: positionOf(g) });
        const out: number[][] = [];
        for (let mask = (1 << parts.length) - 1; mask >= 0; mask--) out.push(parts.filter((_p, i) => mask & (1 << (parts.length - 1 - i))).flat());
        return out;
      }
      case 'GROUPING_SET_SETS': return items.flatMap(setsOf);
      default:
        throw new FloeError(SqlState.featureNotSupported, `unsupported grouping set ${n.kind}`, { position: positionOf(g) });
    }
  };
  let sets: number[][] = [[]];
  let usesSets = false;
  for (const g of (s.groupClause as Raw[] | undefined) ?? []) {
    if (unwrap(g)[0] === 'GroupingSet') usesSets = true;
    const itemSets = setsOf(g);
    sets = sets.flatMap((a) => itemSets.map((b) => [...new Set([...a, ...b])]));
  }
  if (usesSets) return { keys, keyStrings, sets, aggregates: [], aggregateStrings: [] };
  return { keys, keyStrings, aggregates: [], aggregateStrings: [] };
}

function expandStar(scope: Scope, qualifier: readonly string[], node: Raw): ScopeColumn[] {
  if (qualifier.length === 0) {
    const cols = scope.columns.filter((c) => !c.hidden);
    if (cols.length === 0 && scope.columns.length === 0) {
      throw new FloeError(SqlState.syntaxError, 'SELECT * with no tables specified is not valid', { position: positionOf(node) });
    }
    return cols;
  }
  const rel = qualifier[qualifier.length - 1];
  const cols = scope.columns.filter((c) => c.relation === rel && c.system !== true && (qualifier.length < 2 || c.schema === qualifier[0]));
  if (cols.length === 0) throw new FloeError(SqlState.undefinedTable, `missing FROM-clause entry for table "${rel}"`, { position: positionOf(node) });
  return cols;
}

function originOf(scope: Scope, ref: Raw): { tableOid: number; columnNumber: number } | undefined {
  try {
    const { column, depth } = lookupColumn(scope, strList(ref.fields), undefined);
    return depth === 0 ? { tableOid: column.tableOid, columnNumber: column.columnNumber } : undefined;
  } catch {
    return undefined;
  }
}

/** `ORDER BY name` where name is an output column (and, as in PostgreSQL, that wins over an input column). */
function outputByName(node: Raw, items: readonly SelectItem[], scope: Scope): number | undefined {
  const [tag, n] = unwrap(node);
  if (tag !== 'ColumnRef' || n.fields.length !== 1 || n.fields[0].A_Star) return undefined;
  const name = str(n.fields[0]);
  const matches = items.map((it, i) => (it.name === name ? i : -1)).filter((i) => i >= 0);
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) {
    const distinct = new Set(matches.map((i) => exprKey(items[i]!.expr)));
    if (distinct.size === 1) return matches[0];
    throw new FloeError(SqlState.ambiguousColumn, `ORDER BY "${name}" is ambiguous`, { position: positionOf(node) });
  }
  void scope;
  return undefined;
}

export function outputCols(columns: readonly ScopeColumn[]): OutputColumn[] {
  return columns.map((c) => ({ name: c.name, type: c.type }));
}
