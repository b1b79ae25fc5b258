import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { type Expr, Exprs, resolveFunction } from '../../exec/index.js';
import { LogicalAggregate, logicalSubquery } from '../../planner/index.js';
import { positionOf, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import { functionNotFound } from './bind-function-call.js';
import { comparison, operatorName } from './bind-operator.js';
import { bindSubquery } from './bind-query.js';
import type { ExprScope, GroupingContext } from './expr-scope.js';
import { rowInAsExists } from './row-in-subquery.js';
import type { Scope, ScopeColumn } from './scope.js';

const boolType: SqlType = { kind: 'bool' };

/**
 * In a grouped query a subquery runs over the aggregate's rows, so its outer
 * references may only reach group keys, at the keys' positions.
 */
function groupedScope(scope: Scope, g: GroupingContext): Scope {
  const columns: ScopeColumn[] = [];
  g.keys.forEach((k, i) => {
    if (k.kind !== 'column') return;
    const c = scope.columns.find((x) => x.index === k.index);
    if (c) columns.push({ ...c, index: i });
  });
  return { ...scope, columns };
}

export function bindSubLink(ctx: BindContext, n: Raw, es: ExprScope): Expr {
  const rowIn = rowInAsExists(n);
  if (rowIn) {
    const exists = bindSubLink(ctx, rowIn.sublink, es);
    return rowIn.negated ? Exprs.not(exists) : exists;
  }
  const type = n.subLinkType as string;
  const correlation = { correlated: false };
  const sub = bindSubquery(ctx, n.subselect, es.grouping ? groupedScope(es.scope, es.grouping) : es.scope, correlation);
  const correlated = correlation.correlated;
  switch (type) {
    case 'EXISTS_SUBLINK':
      return { kind: 'exists', plan: logicalSubquery(sub.plan), correlated, negated: false, type: boolType };
    case 'EXPR_SUBLINK': {
      if (sub.columns.length !== 1) throw new FloeError(SqlState.syntaxError, 'subquery must return only one column', { position: positionOf(n) });
      return { kind: 'scalarSubquery', plan: logicalSubquery(sub.plan), correlated, type: sub.columns[0]!.type };
    }
    case 'ARRAY_SUBLINK': {
      if (sub.columns.length !== 1) throw new FloeError(SqlState.syntaxError, 'subquery must return only one column', { position: positionOf(n) });
      const elem = sub.columns[0]!.type;
      const agg = resolveFunction('array_agg', [elem]);
      if (!agg) throw functionNotFound('array_agg', [Exprs.column(0, elem)], n);
      const arrayType: SqlType = { kind: 'array', element: elem };
      const plan = LogicalAggregate.create({
        input: sub.plan, groupBy: [],
        aggregates: [{ fn: agg.id, args: [Exprs.column(0, elem)], distinct: false, type: arrayType }],
        columns: [{ name: 'array', type: arrayType }],
      });
      const scalar: Expr = { kind: 'scalarSubquery', plan: logicalSubquery(plan), correlated, type: arrayType };
      return { kind: 'coalesce', args: [scalar, Exprs.literal([], arrayType)], type: arrayType };
    }
    case 'ANY_SUBLINK': case 'ALL_SUBLINK': {
      const op = n.operName ? operatorName(n.operName) : '=';
      const isIn = (type === 'ANY_SUBLINK' && op === '=') || (type === 'ALL_SUBLINK' && op === '<>');
      if (!isIn) throw new FloeError(SqlState.featureNotSupported, `${op} ${type === 'ANY_SUBLINK' ? 'ANY' : 'ALL'} (subquery) is not supported`, { position: positionOf(n) });
      if (sub.columns.length !== 1) throw new FloeError(SqlState.syntaxError, 'subquery has too many columns', { position: positionOf(n) });
      const left = bindExpr(ctx, n.testexpr, es);
      const probe = Exprs.column(0, sub.columns[0]!.type);
      const c = comparison(ctx, '=', left, probe, n);
      let plan = sub.plan;
      if (c.right !== probe) {
        // The subquery's column needs a cast to the comparison type: project it.
        plan = { kind: 'project', input: plan, exprs: [c.right], columns: [{ name: sub.columns[0]!.name, type: c.right.type }] };
      }
      return { kind: 'inSubquery', arg: c.left, plan: logicalSubquery(plan), eqFn: c.fn, correlated, negated: type === 'ALL_SUBLINK', type: boolType };
    }
    default:
      throw new FloeError(SqlState.featureNotSupported, `${type} subqueries are not supported`, { position: positionOf(n) });
  }
}
