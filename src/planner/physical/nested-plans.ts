import type { MaterializedCte, PhysicalPlan } from '../../exec/index.js';
import type { LogicalCte } from '../logical/logical-cte.js';
import type { LogicalPlan } from '../logical/logical-plan.js';

/**
 * What physical planning asks of the statement being planned: the physical rules'
 * decisions for each node, under the statement's disabled rules; and, when it meets
 * a nested plan — a lateral join's right side, a recursive union's terms, a
 * materialized WITH query — that plan, optimized and planned on its own, once per
 * statement (src/planner/plan-statement.ts).
 */
export interface NestedPlans {
  /** A plan optimized and planned on its own. */
  plan(p: LogicalPlan): PhysicalPlan;
  /** `node` (its inputs decided) as the enabled physical rules decide it; `from` is the logical node it was planned from. */
  decide(node: PhysicalPlan, from: LogicalPlan): PhysicalPlan;
  /** The one physical form of a WITH query, shared by all its readers. */
  materializedCte(cte: LogicalCte): MaterializedCte;
}
