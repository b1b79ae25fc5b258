import type { LogicalPlan } from './logical/logical-plan.js';

/** A rewrite rule: a pure function from plan to plan, reporting whether it changed anything. */
export interface OptimizerRule {
  readonly name: string;
  readonly apply: (plan: LogicalPlan) => RuleResult;
}

export interface RuleResult {
  readonly plan: LogicalPlan;
  readonly changed: boolean;
}
