import { endSpan, startSpan } from '../common/latency-spans.js';
import type { PhysicalPlan } from '../exec/index.js';
import { planStatement, type LogicalStatementPlan, type PlanStatementOptions } from '../planner/index.js';

const planned = new WeakMap<LogicalStatementPlan, { readonly rules: string; readonly plan: PhysicalPlan }>();

function rulesKey(options: PlanStatementOptions): string {
  const disabled = options.disabledRules === undefined ? '' : [...options.disabledRules].sort().join(',');
  return `${disabled}${options.rereads === true ? '/rereads' : ''}${options.rowOrderFree === true ? '/row-order-free' : ''}`;
}

/**
 * The plan a bound query or DML statement runs — and the one EXPLAIN prints.
 * Planning is a pure function of the bound statement and the options, so it is
 * done once per bound statement (a prepared statement's cached bind keeps its plan)
 * and again only when the options differ.
 */
export function physicalPlanOf(bound: { readonly logical: LogicalStatementPlan }, options: PlanStatementOptions = {}): PhysicalPlan {
  const rules = rulesKey(options);
  const hit = planned.get(bound.logical);
  if (hit !== undefined && hit.rules === rules) return hit.plan;
  const started = startSpan();
  const plan = planStatement(bound.logical, options);
  endSpan('session.plan', started);
  planned.set(bound.logical, { rules, plan });
  return plan;
}
