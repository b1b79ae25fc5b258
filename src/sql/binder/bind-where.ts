import { Exprs, type Expr } from '../../exec/expr/expr.js';
import { conjunction, conjuncts, hasCorrelatedSubquery, mapChildren, walkExpr } from '../../planner/expr-utils.js';
import { LogicalFilter } from '../../planner/logical/logical-filter.js';
import { LogicalJoin } from '../../planner/logical/logical-join.js';
import type { LogicalPlan } from '../../planner/logical/logical-plan.js';
import { strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindCondition, bindExpr, bindOperator } from './bind-expr.js';
import { bindFromClause } from './bind-from.js';
import { isAggregateName } from './aggregate-names.js';
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

function decorrelate(ctx: BindContext, test: SubqueryTest, plan: LogicalPlan, scope: Scope): LogicalPlan {
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

/** Binds WHERE over `plan` (whose columns `scope` names), decorrelating IN/EXISTS conjuncts into joins. */
export function bindWhere(ctx: BindContext, where: Raw, plan: LogicalPlan, scope: Scope): LogicalPlan {
  // Plain conjuncts filter the FROM rows first, so they can still be pushed into its joins and scans;
  // the subquery joins go on top (they keep the left columns where they are).
  const plain: Expr[] = [];
  const tests: { raw: Raw; test: SubqueryTest }[] = [];
  for (const raw of rawConjuncts(where)) {
    const test = subqueryTest(raw);
    if (test) tests.push({ raw, test });
    else plain.push(...conjuncts(bindCondition(ctx, raw, { scope, clause: 'WHERE' })));
  }
  const predicate = conjunction(plain);
  let current = predicate ? LogicalFilter.create({ input: plan, predicate, columns: plan.columns }) : plan;
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
