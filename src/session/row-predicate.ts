import { FloeError } from '../common/floe-error.js';
import { compileExpr, createRunState, type ExecContext, type Expr, type SubqueryPlan } from '../exec/index.js';
import type { TableMetadata } from '../lake/index.js';
import { mapChildren, planStatement, type LogicalStatementPlan } from '../planner/index.js';
import { bindRowPredicate, type BindEnv, type BoundRowPredicate, type StatementAccesses } from '../sql/index.js';

/** A condition over a table's row, compiled once, to test rows that no query reads (the publication stream's). */
export interface RowPredicate {
  /** What the condition reads besides the row, for a privilege check before it runs. */
  readonly accesses: StatementAccesses;
  /** Per row (values in the table's column order), whether the condition holds: false and NULL both hide a row, as in a WHERE. */
  test(rows: readonly (readonly unknown[])[], ctx: ExecContext): Promise<boolean[]>;
}

/**
 * The condition text bound over the table's row and compiled. Its subqueries are planned
 * here, as a statement's are by the planner, since no statement plan carries them; they
 * read the tables as they are when they run.
 */
export function rowPredicate(env: BindEnv, table: TableMetadata, text: string): RowPredicate {
  let bound: BoundRowPredicate;
  try {
    bound = bindRowPredicate(env, table, text);
  } catch (e) {
    // The text's positions are not the statement's: report without them, naming where the text came from.
    if (e instanceof FloeError) throw new FloeError(e.sqlstate, `${e.message} (in the row-level security policies of table "${table.name}")`);
    throw e;
  }
  const compiled = compileExpr(withPlannedSubqueries(bound.expr));
  const width = table.columns.length;
  return {
    accesses: bound.accesses,
    async test(rows, ctx) {
      if (rows.length === 0) return [];
      const columns = Array.from({ length: width }, (_, c) => rows.map((r) => r[c] ?? null));
      const values = await compiled.evaluate({ numRows: rows.length, columns }, createRunState(ctx));
      return values.map((v) => v === true);
    },
  };
}

function withPlannedSubqueries(e: Expr): Expr {
  const planned = (p: SubqueryPlan) => (p.kind === 'unplannedSubquery' ? planStatement(p.logical as LogicalStatementPlan) : p);
  switch (e.kind) {
    case 'scalarSubquery': case 'exists': return { ...e, plan: planned(e.plan) };
    case 'inSubquery': return { ...e, arg: withPlannedSubqueries(e.arg), plan: planned(e.plan) };
    default: return mapChildren(e, withPlannedSubqueries);
  }
}
