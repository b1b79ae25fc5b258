import type { PhysicalPlan } from '../../exec/index.js';
import type { LogicalPlan } from '../logical/logical-plan.js';

/**
 * A physical choice the planner makes once, so the operator that runs it only
 * validates it (DataFusion's physical optimizer rules and `try_new`). Applied to
 * each physical node after its inputs are decided; `from` is the logical node the
 * physical one was planned from (row estimates, table statistics), absent for nodes
 * a rule made and for plans decided on their own (`decidePhysicalPlan`). A rule
 * returns its node unchanged when it has nothing to decide or has decided it already,
 * and is named so `floe.disabled_optimizer_rules` can turn it off.
 */
export interface PhysicalRule {
  readonly name: string;
  readonly apply: (node: PhysicalPlan, from: LogicalPlan | undefined) => PhysicalPlan;
}
