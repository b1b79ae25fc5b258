import type { CheckConstraintPlan } from '../../exec/plan/check-constraint-plan.js';
import type { Expr } from '../../exec/expr/expr.js';
import type { LogicalPlan } from './logical-plan.js';
import type { OutputColumn, LakeTableRef, InsertPlan } from '../../exec/plan/physical-plan.js';

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
