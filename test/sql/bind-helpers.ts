import assert from 'node:assert/strict';
import { bindStatement, parseStatements, type BoundStatement } from '../../src/sql/index.js';
import type { SqlType } from '../../src/common/sql-type.js';
import { FloeError } from '../../src/common/floe-error.js';
import type { PhysicalPlan } from '../../src/exec/plan/physical-plan.js';
import { planStatement } from '../../src/planner/index.js';
import { stubEnv } from './stub-env.js';

export function bind(sql: string, paramTypes?: readonly (SqlType | undefined)[]): BoundStatement {
  const stmts = parseStatements(sql);
  assert.equal(stmts.length, 1, 'one statement');
  return bindStatement(stmts[0]!, stubEnv(paramTypes));
}

export function bindError(sql: string): FloeError {
  try {
    bind(sql);
  } catch (e) {
    if (e instanceof FloeError) return e;
    throw e;
  }
  assert.fail(`expected an error binding: ${sql}`);
}

/** The physical plan the session runs for a bound query or DML statement. */
export function physical(b: BoundStatement): PhysicalPlan {
  assert.ok(b.kind === 'query' || b.kind === 'dml', 'a query or DML statement');
  return planStatement(b.logical);
}

/** A bound query, with the physical plan it runs. */
export function query(sql: string, paramTypes?: readonly (SqlType | undefined)[]): Extract<BoundStatement, { kind: 'query' }> & { readonly plan: PhysicalPlan } {
  const b = bind(sql, paramTypes);
  assert.equal(b.kind, 'query');
  return { ...(b as Extract<BoundStatement, { kind: 'query' }>), plan: physical(b) };
}

export function columnsOf(sql: string): [string, string][] {
  return query(sql).columns.map((c) => [c.name, c.type.kind === 'array' ? `${c.type.element.kind}[]` : c.type.kind]);
}

/** Position (1-based) of the first occurrence of `needle` in `sql`. */
export function pos(sql: string, needle: string): number {
  const i = sql.indexOf(needle);
  assert.ok(i >= 0, `${needle} in ${sql}`);
  return i + 1;
}
