import type { Expr, OutputColumn, SetFunctionCall } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

/** PostgreSQL's ProjectSet: a projection whose set-returning calls expand each input row. */
export interface LogicalProjectSet {
  readonly kind: 'projectSet';
  readonly input: LogicalPlan;
  readonly exprs: readonly (Expr | SetFunctionCall)[];
  readonly ordinality?: boolean;
  readonly columns: readonly OutputColumn[];
}

export const LogicalProjectSet = Object.freeze({
  create(props: Omit<LogicalProjectSet, 'kind'>): LogicalProjectSet {
    return Object.freeze({ kind: 'projectSet', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalProjectSet {
    return node.kind === 'projectSet';
  },
});
