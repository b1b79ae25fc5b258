import type { CheckConstraintPlan, Expr, LakeTableRef, OutputColumn } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

export interface LogicalUpdate {
  readonly kind: 'update';
  readonly table: LakeTableRef;
  readonly ref?: string;
  readonly input: LogicalPlan;
  readonly set: readonly { readonly column: number; readonly expr: Expr }[];
  readonly returning?: readonly Expr[];
  /** RETURNING reads the input's columns from here on too (UPDATE FROM / DELETE USING items), after the written row. */
  readonly returningExtra?: number;
  readonly checks?: readonly CheckConstraintPlan[];
  readonly columns: readonly OutputColumn[];
}

export const LogicalUpdate = Object.freeze({
  create(props: Omit<LogicalUpdate, 'kind'>): LogicalUpdate {
    return Object.freeze({ kind: 'update', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalUpdate {
    return node.kind === 'update';
  },
});
