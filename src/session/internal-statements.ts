import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { formatType as formatTypeName } from '../common/sql-type.js';
import type { SqlType } from '../common/sql-type.js';
import { enforceCheckConstraints, type ExecContext, executePlan, parseValue, type PhysicalPlan, vectorToValues } from '../exec/index.js';
import type { TableMetadata } from '../lake/index.js';
import { bindStatement, bindTableCheckConstraints, parseStatements } from '../sql/index.js';
import type { AlterTableIo } from './alter-table-action.js';
import { runDml } from './run-statement.js';
import type { ViewDdlIo } from './run-view-ddl.js';
import type { SessionContext } from './session-context.js';
import { validateTableProperties } from './table-properties.js';

/*
 * SQL a session runs on its own behalf, inside the user's transaction: the arguments of
 * CALL and EXECUTE, column defaults and CHECK constraints for COPY, and what ALTER TABLE,
 * views and CREATE TABLE AS need.
 */

/** An executor context for a statement the session runs itself: no parameters, never cancelled. */
function internalExecContext(ctx: SessionContext): ExecContext {
  return ctx.execContext([], new AbortController().signal, ctx.transaction.current?.lake);
}

/** The values of a one-row plan (CALL's and EXECUTE's arguments); NULLs when it yields no row. */
export async function evalArgs(ctx: SessionContext, plan: PhysicalPlan, types: readonly SqlType[], signal: AbortSignal): Promise<unknown[]> {
  for await (const b of executePlan(plan, ctx.execContext([], signal, ctx.transaction.current?.lake))) {
    if (b.numRows > 0) return types.map((t, i) => vectorToValues(b.getChildAt(i)!, t)[0] ?? null);
  }
  return types.map(() => null);
}

/**
 * A column DEFAULT for the `rows` rows COPY does not supply it for. A literal is parsed
 * once; any other expression runs once per row (`FROM generate_series(1, rows)`), so a
 * volatile default (nextval, random()) gives each row its own value, while now() still
 * gives the transaction's time, as in PostgreSQL.
 */
export async function evalDefaults(ctx: SessionContext, expr: string, type: SqlType, rows: number): Promise<unknown[]> {
  // Literal defaults (the common case) need no plan.
  const lit = /^\s*(?:'((?:[^']|'')*)'|([+-]?\d+(?:\.\d+)?))\s*$/.exec(expr);
  if (lit) {
    const v = parseValue(lit[1] !== undefined ? lit[1].replaceAll("''", "'") : lit[2]!, type, ctx.textSettings());
    return new Array<unknown>(rows).fill(v);
  }
  if (/^\s*null\s*$/i.test(expr) || rows === 0) return new Array<unknown>(rows).fill(null);
  const [stmt] = parseStatements(`SELECT CAST((${expr}) AS ${formatTypeName(type)}) FROM generate_series(1, ${rows})`);
  const bound = bindStatement(stmt!, ctx.bindEnv());
  if (bound.kind !== 'query') return new Array<unknown>(rows).fill(null);
  const out: unknown[] = [];
  for await (const b of executePlan(ctx.physicalPlan(bound), internalExecContext(ctx))) {
    out.push(...vectorToValues(b.getChildAt(0)!, type));
  }
  return out;
}

/** COPY FROM's rows (one array per column) against the table's CHECK constraints. */
export async function enforceChecks(ctx: SessionContext, table: TableMetadata, columns: readonly (readonly unknown[])[]): Promise<void> {
  const checks = bindTableCheckConstraints(ctx.bindEnv(), table, 'insert');
  if (checks === undefined) return;
  const rows = (columns[0] ?? []).map((_v, r) => columns.map((c) => c[r]));
  await enforceCheckConstraints(checks, table, rows, internalExecContext(ctx));
}

/** What ALTER TABLE's row checks and defaults need (alter-table-action.ts). */
export function alterTableIo(ctx: SessionContext): AlterTableIo {
  return {
    evalDefault: async (expr, type) => (await evalDefaults(ctx, expr, type, 1))[0],
    anyRow: async (sql) => {
      const [stmt] = parseStatements(sql);
      const bound = bindStatement(stmt!, ctx.bindEnv());
      if (bound.kind !== 'query') return false;
      for await (const b of executePlan(ctx.physicalPlan(bound), internalExecContext(ctx))) {
        if (b.numRows > 0) return true;
      }
      return false;
    },
    notice: (message) => ctx.notice('NOTICE', SqlState.successfulCompletion, message),
  };
}

/** What views, CREATE TABLE AS and COMMENT ON need from the session (run-view-ddl.ts). */
export function viewDdlIo(ctx: SessionContext, params: readonly unknown[] = []): ViewDdlIo {
  return {
    noteTemporary: (table, spec) => ctx.temp.noteCreated(table, spec, ctx.transaction.current !== undefined),
    notice: (n) => ctx.events?.notice(n),
    searchPath: ctx.searchPath(),
    validateProperties: (p) => validateTableProperties(Object.keys(p), p, ctx.propertyChecks()),
    fill: async (insert, paramTypes) => {
      const bound = bindStatement(insert, ctx.bindEnv(paramTypes));
      if (bound.kind !== 'dml') throw new FloeError(SqlState.internalError, 'CREATE TABLE AS did not bind to an INSERT');
      const result = await runDml(ctx, bound, params, new AbortController().signal);
      return result.kind === 'command' ? Number(result.tag.split(' ').pop()) : 0;
    },
  };
}
