import type { MaterializedCte, OutputColumn } from '../../exec/plan/physical-plan.js';

/**
 * A read of a WITH query the statement reads more than once: its plan was
 * optimized and planned once (rules do not reach into it, so one reader's
 * filters cannot change what another reads), and the executor computes it once.
 */
export interface LogicalCteScan {
  readonly kind: 'cteScan';
  readonly cte: MaterializedCte;
  /** Rows the WITH query was estimated to return, for choosing join sides. */
  readonly rowEstimate: number;
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
