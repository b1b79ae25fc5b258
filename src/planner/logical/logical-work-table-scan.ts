import type { OutputColumn, WorkTable } from '../../exec/index.js';

/** The recursive term's reference to its own WITH query: the previous iteration's new rows. */
export interface LogicalWorkTableScan {
  readonly kind: 'workTableScan';
  readonly workTable: WorkTable;
  readonly columns: readonly OutputColumn[];
}

export const LogicalWorkTableScan = Object.freeze({
  create(props: Omit<LogicalWorkTableScan, 'kind'>): LogicalWorkTableScan {
    return Object.freeze({ kind: 'workTableScan', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalWorkTableScan {
    return node.kind === 'workTableScan';
  },
});
