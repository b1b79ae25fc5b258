import type { PhysicalPlan } from '../plan/physical-plan.js';
import type { Operator } from './operator.js';

/** Builds the operator tree for a plan (validating every node). */
export function buildOperator(plan: PhysicalPlan): Operator {
  throw new Error(`operator ${plan.kind} not implemented yet`);
}
