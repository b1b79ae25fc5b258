import type { OutputColumn, PhysicalPlan, WorkTable } from '../../exec/plan/physical-plan.js';

/**
 * A WITH RECURSIVE query: its two terms are planned on their own (the
 * recursive one reads the work table, which changes every iteration), so to
 * the rules this is a leaf, as a materialized WITH query is.
 */
export interface LogicalRecursiveUnion {
  readonly kind: 'recursiveUnion';
  readonly all: boolean;
  readonly workTable: WorkTable;
  readonly left: PhysicalPlan;
  readonly right: PhysicalPlan;
  readonly columns: readonly OutputColumn[];
}

export const LogicalRecursiveUnion = Object.freeze({
  create(props: Omit<LogicalRecursiveUnion, 'kind'>): LogicalRecursiveUnion {
    return Object.freeze({ kind: 'recursiveUnion', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalRecursiveUnion {
    return node.kind === 'recursiveUnion';
  },
});
