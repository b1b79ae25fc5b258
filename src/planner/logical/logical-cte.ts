import type { LogicalPlan } from './logical-plan.js';

/**
 * A WITH query computed once for all its readers (PostgreSQL's rule: MATERIALIZED,
 * read more than once, volatile, or data-modifying). Its plan is optimized and
 * physically planned on its own, once per statement, so one reader's filters
 * cannot change what another reads; every reader's cteScan names this object,
 * and the planner keys the plan it makes by it.
 */
export interface LogicalCte {
  readonly name: string;
  readonly plan: LogicalPlan;
  /**
   * Rows it returns, when the binder knows better than an estimate of the plan
   * (a data-modifying WITH query: its RETURNING rows). Otherwise the planner
   * estimates its optimized plan.
   */
  readonly rowEstimate?: number;
}

export const LogicalCte = Object.freeze({
  create(props: LogicalCte): LogicalCte {
    return Object.freeze({ ...props });
  },
});
