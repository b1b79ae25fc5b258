import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startPostgres } from '../harness/postgres-server.js';
import type { PostgresServer } from '../harness/postgres-server.js';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';

type Plan = Record<string, unknown> & { Plans?: Plan[] };

const SETUP = [
  'CREATE TABLE t (a int, b text)',
  "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 50) g",
  'CREATE TABLE u (a int, c int)',
  'INSERT INTO u SELECT g, g * 2 FROM generate_series(1, 20) g',
];

function nodes(p: Plan): Plan[] {
  return [p, ...(p.Plans ?? []).flatMap(nodes)];
}

describe('EXPLAIN (FORMAT JSON) through node-postgres, PostgreSQL 15 first', () => {
  let oracle: PostgresServer;
  let floe: FloeServer;
  const clients: { name: string; c: pg.Client }[] = [];

  before(async () => {
    oracle = await startPostgres();
    floe = await startFloe();
    for (const [name, url] of [['postgres', oracle.url], ['floe', floe.url]] as const) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      for (const sql of SETUP) await c.query(sql);
      clients.push({ name, c });
    }
  });
  after(async () => {
    for (const { c } of clients) await c.end();
    await floe?.stop();
    await oracle?.stop();
  });

  test('one "QUERY PLAN" column of type json holding [{"Plan": {"Node Type": …}}]', async () => {
    for (const { name, c } of clients) {
      const r = await c.query('EXPLAIN (FORMAT JSON) SELECT a FROM t WHERE a > 10');
      assert.deepEqual(r.fields.map((f) => [f.name, f.dataTypeID]), [['QUERY PLAN', 114]], name);
      assert.equal(r.rows.length, 1, name);
      const doc = r.rows[0]['QUERY PLAN'] as { Plan: Plan }[];
      assert.ok(Array.isArray(doc) && doc.length === 1, name);
      assert.equal(typeof doc[0]!.Plan['Node Type'], 'string', name);
      assert.ok(nodes(doc[0]!.Plan).some((n) => n['Relation Name'] === 't'), `${name}: a node scans t`);
    }
  });

  test('a join nests its inputs under "Plans" with PostgreSQL\'s "Join Type"', async () => {
    for (const { name, c } of clients) {
      const r = await c.query('EXPLAIN (FORMAT JSON) SELECT t.b, u.c FROM t JOIN u ON t.a = u.a');
      const plan = (r.rows[0]['QUERY PLAN'] as { Plan: Plan }[])[0]!.Plan;
      const join = nodes(plan).find((n) => n['Join Type'] !== undefined);
      assert.ok(join, `${name}: ${JSON.stringify(plan)}`);
      assert.equal(join['Join Type'], 'Inner', name);
      assert.equal(join.Plans?.length, 2, name);
      assert.deepEqual(join.Plans!.map((p) => p['Parent Relationship']), ['Outer', 'Inner'], name);
      const scanned = nodes(join).map((n) => n['Relation Name']).filter((x) => x !== undefined).sort();
      assert.deepEqual(scanned, ['t', 'u'], name);
    }
  });

  test('ANALYZE adds actual rows and the execution time, and the rows agree', async () => {
    const actual: number[] = [];
    for (const { name, c } of clients) {
      const r = await c.query('EXPLAIN (ANALYZE, FORMAT JSON) SELECT a FROM t WHERE a % 3 = 0');
      const doc = (r.rows[0]['QUERY PLAN'] as (Record<string, unknown> & { Plan: Plan })[])[0]!;
      assert.equal(typeof doc['Execution Time'], 'number', name);
      assert.equal(typeof doc.Plan['Actual Total Time'], 'number', name);
      assert.equal(doc.Plan['Actual Loops'], 1, name);
      actual.push(doc.Plan['Actual Rows'] as number);
    }
    assert.deepEqual(actual, [16, 16]);
  });

  test('FORMAT TEXT is unchanged: rows of text; XML and YAML are refused by Floe', async () => {
    for (const { name, c } of clients) {
      const r = await c.query('EXPLAIN (FORMAT TEXT) SELECT a FROM t');
      assert.deepEqual(r.fields.map((f) => [f.name, f.dataTypeID]), [['QUERY PLAN', 25]], name);
    }
    const floeClient = clients.find((x) => x.name === 'floe')!.c;
    await assert.rejects(floeClient.query('EXPLAIN (FORMAT YAML) SELECT 1'), (e: { code?: string }) => e.code === '0A000');
  });
});
