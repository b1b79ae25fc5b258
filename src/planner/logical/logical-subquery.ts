import type { UnplannedSubquery } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

/**
 * A subquery expression's plan as the binder builds it: the logical plan in
 * exec's opaque wrapper (src/exec/expr/subquery-plan.ts), which physical
 * planning replaces with the physical plan.
 */
export function logicalSubquery(plan: LogicalPlan): UnplannedSubquery {
  return Object.freeze({ kind: 'unplannedSubquery', logical: plan });
}

/** The logical plan in the wrapper: only logicalSubquery builds one, so the cast holds. */
export function subqueryLogicalPlan(s: UnplannedSubquery): LogicalPlan {
  return s.logical as LogicalPlan;
}
