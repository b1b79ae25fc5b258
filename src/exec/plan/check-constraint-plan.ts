import type { Expr } from '../expr/expr.js';

/**
 * A table's CHECK constraint, bound once per statement over the written row (table
 * columns in table order). A row fails it only when `expr` is false: NULL passes.
 */
export interface CheckConstraintPlan {
  readonly name: string;
  readonly expr: Expr;
  /**
   * A row-security test instead of a constraint: a row passes only when `expr` is true
   * (NULL fails), and a failure is 42501 naming the policy (`name`, or none for the
   * permissive policies together). 'withCheck' tests a row about to be written; 'using'
   * the existing row an INSERT … ON CONFLICT DO UPDATE would change, which PostgreSQL
   * refuses rather than skips.
   */
  readonly rowSecurity?: 'withCheck' | 'using';
}
