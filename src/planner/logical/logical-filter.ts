import type { Expr, OutputColumn } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

export interface LogicalFilter {
  readonly kind: 'filter';
  readonly input: LogicalPlan;
  readonly predicate: Expr;
  readonly columns: readonly OutputColumn[];
}

export const LogicalFilter = Object.freeze({
  create(props: Omit<LogicalFilter, 'kind'>): LogicalFilter {
    return Object.freeze({ kind: 'filter', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalFilter {
    return node.kind === 'filter';
  },
});
