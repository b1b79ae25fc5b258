import type { Expr, OutputColumn } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

export interface LogicalLimit {
  readonly kind: 'limit';
  readonly input: LogicalPlan;
  readonly limit?: Expr;
  readonly offset?: Expr;
  /** FETCH … WITH TIES: the input is the ORDER BY's sort, and rows tied with the last one kept are kept too. */
  readonly withTies?: true;
  readonly columns: readonly OutputColumn[];
}

export const LogicalLimit = Object.freeze({
  create(props: Omit<LogicalLimit, 'kind'>): LogicalLimit {
    return Object.freeze({ kind: 'limit', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalLimit {
    return node.kind === 'limit';
  },
});
