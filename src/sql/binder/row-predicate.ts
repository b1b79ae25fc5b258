import type { Expr } from '../../exec/index.js';
import type { BindEnv, CatalogTable } from '../bind-env.js';
import type { StatementAccesses } from '../relation-access.js';
import { BindContext } from './bind-context.js';
import { bindCheckExpr, parseCheckText } from './bind-table-constraint.js';

/** A condition over a table's row bound outside any statement, as the session tests rows with it. */
export interface BoundRowPredicate {
  /** Boolean, over the row's columns in table order; its subqueries are still to be planned. */
  readonly expr: Expr;
  /** What the condition reads besides the row (its subqueries' relations), for the caller's privilege check. */
  readonly accesses: StatementAccesses;
}

/**
 * A row-security USING (or any condition text over the table's columns) bound over the
 * table's row, with the policies that apply to the role on the tables its subqueries read.
 */
export function bindRowPredicate(env: BindEnv, table: CatalogTable, text: string): BoundRowPredicate {
  const ctx = BindContext.outsideStatement(env, text);
  const expr = bindCheckExpr(ctx, parseCheckText(text), table);
  return { expr, accesses: ctx.access.list() };
}
