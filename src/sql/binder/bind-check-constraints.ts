import { FloeError } from '../../common/floe-error.js';
import type { CheckConstraintPlan } from '../../exec/index.js';
import type { BindEnv, CatalogTable, RowSecurityCommand } from '../bind-env.js';
import { BindContext } from './bind-context.js';
import { bindCheckExpr, parseCheckText } from './bind-table-constraint.js';

/**
 * The table's CHECK constraints bound over its row, in name order (the order PostgreSQL
 * checks them in, so the first failure named is the same). Undefined when it has none.
 * Every DML binder (INSERT, UPDATE, MERGE, upserts) and COPY call this one function.
 */
export function bindCheckConstraints(ctx: BindContext, table: CatalogTable, command: WriteCommand, readsRows = false): CheckConstraintPlan[] | undefined {
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
    plans.push(...rowSecurityTests(ctx, table, cmd, 'withCheck'));
  }
  // A statement that reads the rows it writes (RETURNING, a WHERE or SET reading the table,
  // ON CONFLICT DO UPDATE) must be able to see them: they must pass SELECT's USING, as in PostgreSQL.
  if (readsRows && command !== 'merge') plans.push(...rowSecurityTests(ctx, table, 'select', 'withCheck'));
  return plans.length === 0 ? undefined : plans;
}

/**
 * INSERT … ON CONFLICT DO UPDATE's test of the existing row it is about to change: UPDATE's
 * and SELECT's USING, as checks that fail the statement (42501, "USING expression") where a
 * plain UPDATE would have skipped the row, as PostgreSQL does. Undefined when none apply.
 */
export function bindConflictRowChecks(ctx: BindContext, table: CatalogTable): CheckConstraintPlan[] | undefined {
  const plans = [...rowSecurityTests(ctx, table, 'update', 'using'), ...rowSecurityTests(ctx, table, 'select', 'using')];
  return plans.length === 0 ? undefined : plans;
}

/** A command's policies bound as row tests: its WITH CHECKs (for 'withCheck' on a write) or its USING (as tests). */
function rowSecurityTests(ctx: BindContext, table: CatalogTable, command: RowSecurityCommand, kind: 'withCheck' | 'using'): CheckConstraintPlan[] {
  const exprs = ctx.env.rowSecurity?.(table.id, command, ctx.enclosingView);
  const tests = exprs === undefined ? [] : command === 'select' || kind === 'using' ? exprs.usingChecks : exprs.checks;
  return tests.map((c) => ({ name: c.name ?? '', expr: bindCheckExpr(ctx, parseCheckText(c.expr), table), rowSecurity: kind }));
}

/** The writes CHECK constraints and row-security checks apply to. */
export type WriteCommand = 'insert' | 'update' | 'merge';

/** bindCheckConstraints outside a statement (COPY FROM, which the session runs itself). */
export function bindTableCheckConstraints(env: BindEnv, table: CatalogTable, command: WriteCommand): CheckConstraintPlan[] | undefined {
  return bindCheckConstraints(BindContext.outsideStatement(env), table, command);
}

/** `{ checks }` for a DML plan node, or nothing when the table has no CHECK. */
export function withChecks(ctx: BindContext, table: CatalogTable, command: WriteCommand, readsRows = false): { checks?: CheckConstraintPlan[] } {
  const checks = bindCheckConstraints(ctx, table, command, readsRows);
  return checks === undefined ? {} : { checks };
}
