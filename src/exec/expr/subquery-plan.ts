import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { PhysicalPlan } from '../plan/physical-plan.js';

/**
 * A subquery expression's plan as the binder leaves it: the planner's logical
 * plan, which this layer cannot name (a layer imports only the layers to its
 * right), so it is opaque here. Physical planning (src/planner/plan-statement.ts)
 * replaces every one with the PhysicalPlan it plans; the executor never sees one.
 */
export interface UnplannedSubquery {
  readonly kind: 'unplannedSubquery';
  readonly logical: object;
}

/** A subquery expression's plan: logical until physical planning, physical when it runs. */
export type SubqueryPlan = PhysicalPlan | UnplannedSubquery;

/** The plan a subquery expression runs; an unplanned one here is a planner bug. */
export function plannedSubquery(plan: SubqueryPlan): PhysicalPlan {
  if (plan.kind === 'unplannedSubquery') throw new FloeError(SqlState.internalError, 'a subquery reached the executor without a physical plan');
  return plan;
}
