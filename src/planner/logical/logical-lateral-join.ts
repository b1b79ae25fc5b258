import type { Expr, OutputColumn } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

/**
 * `FROM a, LATERAL (… a.x …) s` and `a [LEFT] JOIN LATERAL … ON …`: the right
 * side reads the input's current row (outerColumn depth 1), so it is planned
 * on its own, like a correlated subquery (physical planning plans it as a nested
 * plan), and runs once per input row. Rules see only the input; every input
 * column stays, since the right side may read any.
 */
export interface LogicalLateralJoin {
  readonly kind: 'lateralJoin';
  readonly joinType: 'inner' | 'left';
  readonly input: LogicalPlan;
  readonly right: LogicalPlan;
  /** ON, over the input's columns then the right side's. */
  readonly condition?: Expr;
  readonly columns: readonly OutputColumn[];
}

export const LogicalLateralJoin = Object.freeze({
  create(props: Omit<LogicalLateralJoin, 'kind'>): LogicalLateralJoin {
    return Object.freeze({ kind: 'lateralJoin', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalLateralJoin {
    return node.kind === 'lateralJoin';
  },
});
