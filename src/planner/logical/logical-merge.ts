import type { MergeTarget } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

/**
 * MERGE into a lake table: `input` is source ++ target row (++ row id for append
 * tables) ++ sourcePresent ++ targetPresent, as EXEC's MergePlan expects.
 */
export interface LogicalMerge extends MergeTarget {
  readonly kind: 'merge';
  readonly input: LogicalPlan;
}

export const LogicalMerge = Object.freeze({
  create(props: Omit<LogicalMerge, 'kind'>): LogicalMerge {
    return Object.freeze({ kind: 'merge', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalMerge {
    return node.kind === 'merge';
  },
});
