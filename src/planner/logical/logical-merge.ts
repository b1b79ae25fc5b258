import type { CheckConstraintPlan, Expr, LakeTableRef, MergeAction, OutputColumn } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

/**
 * MERGE into a lake table: `input` is source ++ target row (++ row id for append
 * tables) ++ sourcePresent ++ targetPresent, as EXEC's MergePlan expects.
 */
export interface LogicalMerge {
  readonly kind: 'merge';
  readonly table: LakeTableRef;
  readonly ref?: string;
  readonly input: LogicalPlan;
  readonly sourceWidth: number;
  readonly sourcePresent: number;
  readonly targetPresent: number;
  readonly actions: readonly MergeAction[];
  readonly returning?: readonly Expr[];
  readonly checks?: readonly CheckConstraintPlan[];
  readonly columns: readonly OutputColumn[];
}

export const LogicalMerge = Object.freeze({
  create(props: Omit<LogicalMerge, 'kind'>): LogicalMerge {
    return Object.freeze({ kind: 'merge', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalMerge {
    return node.kind === 'merge';
  },
});
