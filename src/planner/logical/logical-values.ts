import type { Expr, OutputColumn } from '../../exec/index.js';

export interface LogicalValues {
  readonly kind: 'values';
  readonly rows: readonly (readonly Expr[])[];
  readonly columns: readonly OutputColumn[];
}

export const LogicalValues = Object.freeze({
  create(props: Omit<LogicalValues, 'kind'>): LogicalValues {
    return Object.freeze({ kind: 'values', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalValues {
    return node.kind === 'values';
  },
});
