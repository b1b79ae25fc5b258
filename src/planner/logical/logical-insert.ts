import type { CheckConstraintPlan, Expr, InsertPlan, LakeTableRef, OutputColumn } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

export interface LogicalInsert {
  readonly kind: 'insert';
  readonly table: LakeTableRef;
  readonly ref?: string;
  readonly input: LogicalPlan;
  readonly onConflict?: InsertPlan['onConflict'];
  readonly returning?: readonly Expr[];
  readonly checks?: readonly CheckConstraintPlan[];
  readonly columns: readonly OutputColumn[];
}

export const LogicalInsert = Object.freeze({
  create(props: Omit<LogicalInsert, 'kind'>): LogicalInsert {
    return Object.freeze({ kind: 'insert', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalInsert {
    return node.kind === 'insert';
  },
});
