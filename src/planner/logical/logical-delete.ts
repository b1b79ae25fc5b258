import type { Expr, LakeTableRef, OutputColumn } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

export interface LogicalDelete {
  readonly kind: 'delete';
  readonly table: LakeTableRef;
  readonly ref?: string;
  readonly input: LogicalPlan;
  readonly returning?: readonly Expr[];
  /** RETURNING reads the input's columns from here on too (UPDATE FROM / DELETE USING items), after the written row. */
  readonly returningExtra?: number;
  readonly columns: readonly OutputColumn[];
}

export const LogicalDelete = Object.freeze({
  create(props: Omit<LogicalDelete, 'kind'>): LogicalDelete {
    return Object.freeze({ kind: 'delete', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalDelete {
    return node.kind === 'delete';
  },
});
