import { planInputs, type PhysicalPlan } from '../../exec/index.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import type { PhysicalRule } from './physical-rule.js';
import { aggregateInWorkers } from './rules/aggregate-in-workers.js';
import { joinBuildSide } from './rules/join-build-side.js';
import { keyRangeAggregate } from './rules/key-range-aggregate.js';
import { runtimeFilterTargets } from './rules/runtime-filter-targets.js';

/**
 * The physical rules, in the order each node meets them: the join's build side before
 * its runtime filters (a swapped join filters the other way), the key-range split
 * before where the aggregate runs (a split aggregate runs by ranges).
 */
export const physicalRules: readonly PhysicalRule[] = [joinBuildSide, runtimeFilterTargets, keyRangeAggregate, aggregateInWorkers];

/**
 * Applies `rules` to one node whose inputs are decided. A rule may put new nodes
 * under it (a join whose sides swap, under a projection): those meet every rule
 * first, children before parents, with no logical origin.
 */
export function decideNode(node: PhysicalPlan, from: LogicalPlan | undefined, rules: readonly PhysicalRule[]): PhysicalPlan {
  const decided = new Set(planInputs(node));
  let out = node;
  for (const rule of rules) {
    const next = rule.apply(out, from);
    if (next === out) continue;
    out = withDecidedInputs(next, decided, rules);
    for (const i of planInputs(out)) decided.add(i);
  }
  return out;
}

/** `p` with every input not in `decided` (one a rule made) decided, children first. */
function withDecidedInputs(p: PhysicalPlan, decided: ReadonlySet<PhysicalPlan>, rules: readonly PhysicalRule[]): PhysicalPlan {
  const inputs = planInputs(p);
  const next = inputs.map((i) => (decided.has(i) ? i : decideNode(withDecidedInputs(i, decided, rules), undefined, rules)));
  return next.some((n, i) => n !== inputs[i]) ? withPlanInputs(p, next) : p;
}

/**
 * A plan built without the planner (tests, tools) with every physical rule applied,
 * children first, as planStatement applies them; nodes have no logical origin, so
 * choices that need row estimates or table statistics are not made.
 */
export function decidePhysicalPlan(plan: PhysicalPlan, rules: readonly PhysicalRule[] = physicalRules): PhysicalPlan {
  return decideTree(plan, rules);
}

function decideTree(plan: PhysicalPlan, rules: readonly PhysicalRule[]): PhysicalPlan {
  const inputs = planInputs(plan);
  const decided = inputs.map((i) => decideTree(i, rules));
  const rebuilt = decided.some((d, i) => d !== inputs[i]) ? withPlanInputs(plan, decided) : plan;
  return decideNode(rebuilt, undefined, rules);
}

/** `p` with its inputs (in planInputs order) replaced. */
function withPlanInputs(p: PhysicalPlan, inputs: readonly PhysicalPlan[]): PhysicalPlan {
  switch (p.kind) {
    case 'lakeScan': case 'virtualScan': case 'values': case 'cteScan': case 'workTableScan':
      return p;
    case 'hashJoin': case 'nestedLoopJoin': case 'setOp': case 'recursiveUnion':
      return { ...p, left: inputs[0]!, right: inputs[1]! };
    case 'lateralJoin':
      return { ...p, input: inputs[0]!, right: inputs[1]! };
    default:
      return { ...p, input: inputs[0]! };
  }
}
