import type { OutputColumn } from '../../exec/index.js';

export interface LogicalVirtualScan {
  readonly kind: 'virtualScan';
  readonly schema: string;
  readonly name: string;
  /** Indexes of the virtual table's columns, in output order. */
  readonly projection: readonly number[];
  readonly columns: readonly OutputColumn[];
}

export const LogicalVirtualScan = Object.freeze({
  create(props: Omit<LogicalVirtualScan, 'kind'>): LogicalVirtualScan {
    return Object.freeze({ kind: 'virtualScan', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalVirtualScan {
    return node.kind === 'virtualScan';
  },
});
