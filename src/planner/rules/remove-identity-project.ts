import type { LogicalPlan } from '../logical/logical-plan.js';
import type { OptimizerRule, RuleResult } from '../optimizer-rule.js';

/** A projection that passes its input through unchanged (same columns, order and names) is dropped. */
function apply(p: LogicalPlan): RuleResult {
  // A barrier stays: without it a filter above would merge with the view's own.
  if (p.kind !== 'project' || p.barrier || p.exprs.length !== p.input.columns.length) return { plan: p, changed: false };
  const identity = p.exprs.every((e, i) => e.kind === 'column' && e.index === i && p.columns[i]!.name === p.input.columns[i]!.name
    && p.columns[i]!.type.kind === p.input.columns[i]!.type.kind);
  return identity ? { plan: p.input, changed: true } : { plan: p, changed: false };
}

export const removeIdentityProject: OptimizerRule = { name: 'remove-identity-project', apply };
