import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { gatewayAndOracleForSuite } from './gateway-and-oracle.js';
import type { GatewayAndOracle } from './gateway-and-oracle.js';

/**
 * WITH RECURSIVE, LATERAL and functions in FROM, each query run through
 * node-postgres on Floe and on PostgreSQL 15 and compared: column names, type
 * OIDs and rows (as text), or SQLSTATE and message.
 */

type Outcome =
  | { readonly columns: readonly string[]; readonly rows: readonly unknown[][] }
  | { readonly code: string; readonly message: string; readonly hint?: string };

async function outcome(c: pg.Client, sql: string, values = true): Promise<Outcome> {
  try {
    const r = await c.query({ text: sql, rowMode: 'array' });
    return { columns: r.fields.map((f) => `${f.name}:${f.dataTypeID}`), rows: values ? r.rows as unknown[][] : [[r.rows.length]] };
  } catch (e) {
    const x = e as { code?: string; message: string; hint?: string };
    return { code: x.code ?? '?', message: x.message, ...(x.hint ? { hint: x.hint } : {}) };
  }
}

const setup = [
  'CREATE TABLE edges (src int, dst int)',
  'INSERT INTO edges VALUES (1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (6, 7)',
  'CREATE TABLE people (id int PRIMARY KEY, name text, boss int)',
  "INSERT INTO people VALUES (1, 'ann', NULL), (2, 'bob', 1), (3, 'cy', 1), (4, 'di', 2), (5, 'ed', 4), (6, 'flo', NULL)",
  'CREATE TABLE orders (id int, person_id int, amount int)',
  'INSERT INTO orders VALUES (1, 1, 10), (2, 1, 30), (3, 1, 20), (4, 2, 5), (5, 3, 7), (6, 3, 70), (7, 5, 1)',
  'CREATE TABLE docs (id int, body jsonb)',
  `INSERT INTO docs VALUES (1, '{"b": 2, "a": {"x": [1, 2]}}'), (2, '{}'), (3, '{"k": "v", "n": null}')`,
];

describe('recursive queries, LATERAL and functions in FROM against PostgreSQL 15', () => {
  let both: GatewayAndOracle;
  gatewayAndOracleForSuite(setup, (b) => { both = b; });

  const same = async (queries: readonly string[]): Promise<void> => {
    for (const sql of queries) {
      assert.deepEqual(await outcome(both.g.client, sql), await outcome(both.oracle, sql), sql);
    }
  };
  const plan = async (sql: string): Promise<string> => (await both.g.client.query({ text: `EXPLAIN ${sql}`, rowMode: 'array' })).rows.map((r) => r[0]).join('\n');

  test('WITH RECURSIVE: UNION ALL, UNION over a cyclic graph, column lists, several WITH queries', async () => {
    await same([
      'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) SELECT * FROM t',
      'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 1000) SELECT sum(n), count(*), max(n) FROM t',
      'WITH RECURSIVE reach(node) AS (SELECT 1 UNION SELECT e.dst FROM edges e JOIN reach r ON e.src = r.node) SELECT node FROM reach ORDER BY node',
      'WITH RECURSIVE reach AS (SELECT 6 AS node UNION SELECT e.dst FROM edges e, reach r WHERE e.src = r.node) SELECT * FROM reach ORDER BY 1',
      'WITH RECURSIVE walk(a, depth) AS (SELECT 1, 0 UNION ALL SELECT e.dst, w.depth + 1 FROM edges e JOIN walk w ON e.src = w.a WHERE w.depth < 6) SELECT a, depth FROM walk ORDER BY depth, a',
      'WITH RECURSIVE walk(a, depth) AS (SELECT 1, 0 UNION ALL SELECT e.dst, w.depth + 1 FROM edges e JOIN walk w ON e.src = w.a WHERE w.depth < 6) SELECT a, count(*) FROM walk GROUP BY a ORDER BY a',
      // Each pass sees only the previous pass's rows: 1,2 → 11,12 → 21,22 → 31,32.
      'WITH RECURSIVE t(n) AS (VALUES (1), (2) UNION ALL SELECT n + 10 FROM t WHERE n < 30) SELECT n FROM t ORDER BY n',
      'WITH RECURSIVE t AS (SELECT 1 AS x, \'a\'::text AS s UNION ALL SELECT x + 1, s || \'b\' FROM t WHERE x < 4) SELECT * FROM t ORDER BY x',
      'WITH RECURSIVE chain AS (SELECT id, name, boss, 1 AS level FROM people WHERE id = 5 UNION ALL SELECT p.id, p.name, p.boss, c.level + 1 FROM people p JOIN chain c ON p.id = c.boss) SELECT * FROM chain ORDER BY level',
      'WITH RECURSIVE under(id, path) AS (SELECT id, name FROM people WHERE boss IS NULL UNION ALL SELECT p.id, u.path || \'/\' || p.name FROM people p JOIN under u ON p.boss = u.id) SELECT * FROM under ORDER BY path',
      'WITH RECURSIVE base AS (SELECT 3 AS lim), t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t, base WHERE n < base.lim), u AS (SELECT n * 10 AS m FROM t) SELECT * FROM u ORDER BY m',
      'WITH RECURSIVE fib(a, b, n) AS (SELECT 0::bigint, 1::bigint, 1 UNION ALL SELECT b, a + b, n + 1 FROM fib WHERE n < 60) SELECT a, n FROM fib ORDER BY n DESC LIMIT 3',
      'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT a.n, b.n FROM t a JOIN t b ON a.n = b.n + 1 ORDER BY 1',
      'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT * FROM people WHERE id IN (SELECT n FROM t) ORDER BY id',
      'WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT n FROM t) SELECT * FROM t',
      'WITH RECURSIVE t(n) AS (SELECT 5 WHERE false UNION ALL SELECT n + 1 FROM t) SELECT count(*) FROM t',
      'WITH t(n) AS (SELECT 2) SELECT * FROM t',
      'WITH RECURSIVE nope(n) AS (SELECT 2) SELECT * FROM nope',
    ]);
  });

  test('WITH RECURSIVE errors: PostgreSQL\'s SQLSTATEs and messages', async () => {
    await same([
      'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1::bigint FROM t WHERE n < 3) SELECT * FROM t',
      'WITH RECURSIVE t(n) AS (SELECT n FROM t UNION ALL SELECT 1) SELECT * FROM t',
      'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT a.n FROM t a, t b) SELECT * FROM t',
      'WITH RECURSIVE t(n) AS (SELECT n + 1 FROM t) SELECT * FROM t',
      'WITH RECURSIVE t(n) AS (SELECT 1 INTERSECT SELECT n FROM t) SELECT * FROM t',
      'WITH RECURSIVE t(a, b) AS (SELECT 1 UNION ALL SELECT a FROM t) SELECT * FROM t',
      "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT 'x'::text FROM t) SELECT * FROM t",
    ]);
  });

  test('EXPLAIN shows the recursive union and its work table scan', async () => {
    const text = await plan('WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT * FROM t');
    assert.match(text, /Recursive Union All/);
    assert.match(text, /WorkTable Scan on t/);
  });

  test('a recursion that grows without end fails with 53200 and the session goes on', async () => {
    const c = both.g.client;
    await c.query("SET floe.query_memory_limit = '8MB'");
    try {
      const e = await outcome(c, 'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t, (VALUES (1), (2)) v(x)) SELECT count(*) FROM t');
      assert.equal((e as { code?: string }).code, '53200', JSON.stringify(e));
    } finally {
      await c.query('RESET floe.query_memory_limit');
    }
    assert.deepEqual((await c.query({ text: 'SELECT 1', rowMode: 'array' })).rows, [['1']]);
  });

  test('an endless recursion and an endless series are cancellable (57014)', { timeout: 60_000 }, async () => {
    for (const sql of [
      'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT count(*) FROM t',
      'SELECT count(*) FROM generate_series(1, 100000000000)',
    ]) {
      const c = new pg.Client({ host: '127.0.0.1', port: both.g.server.port, user: 'floe', database: 'floe' });
      await c.connect();
      try {
        const query = new pg.Query(sql);
        const ended = new Promise<unknown>((resolve) => {
          query.on('error', (e: unknown) => resolve(e));
          query.on('end', () => resolve(undefined));
        });
        c.query(query);
        await new Promise((r) => setTimeout(r, 500));
        const canceller = new pg.Client({ host: '127.0.0.1', port: both.g.server.port, user: 'floe', database: 'floe' });
        (canceller as unknown as { cancel(client: pg.Client, q: pg.Query): void }).cancel(c, query);
        let timer: NodeJS.Timeout | undefined;
        const err = (await Promise.race([
          ended,
          new Promise((resolve) => { timer = setTimeout(() => resolve({ code: 'not cancelled within 20 s' }), 20_000); }),
        ])) as { code?: string } | undefined;
        clearTimeout(timer);
        assert.equal(err?.code, '57014', sql);
        assert.deepEqual((await c.query({ text: 'SELECT 2', rowMode: 'array' })).rows, [[2]]);
      } finally {
        (c as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
        await c.end().catch(() => undefined);
      }
    }
  });

  test('LATERAL subqueries: comma, CROSS JOIN, LEFT JOIN … ON, aggregates and limits per row', async () => {
    await same([
      'SELECT p.name, o.amount FROM people p, LATERAL (SELECT amount FROM orders o WHERE o.person_id = p.id ORDER BY amount DESC LIMIT 2) o ORDER BY p.name, o.amount',
      'SELECT p.name, o.amount FROM people p CROSS JOIN LATERAL (SELECT amount FROM orders o WHERE o.person_id = p.id ORDER BY amount LIMIT 1) o ORDER BY p.name',
      'SELECT p.name, o.amount FROM people p LEFT JOIN LATERAL (SELECT amount FROM orders o WHERE o.person_id = p.id ORDER BY amount DESC LIMIT 1) o ON true ORDER BY p.name',
      'SELECT p.name, o.amount FROM people p LEFT JOIN LATERAL (SELECT amount FROM orders o WHERE o.person_id = p.id) o ON o.amount > 15 ORDER BY p.name, o.amount',
      'SELECT p.name, x.c, x.s FROM people p JOIN LATERAL (SELECT count(*) AS c, sum(amount) AS s FROM orders WHERE person_id = p.id) x ON true ORDER BY p.id',
      'SELECT p.id, o.id, x.total FROM people p, orders o, LATERAL (SELECT p.id * 100 + o.amount AS total) x WHERE o.person_id = p.id ORDER BY 1, 2',
      'SELECT p.id, b.name AS boss_name FROM people p LEFT JOIN LATERAL (SELECT name FROM people q WHERE q.id = p.boss) b ON true ORDER BY p.id',
      'SELECT p.id, s.n FROM people p, LATERAL (SELECT count(*) AS n FROM people q WHERE q.boss = p.id) s WHERE s.n > 0 ORDER BY 1',
      'SELECT p.id, t.v FROM people p, LATERAL (SELECT p.name AS v UNION ALL SELECT upper(p.name)) t WHERE p.id < 3 ORDER BY 1, 2',
      'SELECT * FROM people p, LATERAL (SELECT 1 AS one) s ORDER BY p.id',
      'SELECT (SELECT max(x.v) FROM (SELECT 1) d, LATERAL (SELECT p.id * 2 AS v) x) FROM people p ORDER BY 1',
      'SELECT p.id, o.amount FROM people p RIGHT JOIN LATERAL (SELECT amount FROM orders o WHERE o.person_id = p.id) o ON true',
    ]);
  });

  test('functions in FROM that read earlier FROM items, under JOIN LATERAL and with commas', async () => {
    await same([
      'SELECT p.id, g FROM people p CROSS JOIN LATERAL generate_series(1, p.id) g WHERE p.id < 4 ORDER BY 1, 2',
      'SELECT p.id, g.n, g.i FROM people p LEFT JOIN LATERAL generate_series(2, p.id) WITH ORDINALITY AS g(n, i) ON true ORDER BY 1, 2',
      'SELECT p.id, g FROM people p JOIN generate_series(1, 3) g ON g = p.id ORDER BY 1',
      'SELECT d.id, e.key, e.value FROM docs d, jsonb_each(d.body) e ORDER BY 1, 2',
      'SELECT d.id, e.key, e.value FROM docs d LEFT JOIN LATERAL jsonb_each_text(d.body) e ON true ORDER BY 1, 2',
      'SELECT p.id, u.* FROM people p, unnest(ARRAY[p.id, p.boss], ARRAY[p.name]) AS u(a, b) ORDER BY 1, 2',
    ]);
  });

  test('EXPLAIN shows the lateral join', async () => {
    const text = await plan('SELECT p.name, o.amount FROM people p LEFT JOIN LATERAL (SELECT amount FROM orders o WHERE o.person_id = p.id LIMIT 1) o ON true');
    assert.match(text, /Nested Loop Lateral Join \(left\)/);
  });

  test('functions in FROM: names and types as PostgreSQL gives them', async () => {
    await same([
      'SELECT * FROM generate_series(1, 5) WITH ORDINALITY AS g(n, i)',
      'SELECT * FROM generate_series(1, 3) WITH ORDINALITY',
      'SELECT * FROM generate_series(1, 3) g',
      'SELECT * FROM generate_series(10, 1, -3)',
      'SELECT * FROM generate_series(1::bigint, 3::bigint) AS t(x)',
      "SELECT * FROM generate_series('2024-01-01'::timestamp, '2024-01-03'::timestamp, interval '1 day')",
      'SELECT * FROM unnest(ARRAY[1, 2, 3], ARRAY[\'a\', \'b\'])',
      'SELECT * FROM unnest(ARRAY[1, 2, 3], ARRAY[\'a\', \'b\']) AS t(x, y)',
      'SELECT * FROM unnest(ARRAY[1, 2], ARRAY[\'a\', \'b\', \'c\']) WITH ORDINALITY',
      "SELECT * FROM unnest(ARRAY['x', 'y']) WITH ORDINALITY",
      "SELECT * FROM unnest(ARRAY['x', 'y']) WITH ORDINALITY AS u(v, n)",
      "SELECT * FROM unnest(ARRAY['x', 'y']) u",
      'SELECT * FROM ROWS FROM (generate_series(1, 3), unnest(ARRAY[\'a\', \'b\'])) AS t(n, s)',
      'SELECT * FROM ROWS FROM (generate_series(1, 2), generate_series(5, 7)) WITH ORDINALITY',
      `SELECT * FROM jsonb_each('{"b": 1, "a": [1, 2], "c": null, "aa": {"z": 1}}')`,
      `SELECT * FROM jsonb_each_text('{"b": 1, "a": [1, 2], "c": null, "s": "q\\"t"}')`,
      `SELECT * FROM json_each('{"a": 1.50, "b" : "x", "a": [1,  2]}')`,
      `SELECT * FROM json_each_text('{"a": 1.50, "b": "x", "n": null}')`,
      `SELECT key, value FROM jsonb_each('{"a": 1}') WITH ORDINALITY AS e(key, value, n)`,
      `SELECT * FROM jsonb_each('{"a": 1}') WITH ORDINALITY AS e(k, v, n)`,
      `SELECT * FROM jsonb_array_elements('[1, "a", {"k": 2}, null, [true]]')`,
      `SELECT * FROM jsonb_array_elements_text('[1, "a", {"k": 2}, null]')`,
      `SELECT * FROM json_array_elements('[1, "a", {"k":  2}]')`,
      `SELECT * FROM json_array_elements_text('[1, "a", null]')`,
      `SELECT * FROM jsonb_array_elements('[1]') AS t`,
      `SELECT t.value FROM jsonb_array_elements('[1, 2]') AS t WHERE t.value::text <> '1'`,
      "SELECT * FROM regexp_split_to_table('a,b,,c', ',') AS t(part)",
      "SELECT * FROM upper('abc')",
      'SELECT * FROM abs(-3) AS a',
      'SELECT * FROM abs(-3) AS a(v)',
      'SELECT * FROM abs(-3) WITH ORDINALITY',
      'SELECT count(*) FROM current_date',
      `SELECT * FROM jsonb_each('[1]')`,
      `SELECT * FROM jsonb_each_text('3')`,
      `SELECT * FROM jsonb_array_elements('{"a": 1}')`,
      `SELECT * FROM jsonb_array_elements('1')`,
      `SELECT * FROM json_array_elements('{"a": 1}')`,
      `SELECT * FROM json_array_elements('1')`,
      `SELECT * FROM json_each('[]')`,
      `SELECT * FROM json_each_text('3')`,
      'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT 2 WHERE EXISTS (SELECT 1 FROM t)) SELECT * FROM t',
      'SELECT * FROM generate_series(1, 3) AS g(a, b)',
    ]);
  });

  test('now(), current_date and friends in FROM: one row, the function\'s name and type', async () => {
    for (const sql of ['SELECT * FROM now()', 'SELECT * FROM current_date', 'SELECT * FROM current_timestamp AS t', 'SELECT * FROM localtimestamp', 'SELECT * FROM now() AS n(x)']) {
      assert.deepEqual(await outcome(both.g.client, sql, false), await outcome(both.oracle, sql, false), sql);
    }
  });

  test('generate_series over constants streams past a million rows', { timeout: 120_000 }, async () => {
    await same([
      'SELECT count(*) FROM generate_series(1, 3000000)',
      'SELECT sum(g), max(g) FROM generate_series(1, 2000000) g',
      'SELECT count(*) FROM generate_series(1::bigint, 1500000::bigint, 2) WITH ORDINALITY',
    ]);
  });
});
