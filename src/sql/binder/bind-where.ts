import { type Expr, Exprs } from '../../exec/index.js';
import {
  conjunction, conjuncts, hasCorrelatedSubquery, LogicalFilter, LogicalJoin, type LogicalPlan, mapChildren, walkExpr,
} from '../../planner/index.js';
import { strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindCondition, bindExpr } from './bind-expr.js';
import { bindOperator } from './bind-operator.js';
import { bindFromClause } from './bind-from.js';
import { bindSelect, bindSubquery } from './bind-query.js';
import { FloeError } from '../../common/floe-error.js';
import type { ScopeColumn } from './scope.js';
import { isAggregateName } from './aggregate-names.js';
import { rowInAsExists } from './row-in-subquery.js';
import type { Scope } from './scope.js';

/*
 * WHERE, with IN / EXISTS subqueries in its top-level AND turned into joins
 * (decorrelation): EXISTS → semi join, NOT EXISTS → anti join, IN → semi join,
 * NOT IN → mark join filtered on NOT mark (keeping IN's NULL semantics). The
 * subquery's correlated conjuncts become join conditions. A subquery that does
 * not fit (aggregates, LIMIT, set operations, correlation outside its WHERE or
 * deeper than one level) stays a subquery expression for EXEC to evaluate.
 */

class NotDecorrelatable extends Error {}

function hasScalarSubqueryOperand(raw: Raw): boolean {
  const [tag, n] = unwrap(raw);
  if (tag !== 'A_Expr' || n.kind !== 'AEXPR_OP') return false;
  const isScalar = (x: Raw): boolean => unwrap(x)[0] === 'SubLink' && unwrap(x)[1].subLinkType === 'EXPR_SUBLINK';
  return (n.lexpr !== undefined && isScalar(n.lexpr)) || isScalar(n.rexpr);
}

function rawConjuncts(node: Raw): Raw[] {
  const [tag, n] = unwrap(node);
  if (tag === 'BoolExpr' && n.boolop === 'AND_EXPR') return (n.args as Raw[]).flatMap(rawConjuncts);
  return [node];
}

type SubqueryTest = { kind: 'exists' | 'in'; negated: boolean; sublink: Raw };

function subqueryTest(node: Raw): SubqueryTest | undefined {
  let [tag, n] = unwrap(node);
  let negated = false;
  if (tag === 'BoolExpr' && n.boolop === 'NOT_EXPR' && n.args?.length === 1) {
    negated = true;
    [tag, n] = unwrap(n.args[0]);
  }
  if (tag !== 'SubLink') return undefined;
  if (n.subLinkType === 'EXISTS_SUBLINK') return { kind: 'exists', negated, sublink: n };
  const rowIn = rowInAsExists(n, negated);
  if (rowIn) return { kind: 'exists', negated: rowIn.negated, sublink: rowIn.sublink };
  const op = n.operName ? strList(n.operName).pop() : '=';
  if (n.subLinkType === 'ANY_SUBLINK' && op === '=') return { kind: 'in', negated, sublink: n };
  if (n.subLinkType === 'ALL_SUBLINK' && op === '<>') return { kind: 'in', negated: !negated, sublink: n };
  return undefined;
}

function simpleSubquery(s: Raw, kind: 'exists' | 'in'): boolean {
  if (!s || (s.op && s.op !== 'SETOP_NONE') || s.valuesLists || s.withClause || s.groupClause || s.havingClause
    || s.limitCount || s.limitOffset || s.distinctClause || s.windowClause || !s.fromClause) return false;
  if (kind === 'in' && (s.targetList?.length ?? 0) !== 1) return false;
  let agg = false;
  const visit = (x: Raw): void => {
    if (agg || x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) { x.forEach(visit); return; }
    const [tag, inner] = unwrap(x);
    if (tag === 'SubLink') return;
    if (tag === 'FuncCall' && (inner.over || inner.agg_star || isAggregateName(strList(inner.funcname).pop()!.toLowerCase()))) { agg = true; return; }
    for (const v of Object.values(tag ? inner : x)) visit(v);
  };
  visit(s.targetList);
  return !agg;
}

/** Moves an expression over the subquery's rows into a join condition: outer refs → left columns, inner → right. */
function lift(e: Expr, leftWidth: number): Expr {
  switch (e.kind) {
    case 'outerColumn':
      if (e.depth !== 1) throw new NotDecorrelatable();
      return Exprs.column(e.index, e.type, e.name);
    case 'column':
      return { ...e, index: e.index + leftWidth };
    case 'scalarSubquery': case 'exists': case 'inSubquery':
      throw new NotDecorrelatable();
    default:
      return mapChildren(e, (c) => lift(c, leftWidth));
  }
}

function readsOuter(e: Expr): boolean {
  let outer = false;
  walkExpr(e, (n) => { if (n.kind === 'outerColumn') outer = true; });
  return outer || hasCorrelatedSubquery(e);
}

function joinOnSubqueryColumn(ctx: BindContext, test: SubqueryTest, plan: LogicalPlan, scope: Scope, right: LogicalPlan, item: Expr): LogicalPlan {
  const leftWidth = plan.columns.length;
  const arg = bindExpr(ctx, test.sublink.testexpr, { scope, clause: 'IN' });
  if (hasCorrelatedSubquery(arg)) throw new NotDecorrelatable();
  const eq = bindOperator(ctx, '=', arg, item, test.sublink);
  if (eq.kind !== 'call') throw new NotDecorrelatable();
  const condition: Expr = { ...eq, args: [eq.args[0]!, lift(eq.args[1]!, leftWidth)] };
  if (test.negated) {
    const mark = LogicalJoin.create({ joinType: 'mark', left: plan, right, condition, columns: [...plan.columns, { name: 'mark', type: { kind: 'bool' } }] });
    return LogicalFilter.create({ input: mark, predicate: Exprs.not(Exprs.column(leftWidth, { kind: 'bool' }, 'mark')), columns: mark.columns });
  }
  return LogicalJoin.create({ joinType: 'semi', left: plan, right, condition, columns: plan.columns });
}

/** IN (uncorrelated subquery): the subquery is bound whole (its own WHERE decorrelated in turn) and semi-joined. */
function decorrelateUncorrelatedIn(ctx: BindContext, test: SubqueryTest, plan: LogicalPlan, scope: Scope): LogicalPlan {
  const correlation = { correlated: false };
  const sub = bindSubquery(ctx, test.sublink.subselect, scope, correlation);
  if (correlation.correlated || sub.columns.length !== 1) throw new NotDecorrelatable();
  return joinOnSubqueryColumn(ctx, test, plan, scope, sub.plan, Exprs.column(0, sub.columns[0]!.type, sub.columns[0]!.name));
}

function decorrelate(ctx: BindContext, test: SubqueryTest, plan: LogicalPlan, scope: Scope): LogicalPlan {
  if (test.kind === 'in') {
    const params = ctx.params.slice();
    try {
      return decorrelateUncorrelatedIn(ctx, test, plan, scope);
    } catch (e) {
      if (!(e instanceof NotDecorrelatable)) throw e;
      ctx.params.length = 0;
      ctx.params.push(...params);
    }
  }
  const s = unwrap(test.sublink.subselect)[1];
  if (!simpleSubquery(s, test.kind)) throw new NotDecorrelatable();
  const fromCorrelation = { correlated: false };
  const inner = bindFromClause(ctx, s.fromClause, scope, fromCorrelation);
  if (fromCorrelation.correlated) throw new NotDecorrelatable();
  const subScope: Scope = { ...inner.scope, correlation: { correlated: false } };
  const leftWidth = plan.columns.length;
  const stay: Expr[] = [];
  const cond: Expr[] = [];
  if (s.whereClause) {
    for (const c of conjuncts(bindCondition(ctx, s.whereClause, { scope: subScope, clause: 'WHERE' }))) {
      if (readsOuter(c)) cond.push(lift(c, leftWidth)); else stay.push(c);
    }
  }
  if (test.kind === 'in') {
    const arg = bindExpr(ctx, test.sublink.testexpr, { scope, clause: 'IN' });
    const item = bindExpr(ctx, unwrap(s.targetList[0])[1].val, { scope: subScope, clause: 'IN' });
    if (readsOuter(item) || hasCorrelatedSubquery(arg)) throw new NotDecorrelatable();
    const eq = bindOperator(ctx, '=', arg, item, test.sublink);
    if (eq.kind !== 'call') throw new NotDecorrelatable();
    cond.unshift({ ...eq, args: [eq.args[0]!, lift(eq.args[1]!, leftWidth)] });
  }
  const predicate = conjunction(stay);
  const right = predicate ? LogicalFilter.create({ input: inner.plan, predicate, columns: inner.plan.columns }) : inner.plan;
  const condition = conjunction(cond);
  if (test.kind === 'in' && test.negated) {
    const mark = LogicalJoin.create({
      joinType: 'mark', left: plan, right, ...(condition ? { condition } : {}),
      columns: [...plan.columns, { name: 'mark', type: { kind: 'bool' } }],
    });
    return LogicalFilter.create({ input: mark, predicate: Exprs.not(Exprs.column(leftWidth, { kind: 'bool' }, 'mark')), columns: mark.columns });
  }
  return LogicalJoin.create({
    joinType: test.negated ? 'anti' : 'semi', left: plan, right, ...(condition ? { condition } : {}), columns: plan.columns,
  });
}

// ---------------------------------------------------------------- aggregated scalar subqueries

const strictAggregates = new Set(['avg', 'sum', 'min', 'max']);

/** The select expression may only combine sum/avg/min/max with arithmetic and constants (NULL on no rows, like a left join). */
function nullOnEmpty(node: Raw, insideAggregate = false): boolean {
  const [tag, n] = unwrap(node);
  switch (tag) {
    case 'A_Const': return true;
    case 'TypeCast': return nullOnEmpty(n.arg, insideAggregate);
    case 'ColumnRef': return insideAggregate;
    case 'A_Expr': return n.kind === 'AEXPR_OP' && ['+', '-', '*', '/'].includes(strList(n.name).pop()!)
      && (n.lexpr === undefined || nullOnEmpty(n.lexpr, insideAggregate)) && nullOnEmpty(n.rexpr, insideAggregate);
    case 'FuncCall': {
      const name = strList(n.funcname).pop()!.toLowerCase();
      if (insideAggregate || n.over || n.agg_filter || !strictAggregates.has(name)) return insideAggregate && !isAggregateName(name);
      return ((n.args as Raw[] | undefined) ?? []).length === 1 && nullOnEmpty(n.args[0], true);
    }
    default: return insideAggregate && tag !== 'SubLink';
  }
}

let derivedCount = 0;

/**
 * `x op (SELECT agg(e) FROM … WHERE inner = outer AND …)` → a left join with the
 * subquery grouped by its correlation keys: one pass instead of
 * one subquery run per outer row. Returns the joined plan and the value's column.
 */
function decorrelateScalar(ctx: BindContext, sublink: Raw, plan: LogicalPlan, scope: Scope): { plan: LogicalPlan; column: ScopeColumn } {
  const s = unwrap(sublink.subselect)[1];
  if (!s || (s.op && s.op !== 'SETOP_NONE') || s.valuesLists || s.withClause || s.groupClause || s.havingClause || s.limitCount
    || s.limitOffset || s.distinctClause || s.windowClause || !s.fromClause || !s.whereClause || (s.targetList?.length ?? 0) !== 1) {
    throw new NotDecorrelatable();
  }
  const target = unwrap(s.targetList[0])[1].val;
  if (!nullOnEmpty(target)) throw new NotDecorrelatable();
  // Classify the subquery's WHERE conjuncts by binding them against its FROM.
  const fromCorrelation = { correlated: false };
  const inner = bindFromClause(ctx, s.fromClause, scope, fromCorrelation);
  if (fromCorrelation.correlated) throw new NotDecorrelatable();
  const subScope: Scope = { ...inner.scope, correlation: { correlated: false } };
  const innerKeys: Raw[] = [];
  const outerKeys: Raw[] = [];
  const rest: Raw[] = [];
  for (const raw of rawConjuncts(s.whereClause)) {
    const bound = bindCondition(ctx, raw, { scope: subScope, clause: 'WHERE' });
    if (!readsOuter(bound)) { rest.push(raw); continue; }
    const [tag, n] = unwrap(raw);
    if (tag !== 'A_Expr' || n.kind !== 'AEXPR_OP' || strList(n.name).pop() !== '=') throw new NotDecorrelatable();
    const l = bindExpr(ctx, n.lexpr, { scope: subScope, clause: 'WHERE' });
    const r = bindExpr(ctx, n.rexpr, { scope: subScope, clause: 'WHERE' });
    const outerOnly = (e: Expr): boolean => readsOuter(e) && columnsUsedCount(e) === 0;
    if (outerOnly(r) && !readsOuter(l)) { innerKeys.push(n.lexpr); outerKeys.push(n.rexpr); } else if (outerOnly(l) && !readsOuter(r)) { innerKeys.push(n.rexpr); outerKeys.push(n.lexpr); } else throw new NotDecorrelatable();
  }
  if (innerKeys.length === 0) throw new NotDecorrelatable();
  const location = sublink.location ?? 0;
  const and = (items: Raw[]): Raw | undefined => (items.length === 0 ? undefined : items.length === 1 ? items[0] : { BoolExpr: { boolop: 'AND_EXPR', args: items, location } });
  const where = and(rest);
  const derived = {
    ...s,
    targetList: [...innerKeys.map((k) => ({ ResTarget: { val: k, location } })), { ResTarget: { val: target, location } }],
    groupClause: innerKeys,
    ...(where ? { whereClause: where } : { whereClause: undefined }),
  };
  let bound;
  try {
    bound = bindSelect(ctx, derived, undefined, { correlated: false });
  } catch (e) {
    if (e instanceof FloeError) throw new NotDecorrelatable();
    throw e;
  }
  const width = plan.columns.length;
  const parts = outerKeys.map((k, i) => {
    const outer = bindExpr(ctx, k, { scope, clause: 'WHERE' });
    if (hasCorrelatedSubquery(outer)) throw new NotDecorrelatable();
    const key = bound.columns[i]!;
    return bindOperator(ctx, '=', outer, Exprs.column(width + i, key.type, key.name), sublink);
  });
  const joined = LogicalJoin.create({
    joinType: 'left', left: plan, right: bound.plan, condition: conjunction(parts)!,
    columns: [...plan.columns, ...bound.plan.columns],
  });
  const value = bound.columns[innerKeys.length]!;
  derivedCount++;
  return {
    plan: joined,
    column: { name: 'value', relation: `__subquery${derivedCount}`, index: width + innerKeys.length, type: value.type, tableOid: 0, columnNumber: 0, hidden: true },
  };
}

function columnsUsedCount(e: Expr): number {
  let n = 0;
  walkExpr(e, (x) => { if (x.kind === 'column') n++; });
  return n;
}

/** A comparison with an aggregated scalar subquery operand, rewritten over a left join; undefined when it does not apply. */
function scalarComparison(ctx: BindContext, raw: Raw, plan: LogicalPlan, scope: Scope): { plan: LogicalPlan; predicate: Expr } | undefined {
  const [tag, n] = unwrap(raw);
  if (tag !== 'A_Expr' || n.kind !== 'AEXPR_OP' || !n.lexpr) return undefined;
  const side = unwrap(n.rexpr)[0] === 'SubLink' && unwrap(n.rexpr)[1].subLinkType === 'EXPR_SUBLINK' ? 'rexpr'
    : unwrap(n.lexpr)[0] === 'SubLink' && unwrap(n.lexpr)[1].subLinkType === 'EXPR_SUBLINK' ? 'lexpr' : undefined;
  if (!side) return undefined;
  const params = ctx.params.slice();
  try {
    const d = decorrelateScalar(ctx, unwrap(n[side])[1], plan, scope);
    const ref = { ColumnRef: { fields: [{ String: { sval: d.column.relation! } }, { String: { sval: d.column.name } }], location: unwrap(n[side])[1].location ?? 0 } };
    const rewritten = { A_Expr: { ...n, [side]: ref } };
    const extended: Scope = { ...scope, columns: [...scope.columns, d.column] };
    return { plan: d.plan, predicate: bindCondition(ctx, rewritten, { scope: extended, clause: 'WHERE' }) };
  } catch (e) {
    if (!(e instanceof NotDecorrelatable)) throw e;
    ctx.params.length = 0;
    ctx.params.push(...params);
    return undefined;
  }
}

/** Binds WHERE over `plan` (whose columns `scope` names), decorrelating IN/EXISTS conjuncts into joins. */
export function bindWhere(ctx: BindContext, where: Raw, plan: LogicalPlan, scope: Scope): LogicalPlan {
  // Plain conjuncts filter the FROM rows first, so they can still be pushed into its joins and scans;
  // the subquery joins go on top (they keep the left columns where they are).
  const plain: Expr[] = [];
  const tests: { raw: Raw; test: SubqueryTest }[] = [];
  const scalars: Raw[] = [];
  for (const raw of rawConjuncts(where)) {
    const test = subqueryTest(raw);
    if (test) tests.push({ raw, test });
    else if (hasScalarSubqueryOperand(raw)) scalars.push(raw);
    else plain.push(...conjuncts(bindCondition(ctx, raw, { scope, clause: 'WHERE' })));
  }
  const predicate = conjunction(plain);
  let current = predicate ? LogicalFilter.create({ input: plan, predicate, columns: plan.columns }) : plan;
  for (const raw of scalars) {
    const rewritten = scalarComparison(ctx, raw, current, scope);
    const width = current.columns.length;
    if (rewritten) {
      current = LogicalFilter.create({ input: rewritten.plan, predicate: rewritten.predicate, columns: rewritten.plan.columns });
      // The derived columns stay at the end (a projection would shift nothing the scope names).
      void width;
      continue;
    }
    const p = bindCondition(ctx, raw, { scope, clause: 'WHERE' });
    current = LogicalFilter.create({ input: current, predicate: p, columns: current.columns });
  }
  for (const { raw, test } of tests) {
    const params = ctx.params.slice();
    try {
      current = decorrelate(ctx, test, current, scope);
      continue;
    } catch (e) {
      if (!(e instanceof NotDecorrelatable)) throw e;
      // Undo parameter types the abandoned attempt inferred; binding the subquery expression infers them again.
      ctx.params.length = 0;
      ctx.params.push(...params);
    }
    const p = bindCondition(ctx, raw, { scope, clause: 'WHERE' });
    current = LogicalFilter.create({ input: current, predicate: p, columns: current.columns });
  }
  return current;
}
