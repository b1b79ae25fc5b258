import type { ScanSelection } from '../../exec/index.js';
import type { ScanTable } from './scan-table.js';

export interface LogicalScan extends ScanSelection {
  readonly kind: 'scan';
  readonly table: ScanTable;
  /** Its residual holds a security barrier's predicate (LogicalFilter.barrier): no other predicate joins it. */
  readonly barrier?: true;
}

export const LogicalScan = Object.freeze({
  create(props: Omit<LogicalScan, 'kind'>): LogicalScan {
    return Object.freeze({ kind: 'scan', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalScan {
    return node.kind === 'scan';
  },
});
