import type { Expr, OutputColumn } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

export interface LogicalFilter {
  readonly kind: 'filter';
  readonly input: LogicalPlan;
  readonly predicate: Expr;
  readonly columns: readonly OutputColumn[];
  /**
   * A security barrier (a row-security policy's USING): nothing from above may run before
   * it on its rows — filters above are not merged into it, and a scan it is pushed into
   * keeps later predicates out of its residual (they stay a filter above).
   */
  readonly barrier?: true;
}

export const LogicalFilter = Object.freeze({
  create(props: Omit<LogicalFilter, 'kind'>): LogicalFilter {
    return Object.freeze({ kind: 'filter', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalFilter {
    return node.kind === 'filter';
  },
});
