import type { Expr, OutputColumn, ScanFilterSpec, ScanSnapshotSelector } from '../../exec/index.js';
import type { ScanTable } from './scan-table.js';

export interface LogicalScan {
  readonly kind: 'scan';
  readonly table: ScanTable;
  /** Time travel (FOR SYSTEM_TIME / SYSTEM_VERSION AS OF) or a branch read through `t$branch_b`. */
  readonly at?: ScanSnapshotSelector;
  /** Table column names to read, in output order. */
  readonly projection: readonly string[];
  /** Predicates offered to the lake for pruning; `residual` always re-checks them. */
  readonly filters: readonly ScanFilterSpec[];
  /** Predicate over the output columns, applied after the lake's scan. */
  readonly residual?: Expr;
  readonly limit?: number;
  readonly columns: readonly OutputColumn[];
}

export const LogicalScan = Object.freeze({
  create(props: Omit<LogicalScan, 'kind'>): LogicalScan {
    return Object.freeze({ kind: 'scan', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalScan {
    return node.kind === 'scan';
  },
});
