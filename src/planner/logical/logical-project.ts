import type { Expr, OutputColumn } from '../../exec/index.js';
import type { LogicalPlan } from './logical-plan.js';

export interface LogicalProject {
  readonly kind: 'project';
  readonly input: LogicalPlan;
  readonly exprs: readonly Expr[];
  readonly columns: readonly OutputColumn[];
  /**
   * A security-barrier view's output: no predicate from above moves below it, so none runs
   * on a row the view's own conditions (or the policies inside it) would have removed.
   */
  readonly barrier?: true;
}

export const LogicalProject = Object.freeze({
  create(props: Omit<LogicalProject, 'kind'>): LogicalProject {
    return Object.freeze({ kind: 'project', ...props });
  },
  is(node: { readonly kind: string }): node is LogicalProject {
    return node.kind === 'project';
  },
});
