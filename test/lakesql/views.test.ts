import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runPsql } from '../harness/run-psql.js';
import { gatewayAndOracleForSuite, sameOnBoth, statementOutcome } from './gateway-and-oracle.js';
import type { GatewayAndOracle } from './gateway-and-oracle.js';

describe('views against PostgreSQL 15', () => {
  let both!: GatewayAndOracle;
  gatewayAndOracleForSuite([
    'CREATE TABLE orders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2), placed date)',
    "INSERT INTO orders VALUES (1, 'ann', 10.50, '2024-01-01'), (2, 'bob', 20.00, '2024-01-02'), (3, 'ann', 5.25, '2024-02-01'), (4, 'cy', NULL, NULL)",
  ], (b) => { both = b; });
  const oracleTarget = () => ({ port: Number(both.oracle.port), host: both.oracle.host, database: both.oracle.database });

  test('CREATE VIEW, column lists, views over views, and reads through them', () => sameOnBoth(both, [
    'CREATE VIEW big_orders AS SELECT id, customer, amount FROM orders WHERE amount > 6',
    'SELECT * FROM big_orders ORDER BY id',
    'CREATE VIEW per_customer (who, total, n) AS SELECT customer, sum(amount), count(*) FROM orders GROUP BY customer',
    'SELECT * FROM per_customer ORDER BY who',
    'SELECT who, total FROM per_customer p WHERE p.n > 1',
    'CREATE VIEW ann_big AS SELECT b.id, b.amount, p.total FROM big_orders b JOIN per_customer p ON p.who = b.customer WHERE b.customer = \'ann\'',
    'SELECT * FROM ann_big ORDER BY id',
    'CREATE VIEW consts AS SELECT 1 AS one, \'x\' AS letter, now() IS NOT NULL AS t',
    'SELECT one, letter, t FROM consts',
    "SELECT atttypid::regtype::text FROM pg_attribute WHERE attrelid = 'consts'::regclass AND attnum > 0 ORDER BY attnum",
    'SELECT x.id FROM big_orders AS x (id) ORDER BY 1',
    "INSERT INTO orders VALUES (5, 'bob', 99.00, '2024-03-01')",
    'SELECT * FROM big_orders ORDER BY id',
    'SELECT count(*) FROM (SELECT * FROM per_customer) s',
  ]));

  test('CREATE VIEW errors and CREATE OR REPLACE rules', () => sameOnBoth(both, [
    'CREATE VIEW e1 AS SELECT id FROM orders',
    'CREATE VIEW e1 AS SELECT id FROM orders',
    'CREATE VIEW orders AS SELECT 1',
    'CREATE VIEW e2 (a, b) AS SELECT id FROM orders',
    'CREATE VIEW e2 AS SELECT id, id FROM orders',
    'CREATE VIEW e2 (a, a) AS SELECT id, customer FROM orders',
    'CREATE VIEW e2 AS SELECT nope FROM orders',
    'CREATE VIEW e2 AS SELECT * FROM nope',
    'CREATE OR REPLACE VIEW e1 AS SELECT id, customer FROM orders',
    'SELECT * FROM e1 ORDER BY id',
    'CREATE OR REPLACE VIEW e1 AS SELECT id FROM orders',
    'CREATE OR REPLACE VIEW e1 AS SELECT customer, id FROM orders',
    'CREATE OR REPLACE VIEW e1 AS SELECT id::text AS id, customer FROM orders',
    'CREATE OR REPLACE VIEW orders AS SELECT 1',
    'CREATE OR REPLACE VIEW e3 AS SELECT 2 AS two',
    'SELECT * FROM e3',
  ]));

  test('DROP VIEW, dependencies, RESTRICT and CASCADE, ALTER VIEW RENAME', () => sameOnBoth(both, [
    'CREATE TABLE d_t (a int, b text)',
    "INSERT INTO d_t VALUES (1, 'one')",
    'CREATE VIEW d_v AS SELECT a, b FROM d_t',
    'CREATE VIEW d_w AS SELECT a FROM d_v',
    'DROP TABLE d_t',
    'DROP VIEW d_v',
    'DROP VIEW nope',
    'DROP VIEW IF EXISTS nope',
    'DROP VIEW d_t',
    'DROP TABLE d_v',
    'ALTER VIEW d_w RENAME TO d_w2',
    'SELECT * FROM d_w2',
    'SELECT * FROM d_w',
    'ALTER TABLE d_w2 RENAME TO d_w3',
    'ALTER VIEW d_t RENAME TO d_t2',
    'ALTER VIEW nope RENAME TO nope2',
    'ALTER VIEW IF EXISTS nope RENAME TO nope2',
    'DROP VIEW d_v CASCADE',
    'SELECT * FROM d_w3',
    'SELECT * FROM d_v',
    'CREATE VIEW d_v AS SELECT a FROM d_t',
    'DROP TABLE d_t CASCADE',
    'SELECT * FROM d_v',
    'CREATE TABLE d_t (a int)',
    'CREATE VIEW d_v1 AS SELECT a FROM d_t',
    'CREATE VIEW d_v2 AS SELECT a FROM d_t',
    'DROP VIEW d_v1, d_v2',
    'DROP TABLE d_t',
  ]));

  test('DROP MATERIALIZED VIEW: missing names (IF EXISTS notices), and a table or view by that name', () => sameOnBoth(both, [
    'DROP MATERIALIZED VIEW IF EXISTS mv1',
    'DROP MATERIALIZED VIEW IF EXISTS mv1, mv2',
    'DROP MATERIALIZED VIEW mv1',
    'CREATE TABLE mv_t (a int)',
    'DROP MATERIALIZED VIEW mv_t',
    'CREATE VIEW mv_v AS SELECT 1 AS x',
    'DROP MATERIALIZED VIEW IF EXISTS mv_v',
    'DROP VIEW mv_v',
    'DROP TABLE mv_t',
  ]));

  test('views are in pg_class, pg_attribute, pg_views and information_schema', () => sameOnBoth(both, [
    'CREATE VIEW cat_v (k, who) AS SELECT id, customer FROM orders',
    "SELECT relname, relkind, relnatts, relhasrules FROM pg_class WHERE relname = 'cat_v'",
    "SELECT attname, atttypid::regtype::text, attnum, attnotnull FROM pg_attribute WHERE attrelid = 'cat_v'::regclass AND attnum > 0 ORDER BY attnum",
    "SELECT schemaname, viewname, viewowner FROM pg_views WHERE viewname = 'cat_v'",
    "SELECT table_schema, table_name, check_option FROM information_schema.views WHERE table_name = 'cat_v'",
    "SELECT table_schema, table_name, table_type FROM information_schema.tables WHERE table_name IN ('cat_v', 'orders') ORDER BY 2",
    "SELECT column_name, data_type, ordinal_position FROM information_schema.columns WHERE table_name = 'cat_v' ORDER BY ordinal_position",
    "SELECT 'cat_v'::regclass::text, to_regclass('cat_v')::text, pg_table_is_visible('cat_v'::regclass)",
    "SELECT pg_get_viewdef('orders'::regclass) IS NULL",
  ]));

  test("pg_get_viewdef's text re-creates the view", async () => {
    await sameOnBoth(both, ['CREATE VIEW def_v AS SELECT customer, sum(amount) AS total FROM orders WHERE id < 4 GROUP BY customer']);
    for (const c of [both.g.client, both.oracle]) {
      const byOid = (await c.query("SELECT pg_get_viewdef('def_v'::regclass, true) AS d")).rows[0].d as string;
      const byName = (await c.query("SELECT pg_get_viewdef('def_v') AS d, definition FROM pg_views WHERE viewname = 'def_v'")).rows[0];
      assert.equal(byName.definition, byName.d);
      await c.query(`CREATE VIEW def_again AS ${byOid.replace(/;\s*$/, '')}`);
      // Off the search_path (as pg_dump reads it), the text names its tables with their schema.
      await c.query('SET search_path = pg_catalog');
      const qualified = (await c.query("SELECT pg_get_viewdef('public.def_v'::regclass) AS d")).rows[0].d as string;
      assert.match(qualified, /public\.orders/);
      await c.query(`CREATE VIEW public.def_qualified AS ${qualified.replace(/;\s*$/, '')}`);
      await c.query('RESET search_path');
    }
    await sameOnBoth(both, [
      'SELECT * FROM def_again ORDER BY customer', 'SELECT * FROM def_v EXCEPT SELECT * FROM def_again',
      'SELECT * FROM def_qualified ORDER BY customer',
    ]);
  });

  test("psql's \\dv and \\d show views as PostgreSQL does; \\d+ adds the definition", async () => {
    await sameOnBoth(both, ['CREATE SCHEMA ps', 'CREATE VIEW ps.pv (n, who) AS SELECT id, customer FROM orders', 'CREATE VIEW pv2 AS SELECT amount FROM orders']);
    for (const cmd of ['\\dv', '\\dv ps.*', '\\d ps.pv', '\\d pv2']) {
      const [f, o] = [await runPsql(both.g.server, ['-c', cmd]), await runPsql(oracleTarget(), ['-c', cmd])];
      assert.equal(f.stderr, o.stderr, cmd);
      assert.equal(f.stdout, o.stdout, cmd);
    }
    // PostgreSQL prints its own deparse of the query; Floe prints the query as written. The rest is the same.
    const [f, o] = [await runPsql(both.g.server, ['-c', '\\d+ ps.pv']), await runPsql(oracleTarget(), ['-c', '\\d+ ps.pv'])];
    const head = (s: string) => s.slice(0, s.indexOf('View definition:') + 'View definition:'.length);
    assert.ok(f.stdout.includes('View definition:'), f.stdout);
    assert.equal(head(f.stdout), head(o.stdout));
    assert.match(f.stdout, /View definition:\n SELECT id, customer FROM orders;/);
  });

  test('a view cannot be written, copied from, or read as of a snapshot (Floe refuses clearly)', async () => {
    await sameOnBoth(both, ['CREATE VIEW ro AS SELECT id FROM orders']);
    for (const sql of ['INSERT INTO ro VALUES (9)', 'UPDATE ro SET id = 1', 'DELETE FROM ro']) {
      const r = await statementOutcome(both.g.client, sql);
      assert.ok('code' in r && r.code === '0A000' && /view "ro"/.test(r.message), `${sql}: ${JSON.stringify(r)}`);
    }
    const travel = await statementOutcome(both.g.client, 'SELECT * FROM ro FOR SYSTEM_VERSION AS OF 1');
    assert.ok('code' in travel && travel.code === '0A000', JSON.stringify(travel));
    // COPY of a view is refused by PostgreSQL too, with the same words.
    await sameOnBoth(both, ['COPY ro TO STDOUT']);
  });
});

describe('views over time travel and branches (Floe dialect)', () => {
  let both!: GatewayAndOracle;
  gatewayAndOracleForSuite([], (b) => { both = b; });

  test('a view keeps its AS OF and t$branch_b, and is re-bound at each use', async () => {
    const g = both.g;
    await g.run('CREATE TABLE tt (k int PRIMARY KEY, v text)');
    await g.run("INSERT INTO tt VALUES (1, 'a')");
    const [[first]] = await g.rows("SELECT max(snapshot_id)::text FROM tt$snapshots");
    await g.run("INSERT INTO tt VALUES (2, 'b')");
    await g.run('ALTER TABLE tt CREATE BRANCH dev');
    await g.run("INSERT INTO tt$branch_dev VALUES (3, 'c')");
    await g.run(`CREATE VIEW tt_then AS SELECT k, v FROM tt FOR SYSTEM_VERSION AS OF ${first}`);
    await g.run('CREATE VIEW tt_dev AS SELECT k, v FROM tt$branch_dev');
    await g.run('CREATE VIEW tt_now AS SELECT * FROM tt');
    assert.deepEqual(await g.rows('SELECT * FROM tt_then ORDER BY k'), [['1', 'a']]);
    assert.deepEqual(await g.rows('SELECT * FROM tt_dev ORDER BY k'), [['1', 'a'], ['2', 'b'], ['3', 'c']]);
    assert.deepEqual(await g.rows('SELECT * FROM tt_now ORDER BY k'), [['1', 'a'], ['2', 'b']]);
    await g.run("INSERT INTO tt VALUES (4, 'd')");
    assert.deepEqual(await g.rows('SELECT count(*) FROM tt_now'), [['3']]);
    assert.deepEqual(await g.rows('SELECT count(*) FROM tt_then'), [['1']]);
    // A column added to the table later stays out of a SELECT * view, as in PostgreSQL.
    await g.run('ALTER TABLE tt ADD COLUMN w int');
    assert.deepEqual((await g.client.query('SELECT * FROM tt_now LIMIT 1')).fields.map((f) => f.name), ['k', 'v']);
    const [[def]] = await g.rows("SELECT pg_get_viewdef('tt_then')");
    assert.equal(def, ` SELECT k, v FROM tt FOR SYSTEM_VERSION AS OF ${first};`);
  });
});
