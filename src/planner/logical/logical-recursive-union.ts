import type { RecursiveUnionPlan } from '../../exec/plan/physical-plan.js';

/**
 * A WITH RECURSIVE query: its two terms are planned on their own (the
 * recursive one reads the work table, which changes every iteration), so to
 * the rules this is a leaf, as a materialized WITH query is; it is therefore
 * the physical node already.
 */
export type LogicalRecursiveUnion = RecursiveUnionPlan;

export const LogicalRecursiveUnion = Object.freeze({
  create(props: Omit<LogicalRecursiveUnion, 'kind'>): LogicalRecursiveUnion {
    return Object.freeze({ kind: 'recursiveUnion', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalRecursiveUnion {
    return node.kind === 'recursiveUnion';
  },
});
