import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { oracleAndFloeForSuite } from '../harness/oracle-and-floe.js';
import { runPsql } from '../harness/run-psql.js';
import type { ConnectTarget } from '../harness/run-psql.js';

/**
 * Built-in functions in pg_proc: psql's \sf and \df+, regproc / regprocedure
 * input and output, pg_get_functiondef and the signature functions, run on
 * PostgreSQL 15 first and then on Floe. Floe lists only the overloads it has
 * (no range or tsvector ones), and leaves Description empty; Owner is the
 * bootstrap superuser, whose name differs (postgres there, floe here).
 */

interface Outcome { readonly rows?: readonly unknown[][]; readonly types?: readonly number[]; readonly error?: string }

async function runAll(url: string, statements: readonly string[]): Promise<Outcome[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const out: Outcome[] = [];
    for (const text of statements) {
      try {
        const r = await c.query({ text, rowMode: 'array' });
        out.push({ rows: r.rows as unknown[][], types: r.fields.map((f) => f.dataTypeID) });
      } catch (e) {
        const err = e as { code?: string; message: string };
        out.push({ error: `${err.code} ${err.message}` });
      }
    }
    return out;
  } finally {
    await c.end();
  }
}

async function psql(target: ConnectTarget, command: string): Promise<string> {
  return (await runPsql(target, ['-c', command], { mergeStderr: true })).stdout;
}

/** \df output as rows of cells, unaligned, without the columns Floe cannot match (Owner, Description). */
async function describeFunctions(target: ConnectTarget, command: string): Promise<string[]> {
  const lines = (await runPsql(target, ['-A', '-F', '|', '-P', 'footer=off', '-c', command], { mergeStderr: true })).stdout.trim().split('\n');
  const out = lines.slice(lines.findIndex((l) => l.startsWith('Schema|')));
  const header = out[0]!.split('|');
  const keep = header.map((h, i) => (h === 'Owner' || h === 'Description' ? -1 : i)).filter((i) => i >= 0);
  return out.map((line) => keep.map((i) => line.split('|')[i]).join('|'));
}

const VALUES = [
  `SELECT 'now'::regproc, 'now'::regproc::oid, 'pg_catalog.now'::regproc::text`,
  `SELECT 'upper(text)'::regprocedure::oid, 'upper(text)'::regprocedure, 'pg_catalog.lower(text)'::regprocedure::text, 'substr(text, int, int)'::regprocedure`,
  `SELECT 'length'::regproc`,
  `SELECT 'no_such_function'::regproc`,
  `SELECT 'upper(integer)'::regprocedure`,
  `SELECT 'upper'::regprocedure`,
  `SELECT 0::regproc, 'array_in'::regproc`,
  `SELECT count(*) FROM pg_proc WHERE proname = 'now'`,
  `SELECT count(*) FROM pg_proc WHERE proname = 'upper' AND pg_get_function_arguments(oid) = 'text'`,
  `SELECT oid::int, proname, pronamespace::int, prokind, proisstrict, proretset, provolatile, proparallel, pronargs, prorettype::int, prosrc, prolang::int
   FROM pg_proc WHERE oid IN ('upper(text)'::regprocedure, 'now()'::regprocedure, 'generate_series(int, int)'::regprocedure, 'row_number()'::regprocedure, 'sum(int8)'::regprocedure) ORDER BY 1`,
  `SELECT pg_get_function_arguments('substr(text, int)'::regprocedure), pg_get_function_identity_arguments('concat("any")'::regprocedure),
          pg_get_function_result('generate_series(int, int)'::regprocedure)`,
  `SELECT pg_get_functiondef('generate_series(int, int)'::regprocedure), pg_get_functiondef('row_number()'::regprocedure), pg_get_functiondef('random()'::regprocedure)`,
  `SELECT pg_get_functiondef('sum(int8)'::regprocedure)`,
];

describe('built-in functions in pg_proc, \\sf and \\df+ as PostgreSQL 15 shows them', () => {
  let oracleTarget: ConnectTarget & { url: string };
  let floeTarget: ConnectTarget;
  let floe: { url: string };
  oracleAndFloeForSuite([], (s) => ({ oracleTarget, floeTarget, floe } = s));

  test('\\sf prints the same definition', async () => {
    for (const command of ['\\sf now', '\\sf upper(text)', '\\sf pg_catalog.lower(text)', '\\sf+ length(text)', '\\sf upper(integer)', '\\sf length', '\\sf left', '\\sf row_number']) {
      const want = await psql(oracleTarget, command);
      assert.equal(await psql(floeTarget, command), want, command);
    }
    assert.match(await psql(oracleTarget, '\\sf now'), /^CREATE OR REPLACE FUNCTION pg_catalog\.now\(\)\n RETURNS timestamp with time zone\n/, 'the test is real');
  });

  test('\\df+ and \\df list each of Floe\'s overloads as PostgreSQL does', async () => {
    for (const command of ['\\df+ upper', '\\df length', '\\df+ now', '\\df row_number', '\\df+ generate_series']) {
      const want = await describeFunctions(oracleTarget, command);
      const got = await describeFunctions(floeTarget, command);
      assert.equal(got[0], want[0], `${command}: header`);
      assert.ok(got.length > 1, `${command}: Floe lists the function\n${got.join('\n')}`);
      for (const row of got.slice(1)) assert.ok(want.includes(row), `${command}: ${row} not in PostgreSQL's\n${want.join('\n')}`);
    }
    assert.ok((await describeFunctions(floeTarget, '\\df+ upper')).includes('pg_catalog|upper|text|text|func|immutable|safe|invoker||internal|upper'));
  });

  test('regproc and regprocedure input and output, pg_proc rows and pg_get_functiondef', async () => {
    const want = await runAll(oracleTarget.url, VALUES);
    const got = await runAll(floe.url, VALUES);
    VALUES.forEach((sql, i) => assert.deepEqual(got[i], want[i], sql));
    assert.equal(want[2]!.error, '42725 more than one function named "length"', 'the test is real: PostgreSQL refused the overloaded name');
    assert.deepEqual(want[1]!.rows, [[871, 'upper(text)', 'lower(text)', 'substr(text,integer,integer)']]);
  });
});
