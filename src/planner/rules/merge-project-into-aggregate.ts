import type { Expr } from '../../exec/index.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';
import { mapAggregateCall, mapColumns, walkExpr } from '../expr-utils.js';
import { isVolatile } from './push-filter-through-project.js';

function hasSubquery(e: Expr): boolean {
  let found = false;
  walkExpr(e, (n) => { if (n.kind === 'scalarSubquery' || n.kind === 'exists' || n.kind === 'inSubquery') found = true; });
  return found;
}

/**
 * aggregate(project(x)) → aggregate(x), the projection's expressions written
 * into the keys and aggregate arguments that read them. The aggregate then
 * evaluates them over x's columns as it steps its states: a numeric argument
 * (`l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity`)
 * is computed as scaled integers straight into the sum, where a projection
 * would have written every row's numeric text for the aggregate to parse back.
 * Volatile expressions and subqueries stay where they are (they must run as
 * often as written).
 */
function apply(p: LogicalPlan): RuleResult {
  if (p.kind !== 'aggregate' || p.input.kind !== 'project') return { plan: p, changed: false };
  const project = p.input;
  let ok = true;
  const inline = (e: Expr): Expr => mapColumns(e, (i) => {
    const source = project.exprs[i]!;
    if (isVolatile(source) || hasSubquery(source)) ok = false;
    return source;
  });
  const groupBy = p.groupBy.map(inline);
  const aggregates = p.aggregates.map((a) => mapAggregateCall(a, inline));
  if (!ok) return { plan: p, changed: false };
  return { plan: { ...p, input: project.input, groupBy, aggregates }, changed: true };
}

export const mergeProjectIntoAggregate: OptimizerRule = { name: 'merge-project-into-aggregate', apply };
