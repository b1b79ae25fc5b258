import type { OutputColumn, WorkTable } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

/**
 * A WITH RECURSIVE query: its two terms are planned on their own (the
 * recursive one reads the work table, which changes every iteration), so to
 * the rules this is a leaf, as a materialized WITH query is. Physical planning
 * plans each term as a nested plan.
 */
export interface LogicalRecursiveUnion {
  readonly kind: 'recursiveUnion';
  readonly all: boolean;
  readonly workTable: WorkTable;
  /** The non-recursive term. */
  readonly left: LogicalPlan;
  /** The recursive term, reading the work table. */
  readonly right: LogicalPlan;
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
