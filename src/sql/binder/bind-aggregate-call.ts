import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { type AggregateCall, type Expr, resolveFunction } from '../../exec/index.js';
import { positionOf, unwrap, type Raw } from './ast.js';
import { isAggregateCall } from './aggregate-names.js';
import { aggregateColumn } from './bind-column-ref.js';
import type { BindContext } from './bind-context.js';
import { bindCondition, bindExpr } from './bind-expr.js';
import { functionNotFound } from './bind-function-call.js';
import { coerceArgs } from './bind-operator.js';
import { bindSortKey } from './bind-sort-key.js';
import type { ExprScope } from './expr-scope.js';
import { checkOrderedSetCall } from './ordered-set-call.js';
import { aggregateOverRows, bindRowArgument } from './row-value.js';

export function bindAggregate(ctx: BindContext, n: Raw, es: ExprScope, name: string): Expr | undefined {
  const g = es.grouping;
  if (!g) {
    throw new FloeError(SqlState.groupingError, `aggregate functions are not allowed in ${es.clause}`, { position: positionOf(n) });
  }
  // Aggregate arguments see the FROM clause's rows, not the groups.
  const inner: ExprScope = { scope: es.scope, clause: 'aggregate function calls' };
  const rawArgs = n.agg_star ? [] : (n.args as Raw[] | undefined ?? []);
  // WITHIN GROUP (ORDER BY x): the sorted values become the last arguments (see builtin-ordered-set-aggregates.ts).
  const withinGroup = n.agg_within_group === true;
  checkOrderedSetCall(name, withinGroup, positionOf(n));
  const sortedBy = withinGroup ? (n.agg_order as Raw[]).map((s) => bindSortKey(ctx, unwrap(s)[1], inner)) : [];
  let overRows = false;
  const args = [...rawArgs.map((a) => {
    const row = bindRowArgument(ctx, a, inner, name);
    if (row) overRows = true;
    return row ?? bindAggregateArg(ctx, a, inner);
  }), ...sortedBy.map((k) => k.expr)];
  const resolved = resolveFunction(overRows ? aggregateOverRows(name) : name, args.map((a) => a.type));
  if (!resolved) throw functionNotFound(name, args, n);
  if (resolved.kind !== 'aggregate') return undefined;
  const filter = n.agg_filter ? bindCondition(ctx, n.agg_filter, { ...inner, clause: 'FILTER' }) : undefined;
  const coerced = coerceArgs(ctx, args, resolved);
  const orderBy = withinGroup ? sortedBy.map((k, i) => ({ ...k, expr: coerced[rawArgs.length + i]! }))
    : n.agg_order ? (n.agg_order as Raw[]).map((s) => bindSortKey(ctx, unwrap(s)[1], inner)) : undefined;
  const call: AggregateCall = {
    fn: resolved.id, args: coerced, distinct: Boolean(n.agg_distinct),
    ...(filter ? { filter } : {}), ...(orderBy ? { orderBy } : {}), type: resolved.returnType,
  };
  return aggregateColumn(g, call, name);
}

function bindAggregateArg(ctx: BindContext, a: Raw, inner: ExprScope): Expr {
  const [tag, fn] = unwrap(a);
  if (tag === 'FuncCall' && !fn.over && isAggregateCall(fn)) {
    throw new FloeError(SqlState.groupingError, 'aggregate function calls cannot be nested', { position: positionOf(a) });
  }
  return bindExpr(ctx, a, inner);
}
