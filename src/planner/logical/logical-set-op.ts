import type { LogicalPlan } from './logical-plan.js';
import type { OutputColumn } from '../../exec/index.js';

export interface LogicalSetOp {
  readonly kind: 'setOp';
  readonly op: 'union' | 'intersect' | 'except';
  readonly all: boolean;
  readonly left: LogicalPlan;
  readonly right: LogicalPlan;
  readonly columns: readonly OutputColumn[];
}

export const LogicalSetOp = Object.freeze({
  create(props: Omit<LogicalSetOp, 'kind'>): LogicalSetOp {
    return Object.freeze({ kind: 'setOp', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalSetOp {
    return node.kind === 'setOp';
  },
});
