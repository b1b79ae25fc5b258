import type { Expr } from '../expr/expr.js';

/**
 * A table's CHECK constraint, bound once per statement over the written row (table
 * columns in table order). A row fails it only when `expr` is false: NULL passes.
 */
export interface CheckConstraintPlan {
  readonly name: string;
  readonly expr: Expr;
}
