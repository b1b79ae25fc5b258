import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ExecContext } from '../exec-context.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { CheckConstraintPlan } from '../plan/check-constraint-plan.js';
import { createRunState, type RunState } from '../run-state.js';
import { formatValue } from '../types/text-io.js';
import { toColumns } from './dml-support.js';

/** A table's CHECK constraints compiled once per statement; `enforce` raises 23514 for the first row one rejects. */
export interface CheckConstraints {
  enforce(rows: readonly (readonly unknown[])[], run: RunState): Promise<void>;
}

/**
 * Compiles the CHECK constraints a DML plan carries (undefined when there are none).
 * Every writing path (INSERT, upserts, UPDATE, MERGE, COPY) enforces through it, on
 * the rows it is about to write; PostgreSQL's message and DETAIL name the row.
 */
export function compileCheckConstraints(
  checks: readonly CheckConstraintPlan[] | undefined, table: { readonly name: string; readonly columns: readonly { readonly type: SqlType }[] },
): CheckConstraints | undefined {
  if (checks === undefined || checks.length === 0) return undefined;
  const compiled = checks.map((c) => ({ name: c.name, fn: compileExpr(c.expr), rowSecurity: c.rowSecurity }));
  const width = table.columns.length;
  return {
    async enforce(rows, run) {
      if (rows.length === 0) return;
      const batch = { numRows: rows.length, columns: toColumns(rows, width) };
      const results: (readonly unknown[])[] = [];
      for (const c of compiled) results.push(await c.fn.evaluate(batch, run));
      // Row by row, each row's constraints in name order: the first failure PostgreSQL would report.
      for (let r = 0; r < rows.length; r++) {
        for (let k = 0; k < compiled.length; k++) {
          const c = compiled[k]!;
          if (c.rowSecurity !== undefined) {
            if (results[k]![r] === true) continue;
            const using = c.rowSecurity === 'using' ? ' (USING expression)' : '';
            throw new FloeError(SqlState.insufficientPrivilege, c.name === ''
              ? `new row violates row-level security policy${using} for table "${table.name}"`
              : `new row violates row-level security policy "${c.name}"${using} for table "${table.name}"`);
          }
          if (results[k]![r] !== false) continue;
          const tz = run.ctx.settings?.get('timezone') ?? 'UTC';
          const values = rows[r]!.map((v, i) => (v === null || v === undefined ? 'null' : formatValue(v, table.columns[i]!.type, { timeZone: tz })));
          throw new FloeError(SqlState.checkViolation, `new row for relation "${table.name}" violates check constraint "${compiled[k]!.name}"`, {
            detail: `Failing row contains (${values.join(', ')}).`,
          });
        }
      }
    },
  };
}

/** compileCheckConstraints(…).enforce outside an operator (COPY FROM, run by the session). */
export async function enforceCheckConstraints(
  checks: readonly CheckConstraintPlan[] | undefined, table: { readonly name: string; readonly columns: readonly { readonly type: SqlType }[] },
  rows: readonly (readonly unknown[])[], ctx: ExecContext,
): Promise<void> {
  await compileCheckConstraints(checks, table)?.enforce(rows, createRunState(ctx));
}
