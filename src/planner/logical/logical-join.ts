import type { Expr, JoinType, OutputColumn } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

export interface LogicalJoin {
  readonly kind: 'join';
  readonly joinType: JoinType;
  readonly left: LogicalPlan;
  readonly right: LogicalPlan;
  /** Over left ++ right columns; absent = cross join. */
  readonly condition?: Expr;
  readonly columns: readonly OutputColumn[];
}

export const LogicalJoin = Object.freeze({
  create(props: Omit<LogicalJoin, 'kind'>): LogicalJoin {
    return Object.freeze({ kind: 'join', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalJoin {
    return node.kind === 'join';
  },
});
