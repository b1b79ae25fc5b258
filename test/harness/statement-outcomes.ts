import assert from 'node:assert/strict';
import pg from 'pg';
import { runPsql } from './run-psql.js';
import type { ConnectTarget } from './run-psql.js';

/** One statement's outcome through node-postgres: its columns (name, type OID) and rows, or its SQLSTATE and message. */
export async function queryOutcome(url: string, sql: string, values: unknown[] = []): Promise<{ fields: unknown[][]; rows: unknown[][] } | { error: string }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query({ text: sql, values, rowMode: 'array' });
    return { fields: r.fields.map((f) => [f.name, f.dataTypeID]), rows: r.rows };
  } catch (e) {
    const err = e as { code?: string; message?: string };
    return { error: `${err.code}: ${err.message}` };
  } finally {
    await c.end();
  }
}

/** A statement, or a statement with its parameters. */
export type Step = string | [string, unknown[]];

/** Each step on one connection, in order: its command tag, row count and rows, or its SQLSTATE, message and detail. */
export async function stepOutcomes(url: string, steps: readonly Step[]): Promise<unknown[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const out: unknown[] = [];
  try {
    for (const s of steps) {
      const [text, values] = typeof s === 'string' ? [s, []] : s;
      try {
        const r = await c.query({ text, values, rowMode: 'array' });
        out.push({ command: r.command, rowCount: r.rowCount, rows: r.rows });
      } catch (e) {
        const err = e as { code?: string; message?: string; detail?: string };
        out.push({ error: err.code, message: err.message, detail: err.detail });
      }
    }
  } finally {
    await c.end();
  }
  return out;
}

/** A step's outcome (command tag and rows, or SQLSTATE and message) with the notices and warnings it sent. */
export interface OutcomeWithNotices {
  readonly result: unknown;
  readonly notices: readonly string[];
}

/** Each statement on one connection, in order, with its notices: for scripts whose warnings matter (GRANT, roles). */
export async function stepOutcomesWithNotices(url: string, steps: readonly string[]): Promise<OutcomeWithNotices[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  let notices: string[] = [];
  c.on('notice', (n) => notices.push(`${n.severity} ${n.code}: ${n.message}`));
  const out: OutcomeWithNotices[] = [];
  try {
    for (const text of steps) {
      let result: unknown;
      try {
        const r = await c.query({ text, rowMode: 'array' });
        result = { command: r.command, rows: r.rows };
      } catch (e) {
        const err = e as { code?: string; message?: string };
        result = { error: err.code, message: err.message };
      }
      out.push({ result, notices });
      notices = [];
    }
  } finally {
    await c.end();
  }
  return out;
}

/** Runs the script on PostgreSQL, then on Floe, and asserts each step's outcome and notices are the same. */
export async function assertSameOutcomesWithNotices(oracleUrl: string, floeUrl: string, script: readonly string[]): Promise<void> {
  const want = await stepOutcomesWithNotices(oracleUrl, script);
  const got = await stepOutcomesWithNotices(floeUrl, script);
  for (let i = 0; i < script.length; i++) assert.deepEqual(got[i], want[i], `step ${i}: ${script[i]}`);
}

/**
 * After a test on a shared PostgreSQL: its schema (if any) and every role whose name starts
 * with `prefix`, with what they own or were granted (roles are cluster-wide and outlive the
 * test's database).
 */
export async function dropOracleTestObjects(url: string, prefix: string, schema?: string): Promise<void> {
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    if (schema !== undefined) await c.query(`DROP SCHEMA IF EXISTS ${quote(schema)} CASCADE`);
    const { rows } = await c.query('SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1)', [prefix]);
    for (const r of rows) {
      await c.query(`DROP OWNED BY ${quote(r.rolname)}`);
      await c.query(`DROP ROLE IF EXISTS ${quote(r.rolname)}`);
    }
  } finally {
    await c.end();
  }
}

/** psql's output (stdout with stderr) for one backslash command or statement. */
export async function psqlOutput(target: ConnectTarget, command: string): Promise<string> {
  const r = await runPsql(target, ['-c', command], { mergeStderr: true });
  return r.stdout;
}

/** Runs the steps on PostgreSQL, then on Floe, and asserts each step's outcome is the same. */
export async function assertSameOutcomes(oracleUrl: string, floeUrl: string, steps: readonly Step[]): Promise<void> {
  const want = await stepOutcomes(oracleUrl, steps);
  const got = await stepOutcomes(floeUrl, steps);
  for (let i = 0; i < steps.length; i++) assert.deepEqual(got[i], want[i], JSON.stringify(steps[i]));
}
