import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gatewayAndOracleForSuite, sameOnBoth, statementOutcome } from '../gateway-and-oracle.js';
import type { GatewayAndOracle } from '../gateway-and-oracle.js';

/*
 * CREATE / REFRESH / DROP / ALTER MATERIALIZED VIEW against PostgreSQL 15: the same
 * statements give the same tags, rows and errors on both. What Floe does differently on
 * purpose (REFRESH inside a transaction block, storage parameters) is tested on its own below.
 */
describe('materialized views against PostgreSQL 15', () => {
  let both!: GatewayAndOracle;
  gatewayAndOracleForSuite([
    'CREATE TABLE orders (id int PRIMARY KEY, customer text, amount numeric(10,2), shipped bool)',
    "INSERT INTO orders VALUES (1, 'ann', 10.50, true), (2, 'bob', 20.00, false), (3, 'ann', 5.25, NULL), (4, NULL, NULL, true)",
    'CREATE TABLE customers (name text PRIMARY KEY, city text)',
    "INSERT INTO customers VALUES ('ann', 'Oslo'), ('bob', 'Rome'), ('cy', 'Lima')",
  ], (b) => { both = b; });

  test('CREATE fills the view (tag SELECT n); REFRESH brings it up to date, incrementally or not', () => sameOnBoth(both, [
    'CREATE MATERIALIZED VIEW per_customer AS SELECT customer, sum(amount) AS total, count(*) AS n, avg(amount) AS mean, min(amount) AS lo, max(amount) AS hi, bool_and(shipped) AS all_shipped, bool_or(shipped) AS any_shipped FROM orders GROUP BY customer',
    'SELECT * FROM per_customer ORDER BY customer',
    'CREATE MATERIALIZED VIEW big (k, amt) AS SELECT id, amount FROM orders WHERE amount > 6',
    'CREATE MATERIALIZED VIEW with_city AS SELECT o.id, c.city FROM orders o JOIN customers c ON c.name = o.customer',
    'CREATE MATERIALIZED VIEW outer_city AS SELECT o.id, c.city FROM orders o LEFT JOIN customers c ON c.name = o.customer',
    "INSERT INTO orders VALUES (5, 'cy', 7.00, false), (6, 'bob', 1.00, true)",
    "UPDATE orders SET amount = 30.00 WHERE id = 2",
    'DELETE FROM orders WHERE id = 1',
    "UPDATE customers SET city = 'Bergen' WHERE name = 'ann'",
    'SELECT * FROM per_customer ORDER BY customer',
    'REFRESH MATERIALIZED VIEW per_customer',
    'SELECT * FROM per_customer ORDER BY customer',
    'REFRESH MATERIALIZED VIEW big',
    'SELECT * FROM big ORDER BY k',
    'REFRESH MATERIALIZED VIEW with_city',
    'SELECT * FROM with_city ORDER BY id',
    'REFRESH MATERIALIZED VIEW outer_city',
    'SELECT * FROM outer_city ORDER BY id',
    'SELECT big.k, p.n FROM big JOIN orders o ON o.id = big.k JOIN per_customer p ON p.customer IS NOT DISTINCT FROM o.customer ORDER BY 1',
  ]));

  test('WITH NO DATA: not readable until a refresh; REFRESH … WITH NO DATA empties it again', () => sameOnBoth(both, [
    'CREATE MATERIALIZED VIEW later AS SELECT id FROM orders WITH NO DATA',
    'SELECT * FROM later',
    'REFRESH MATERIALIZED VIEW CONCURRENTLY later',
    'REFRESH MATERIALIZED VIEW later',
    'SELECT count(*) FROM later',
    'REFRESH MATERIALIZED VIEW later WITH NO DATA',
    'SELECT * FROM later',
    'REFRESH MATERIALIZED VIEW CONCURRENTLY later WITH NO DATA',
    'DROP MATERIALIZED VIEW later',
  ]));

  test('CONCURRENTLY needs a unique index, as in PostgreSQL', () => sameOnBoth(both, [
    'CREATE MATERIALIZED VIEW conc AS SELECT customer, count(*) AS n FROM orders WHERE customer IS NOT NULL GROUP BY customer',
    'REFRESH MATERIALIZED VIEW CONCURRENTLY conc',
    'CREATE UNIQUE INDEX conc_customer ON conc (customer)',
    "INSERT INTO orders VALUES (7, 'dee', 2.00, true)",
    'REFRESH MATERIALIZED VIEW CONCURRENTLY conc',
    'SELECT * FROM conc ORDER BY customer',
    'DROP MATERIALIZED VIEW conc',
  ]));

  test('errors: names taken and missing, other kinds of relation, writes, column lists', () => sameOnBoth(both, [
    'CREATE MATERIALIZED VIEW e1 AS SELECT id FROM orders',
    'CREATE MATERIALIZED VIEW e1 AS SELECT 1',
    'CREATE MATERIALIZED VIEW IF NOT EXISTS e1 AS SELECT 1',
    'CREATE MATERIALIZED VIEW orders AS SELECT 1',
    'CREATE MATERIALIZED VIEW e2 (a, b) AS SELECT id FROM orders',
    'CREATE MATERIALIZED VIEW e2 AS SELECT nope FROM orders',
    'REFRESH MATERIALIZED VIEW orders',
    'REFRESH MATERIALIZED VIEW nope',
    'INSERT INTO e1 VALUES (100)',
    'UPDATE e1 SET id = 1',
    'DELETE FROM e1',
    'TRUNCATE e1',
    'DROP TABLE e1',
    'DROP VIEW e1',
    'DROP MATERIALIZED VIEW orders',
    'DROP MATERIALIZED VIEW IF EXISTS nope, e1',
    'SELECT count(*) FROM pg_class WHERE relname = \'e1\'',
  ]));

  test('dependencies: a table a materialized view reads, and views over materialized views', () => sameOnBoth(both, [
    'CREATE TABLE dep_t (k int PRIMARY KEY, v int)',
    'CREATE MATERIALIZED VIEW dep_m AS SELECT k, v FROM dep_t',
    'CREATE VIEW dep_v AS SELECT * FROM dep_m',
    'CREATE MATERIALIZED VIEW dep_mm AS SELECT count(*) AS n FROM dep_m',
    'DROP TABLE dep_t',
    'DROP MATERIALIZED VIEW dep_m',
    'DROP TABLE dep_t CASCADE',
    "SELECT relname FROM pg_class WHERE relname LIKE 'dep\\_%' ORDER BY 1",
  ]));

  test('ALTER MATERIALIZED VIEW renames and moves it', () => sameOnBoth(both, [
    'CREATE SCHEMA other',
    'CREATE MATERIALIZED VIEW am AS SELECT id, amount FROM orders',
    'ALTER MATERIALIZED VIEW am RENAME TO am2',
    'ALTER MATERIALIZED VIEW IF EXISTS nope RENAME TO am3',
    "COMMENT ON MATERIALIZED VIEW am2 IS 'amounts'",
    "COMMENT ON MATERIALIZED VIEW orders IS 'no'",
    "SELECT obj_description('am2'::regclass, 'pg_class')",
    'ALTER MATERIALIZED VIEW am2 OWNER TO CURRENT_USER',
    'ALTER MATERIALIZED VIEW orders OWNER TO CURRENT_USER',
    'ALTER MATERIALIZED VIEW am2 SET SCHEMA other',
    'SELECT count(*) FROM other.am2',
    'REFRESH MATERIALIZED VIEW other.am2',
    'ALTER TABLE other.am2 RENAME TO am4',
    'DROP MATERIALIZED VIEW other.am4',
    'DROP SCHEMA other',
  ]));

  test("Floe's own: options, refresh modes, and REFRESH outside a transaction block", async () => {
    const g = both.g;
    await g.run("CREATE MATERIALIZED VIEW opt WITH (freshness = '1 hour', refresh = 'full') AS SELECT customer, count(*) FROM orders GROUP BY customer");
    assert.deepEqual(await g.rows("SELECT refresh_mode, full_refresh_reason, freshness::text FROM floe_materialized_views WHERE name = 'opt'"), [['full', "refresh = 'full'", '01:00:00']]);
    await g.run("ALTER MATERIALIZED VIEW opt RESET (refresh)");
    assert.deepEqual(await g.rows("SELECT refresh_mode, full_refresh_reason FROM floe_materialized_views WHERE name = 'opt'"), [['incremental', null]]);
    const bad = await statementOutcome(g.client, "ALTER MATERIALIZED VIEW opt SET (freshness = 'soon')");
    assert.ok('code' in bad && bad.code === '22023', JSON.stringify(bad));
    const incremental = await statementOutcome(g.client, "CREATE MATERIALIZED VIEW inc WITH (refresh = 'incremental') AS SELECT o.id FROM orders o FULL JOIN customers c ON c.name = o.customer");
    assert.ok('code' in incremental && incremental.code === '0A000' && /RIGHT and FULL joins/.test(incremental.message), JSON.stringify(incremental));
    const notices: string[] = [];
    const onNotice = (n: { message?: string }) => notices.push(n.message ?? '');
    g.client.on('notice', onNotice);
    await g.run('CREATE MATERIALIZED VIEW outer_only AS SELECT o.id, c.city FROM orders o FULL JOIN customers c ON c.name = o.customer');
    await g.run('CREATE MATERIALIZED VIEW left_city AS SELECT o.id, c.city FROM orders o LEFT JOIN customers c ON c.name = o.customer');
    g.client.off('notice', onNotice);
    assert.deepEqual(notices, ['materialized view "outer_only" will be refreshed in full: RIGHT and FULL joins']);
    assert.deepEqual(await g.rows("SELECT name, refresh_mode, full_refresh_reason FROM floe_materialized_views WHERE name IN ('outer_only', 'left_city') ORDER BY name"), [
      ['left_city', 'incremental', null], ['outer_only', 'full', 'RIGHT and FULL joins'],
    ]);
    await g.run("INSERT INTO orders VALUES (20, 'zed', 1.00, true)");
    assert.deepEqual(await g.rows("CALL refresh_materialized_view('opt', 'incremental')").then((r) => r.map((x) => [x[0], x[2]])), [['incremental', '1']]);
    assert.deepEqual(await g.rows("CALL refresh_materialized_view('opt', 'full')").then((r) => r.map((x) => [x[0], x[2]])), [['full', '0']]);
    await g.run('BEGIN');
    const inBlock = await statementOutcome(g.client, 'REFRESH MATERIALIZED VIEW opt');
    await g.run('ROLLBACK');
    assert.ok('code' in inBlock && inBlock.code === '25001', JSON.stringify(inBlock));
    await g.run('DROP MATERIALIZED VIEW opt');
  });
});
