import type { LogicalPlan } from './logical-plan.js';
import type { OutputColumn, WindowCall } from '../../exec/index.js';

export interface LogicalWindow {
  readonly kind: 'window';
  readonly input: LogicalPlan;
  readonly functions: readonly WindowCall[];
  readonly columns: readonly OutputColumn[];
}

export const LogicalWindow = Object.freeze({
  create(props: Omit<LogicalWindow, 'kind'>): LogicalWindow {
    return Object.freeze({ kind: 'window', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalWindow {
    return node.kind === 'window';
  },
});
