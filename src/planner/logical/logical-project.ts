import type { Expr, OutputColumn } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

export interface LogicalProject {
  readonly kind: 'project';
  readonly input: LogicalPlan;
  readonly exprs: readonly Expr[];
  readonly columns: readonly OutputColumn[];
}

export const LogicalProject = Object.freeze({
  create(props: Omit<LogicalProject, 'kind'>): LogicalProject {
    return Object.freeze({ kind: 'project', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalProject {
    return node.kind === 'project';
  },
});
