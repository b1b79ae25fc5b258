import { FloeError } from '../../common/floe-error.js';
import type { CheckConstraintPlan } from '../../exec/index.js';
import type { BindEnv, CatalogTable } from '../bind-env.js';
import type { ParsedStatement } from '../parsed-statement.js';
import { BindContext } from './bind-context.js';
import { bindCheckExpr, parseCheckText } from './bind-table-constraint.js';

/**
 * The table's CHECK constraints bound over its row, in name order (the order PostgreSQL
 * checks them in, so the first failure named is the same). Undefined when it has none.
 * Every DML binder (INSERT, UPDATE, MERGE, upserts) and COPY call this one function.
 */
export function bindCheckConstraints(ctx: BindContext, table: CatalogTable, command: WriteCommand): CheckConstraintPlan[] | undefined {
  const checks = (table.constraints ?? []).filter((c) => c.kind === 'check');
  const plans = [...checks].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((c): CheckConstraintPlan => {
    try {
      return { name: c.name, expr: bindCheckExpr(ctx, parseCheckText(c.expr), table) };
    } catch (e) {
      // The stored text's positions are not the statement's: report without them.
      if (e instanceof FloeError) throw new FloeError(e.sqlstate, `${e.message} (in check constraint "${c.name}")`);
      throw e;
    }
  });
  // Row security's WITH CHECK, after the constraints (PostgreSQL checks it after them too); MERGE may insert and update.
  for (const cmd of command === 'merge' ? ['insert', 'update'] as const : [command]) {
    for (const c of ctx.env.rowSecurity?.(table.id, cmd)?.checks ?? []) {
      plans.push({ name: c.name ?? '', expr: bindCheckExpr(ctx, parseCheckText(c.expr), table), rowSecurity: true });
    }
  }
  return plans.length === 0 ? undefined : plans;
}

/** The writes CHECK constraints and row-security checks apply to. */
export type WriteCommand = 'insert' | 'update' | 'merge';

/** bindCheckConstraints outside a statement (COPY FROM, which the session runs itself). */
export function bindTableCheckConstraints(env: BindEnv, table: CatalogTable, command: WriteCommand): CheckConstraintPlan[] | undefined {
  const stmt: ParsedStatement = { text: '', location: 0, ast: {} as ParsedStatement['ast'], lake: [], source: '', isTransactionEnd: false };
  return bindCheckConstraints(new BindContext(stmt, env), table, command);
}

/** `{ checks }` for a DML plan node, or nothing when the table has no CHECK. */
export function withChecks(ctx: BindContext, table: CatalogTable, command: WriteCommand): { checks?: CheckConstraintPlan[] } {
  const checks = bindCheckConstraints(ctx, table, command);
  return checks === undefined ? {} : { checks };
}
