import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { oracleAndFloeForSuite } from '../harness/oracle-and-floe.js';
import { psqlOutput as psql, queryOutcome } from '../harness/statement-outcomes.js';
import type { ConnectTarget } from '../harness/run-psql.js';

/** Four INSERTs, so an append table has four data files whose `sku` values interleave. */
const SETUP = [
  'CREATE TABLE items (id int PRIMARY KEY, sku text, qty int)',
  'CREATE TABLE stock (sku text, qty int, note text)',
  ...[0, 1, 2, 3].flatMap((f) => [
    `INSERT INTO items SELECT g * 4 + ${f}, 'sku' || (g * 4 + ${f}), g % 7 FROM generate_series(0, 49) g`,
    `INSERT INTO stock SELECT 'sku' || (g * 4 + ${f}), g % 7, 'n' || g FROM generate_series(0, 49) g`,
  ]),
  'CREATE INDEX items_sku_idx ON items (sku)',
  'CREATE INDEX ON items USING hash (qty)',
  'CREATE INDEX stock_sku_idx ON stock (sku)',
];

describe('CREATE INDEX / DROP INDEX: catalogs and psql as PostgreSQL 15 shows them, and scans that use them', () => {
  let oracleTarget: ConnectTarget & { url: string };
  let floeTarget: ConnectTarget;
  let floe: { url: string };
  oracleAndFloeForSuite(SETUP, (s) => ({ oracleTarget, floeTarget, floe } = s));

  const both = async <T>(fn: (url: string) => Promise<T>): Promise<[T, T]> => [await fn(oracleTarget.url), await fn(floe.url)];
  const query = (sql: string, values: unknown[] = []) => (url: string) => queryOutcome(url, sql, values);

  test('\\d items and \\di print what PostgreSQL prints', async () => {
    for (const cmd of ['\\d items', '\\di', '\\d stock']) {
      const want = await psql(oracleTarget, cmd);
      assert.match(want, /idx/, cmd);
      assert.equal(await psql(floeTarget, cmd), want, cmd);
    }
  });

  test('pg_indexes, pg_index and pg_class show the indexes (indexprs typed pg_node_tree)', async () => {
    const [want, got] = await both(query(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('items', 'stock') ORDER BY 1`));
    assert.deepEqual(got, want);
    const [w2, g2] = await both(query(`SELECT c.relname, c.relkind, am.amname, i.indnatts, i.indisunique, i.indisprimary, i.indexprs, i.indpred
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
      WHERE i.indrelid = 'items'::regclass ORDER BY 1`));
    assert.deepEqual(g2, w2);
    assert.equal((w2 as { fields: unknown[][] }).fields.find((f) => f[0] === 'indexprs')![1], 194);
  });

  test('lookups through an indexed column return what PostgreSQL returns; Floe skips files by the index', async () => {
    for (const [sql, values] of [
      ['SELECT id, qty FROM items WHERE sku = $1', ['sku77']],
      ["SELECT id FROM items WHERE sku IN ('sku5', 'sku150', 'nope') ORDER BY id", []],
      ['SELECT sku, note FROM stock WHERE sku = $1', ['sku123']],
      ['SELECT count(*) FROM stock WHERE sku = $1', ['sku123x']],
    ] as const) {
      const [want, got] = await both(query(sql, [...values]));
      assert.deepEqual(got, want, sql);
    }
    const plan = await query("EXPLAIN SELECT note FROM stock WHERE sku = 'sku123'")(floe.url) as { rows: string[][] };
    const text = plan.rows.map((r) => r[0]).join('\n');
    const m = /Index Prune: stock_sku_idx, files skipped (\d+)/.exec(text);
    assert.ok(m, text);
    assert.ok(Number(m[1]) >= 2, text);
  });

  test('DROP INDEX removes an index; unknown names fail as in PostgreSQL', async () => {
    for (const sql of ['DROP INDEX items_qty_idx', 'DROP INDEX items_qty_idx', 'DROP INDEX IF EXISTS items_qty_idx', 'DROP INDEX public.stock_sku_idx']) {
      const [want, got] = await both(query(sql));
      assert.deepEqual(got, want, sql);
    }
    const want = await psql(oracleTarget, '\\di');
    assert.doesNotMatch(want, /items_qty_idx|stock_sku_idx/);
    assert.equal(await psql(floeTarget, '\\di'), want);
    const plan = await query("EXPLAIN SELECT note FROM stock WHERE sku = 'sku123'")(floe.url) as { rows: string[][] };
    assert.doesNotMatch(plan.rows.map((r) => r[0]).join('\n'), /Index Prune/);
  });

  test('what Floe cannot build is refused with 0A000, not ignored', async () => {
    for (const sql of ['CREATE UNIQUE INDEX ON items (lower(sku))', 'CREATE UNIQUE INDEX ON items (qty) WHERE qty > 3', 'CREATE INDEX ON items USING gin (sku)']) {
      const r = await query(sql)(floe.url);
      assert.match((r as { error?: string }).error ?? '', /^0A000/, sql);
    }
  });
});
