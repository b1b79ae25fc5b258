import { LogicalFilter } from '../logical/logical-filter.js';
import type { LogicalPlan } from '../logical/logical-plan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';
import { conjunction, conjuncts } from '../expr-utils.js';

/** filter(filter(x, a), b) → filter(x, a AND b): one pass over the rows, and one predicate to push. */
function apply(p: LogicalPlan): RuleResult {
  if (p.kind !== 'filter' || p.input.kind !== 'filter') return { plan: p, changed: false };
  // A barrier merges only with another barrier: a predicate from above must not run on rows it hides.
  if ((p.barrier === true) !== (p.input.barrier === true)) return { plan: p, changed: false };
  const predicate = conjunction([...conjuncts(p.input.predicate), ...conjuncts(p.predicate)])!;
  return { plan: LogicalFilter.create({ input: p.input.input, predicate, columns: p.columns, ...(p.barrier ? { barrier: true } : {}) }), changed: true };
}

export const mergeFilters: OptimizerRule = { name: 'merge-filters', apply };
