import type { OutputColumn } from '../../exec/index.js';
import type { LogicalCte } from './logical-cte.js';

/**
 * A read of a WITH query the statement computes once (logical-cte.ts): rules do
 * not reach into it, so to them this is a leaf.
 */
export interface LogicalCteScan {
  readonly kind: 'cteScan';
  readonly cte: LogicalCte;
  /**
   * Rows the WITH query is estimated to return, for choosing join sides: set by
   * the planner (plan-statement.ts) from the WITH query's optimized plan before
   * the reader's plan is optimized.
   */
  readonly rowEstimate?: number;
  readonly columns: readonly OutputColumn[];
}

export const LogicalCteScan = Object.freeze({
  create(props: Omit<LogicalCteScan, 'kind'>): LogicalCteScan {
    return Object.freeze({ kind: 'cteScan', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalCteScan {
    return node.kind === 'cteScan';
  },
});
