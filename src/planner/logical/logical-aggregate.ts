import type { AggregateCall, Expr, OutputColumn } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

export interface LogicalAggregate {
  readonly kind: 'aggregate';
  readonly input: LogicalPlan;
  readonly groupBy: readonly Expr[];
  readonly groupingSets?: readonly (readonly number[])[];
  /** Keys the other keys determine (see HashAggregatePlan.dependentKeys); set by rules/dependent-group-keys.ts. */
  readonly dependentKeys?: readonly number[];
  readonly aggregates: readonly AggregateCall[];
  readonly columns: readonly OutputColumn[];
}

export const LogicalAggregate = Object.freeze({
  create(props: Omit<LogicalAggregate, 'kind'>): LogicalAggregate {
    return Object.freeze({ kind: 'aggregate', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalAggregate {
    return node.kind === 'aggregate';
  },
});
