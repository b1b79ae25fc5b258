import type { ScanSelection } from '../../exec/index.js';
import type { ScanTable } from './scan-table.js';

export interface LogicalScan extends ScanSelection {
  readonly kind: 'scan';
  readonly table: ScanTable;
}

export const LogicalScan = Object.freeze({
  create(props: Omit<LogicalScan, 'kind'>): LogicalScan {
    return Object.freeze({ kind: 'scan', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalScan {
    return node.kind === 'scan';
  },
});
