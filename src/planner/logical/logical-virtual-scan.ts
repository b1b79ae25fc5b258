import type { Expr, OutputColumn } from '../../exec/index.js';

export interface LogicalVirtualScan {
  readonly kind: 'virtualScan';
  readonly schema: string;
  readonly name: string;
  /** Indexes of the virtual table's columns, in output order. */
  readonly projection: readonly number[];
  readonly columns: readonly OutputColumn[];
  /** Arguments evaluated when the scan starts (`table_changes('t', $1, $2)`'s snapshots). */
  readonly args?: readonly Expr[];
}

export const LogicalVirtualScan = Object.freeze({
  create(props: Omit<LogicalVirtualScan, 'kind'>): LogicalVirtualScan {
    return Object.freeze({ kind: 'virtualScan', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalVirtualScan {
    return node.kind === 'virtualScan';
  },
});
