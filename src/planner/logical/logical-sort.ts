import type { LogicalPlan } from './logical-plan.js';
import type { OutputColumn, SortKey } from '../../exec/index.js';

export interface LogicalSort {
  readonly kind: 'sort';
  readonly input: LogicalPlan;
  readonly keys: readonly SortKey[];
  readonly columns: readonly OutputColumn[];
}

export const LogicalSort = Object.freeze({
  create(props: Omit<LogicalSort, 'kind'>): LogicalSort {
    return Object.freeze({ kind: 'sort', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalSort {
    return node.kind === 'sort';
  },
});
