import type { Expr, OutputColumn } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

export interface LogicalDistinct {
  readonly kind: 'distinct';
  readonly input: LogicalPlan;
  readonly on?: readonly Expr[];
  readonly columns: readonly OutputColumn[];
}

export const LogicalDistinct = Object.freeze({
  create(props: Omit<LogicalDistinct, 'kind'>): LogicalDistinct {
    return Object.freeze({ kind: 'distinct', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalDistinct {
    return node.kind === 'distinct';
  },
});
