import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { gatewayAndOracleForSuite, sameOnBoth, type GatewayAndOracle } from '../lakesql/gateway-and-oracle.js';

/**
 * Error reports clients read field by field: NOT NULL violations name the
 * schema, table and column (ErrorResponse s, t, c), DROP TABLE of a missing
 * table names it as written, and DO blocks are refused with 0A000.
 */
const setup = ['CREATE TABLE nn (id int PRIMARY KEY, a text NOT NULL, b int)', 'CREATE TABLE keep (id int PRIMARY KEY)'];

interface Report { code?: string; message: string; schema?: string; table?: string; column?: string; detail?: string }

async function failure(c: pg.Client, sql: string): Promise<Report> {
  try {
    await c.query(sql);
  } catch (e) {
    const x = e as Report;
    return { code: x.code, message: x.message, schema: x.schema, table: x.table, column: x.column, detail: x.detail };
  }
  throw new Error(`expected an error from: ${sql}`);
}

/** The NOTICE messages a statement raises. */
async function notices(c: pg.Client, sql: string): Promise<string[]> {
  const seen: string[] = [];
  const on = (n: { message?: string }) => { seen.push(n.message ?? ''); };
  c.on('notice', on);
  try {
    await c.query(sql);
    // Notices arrive before CommandComplete, so they are in by now.
  } finally {
    c.off('notice', on);
  }
  return seen;
}

describe('error reports match PostgreSQL 15', () => {
  let both: GatewayAndOracle;
  gatewayAndOracleForSuite(setup, (b) => { both = b; });

  test('NOT NULL violations carry schema, table and column', async () => {
    for (const sql of [
      `INSERT INTO nn VALUES (1, NULL, 2)`,
      `INSERT INTO nn (id, b) VALUES (2, 3)`,
      `INSERT INTO nn VALUES (NULL, 'x', 1)`,
    ]) {
      assert.deepEqual(await failure(both.g.client, sql), await failure(both.oracle, sql), sql);
    }
    await sameOnBoth(both, [`INSERT INTO nn VALUES (5, 'ok', 1)`]);
    for (const sql of [`UPDATE nn SET a = NULL WHERE id = 5`]) {
      assert.deepEqual(await failure(both.g.client, sql), await failure(both.oracle, sql), sql);
    }
  });

  test('DROP TABLE of a missing table', async () => {
    await sameOnBoth(both, [
      'DROP TABLE missing',
      'DROP TABLE public.missing',
      'DROP TABLE keep, missing',
      'SELECT count(*) FROM keep',
    ]);
    for (const sql of ['DROP TABLE IF EXISTS missing', 'DROP TABLE IF EXISTS public.missing2']) {
      assert.deepEqual(await notices(both.g.client, sql), await notices(both.oracle, sql), sql);
    }
  });

  test('DO blocks are refused with 0A000', async () => {
    const floe = await failure(both.g.client, `DO $$ BEGIN RAISE NOTICE 'hi'; END $$`);
    assert.equal(floe.code, '0A000');
    assert.match(floe.message, /DO blocks are not supported/);
    await sameOnBoth(both, ['SELECT 1']);
  });
});
