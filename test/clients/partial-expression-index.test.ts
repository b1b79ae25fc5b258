import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { oracleAndFloeForSuite } from '../harness/oracle-and-floe.js';
import { psqlOutput as psql, queryOutcome } from '../harness/statement-outcomes.js';
import type { ConnectTarget } from '../harness/run-psql.js';

/** Three INSERTs, so the append table (no primary key) has three data files whose names interleave. */
const SETUP = [
  'CREATE TABLE people (id bigint NOT NULL, first_name varchar(255), last_name varchar(255), age int, t text)',
  ...[0, 1, 2].map((f) => `INSERT INTO people SELECT g * 3 + ${f}, 'n' || (g * 3 + ${f}), 'l' || (g % 5), g % 40, CASE WHEN g % 4 = 0 THEN NULL ELSE 'T' || g END FROM generate_series(0, 39) g`),
  // The statements Kysely's schema tests send, then PostgreSQL's other index forms.
  `create index "test_partial_index" on "people" ("first_name") where "first_name" = 'Sami'`,
  `create index "p_and" on "people" ("first_name", "last_name") where ("first_name" = 'Igal' and "age" >= 18)`,
  `create index "p_or" on "people" ("first_name", "last_name") where ("first_name" = 'Igal' or "age" >= 18)`,
  `create index "test_first_name_index" on "people" ((first_name < 'Sami'))`,
  'CREATE INDEX ON people (lower(t))',
  'CREATE INDEX people_lower_inc ON people (lower(first_name)) INCLUDE (age, last_name)',
  'CREATE INDEX people_pred ON people (t) WHERE t IS NOT NULL AND age > 3 + 4 * 2',
  'CREATE INDEX people_desc ON people (age DESC NULLS LAST, t)',
  "CREATE INDEX people_mixed ON people ((age + 1), t) WHERE t IN ('a', 'b') OR age BETWEEN 1 AND 5",
  'CREATE INDEX people_inc ON people (last_name) INCLUDE (t)',
  'CREATE UNIQUE INDEX people_uniq_inc ON people (id, first_name) INCLUDE (age)',
];

describe('partial, expression and INCLUDE indexes: accepted and shown as PostgreSQL 15 shows them', () => {
  let oracleTarget: ConnectTarget & { url: string };
  let floeTarget: ConnectTarget;
  let floe: { url: string };
  oracleAndFloeForSuite(SETUP, (s) => ({ oracleTarget, floeTarget, floe } = s));

  const both = async <T>(fn: (url: string) => Promise<T>): Promise<[T, T]> => [await fn(oracleTarget.url), await fn(floe.url)];
  const query = (sql: string, values: unknown[] = []) => (url: string) => queryOutcome(url, sql, values);

  test('\\d people prints the keys, INCLUDE columns and predicates PostgreSQL prints', async () => {
    const want = await psql(oracleTarget, '\\d people');
    assert.match(want, /WHERE first_name::text = 'Sami'::text/);
    assert.match(want, /INCLUDE \(age, last_name\)/);
    assert.equal(await psql(floeTarget, '\\d people'), want);
    // \d of an index: its columns (expressions named lower, expr), Key?, definitions and the pretty predicate.
    for (const index of ['test_partial_index', 'people_lower_inc', 'people_mixed']) {
      const w = await psql(oracleTarget, `\\d ${index}`);
      assert.match(w, /btree, for table/);
      assert.equal(await psql(floeTarget, `\\d ${index}`), w, index);
    }
  });

  test('pg_indexes, pg_index and pg_get_indexdef agree with PostgreSQL (deparsed predicates and expressions)', async () => {
    for (const sql of [
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'people' ORDER BY 1`,
      `SELECT c.relname, c.relnatts, i.indnatts, i.indnkeyatts, i.indkey, i.indoption, i.indisunique, i.indexprs IS NOT NULL, i.indpred IS NOT NULL,
         pg_get_expr(i.indpred, i.indrelid), pg_get_indexdef(i.indexrelid), pg_get_indexdef(i.indexrelid, 0, true),
         pg_get_indexdef(i.indexrelid, 1, true), pg_get_indexdef(i.indexrelid, 2, false), pg_get_indexdef(i.indexrelid, 3, false)
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'people'::regclass ORDER BY 1`,
      `SELECT c.relname, a.attnum, a.attname, a.atttypid FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_index i ON i.indexrelid = c.oid WHERE i.indrelid = 'people'::regclass ORDER BY 1, 2`,
    ]) {
      const [want, got] = await both(query(sql));
      assert.ok(!('error' in want), JSON.stringify(want));
      assert.deepEqual(got, want, sql);
    }
    const [w, g] = await both(query(`SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = 'people'::regclass ORDER BY 1`));
    assert.deepEqual(g, w);
  });

  test('lookups return what PostgreSQL returns; only plain column keys prune, and EXPLAIN says which', async () => {
    for (const sql of [
      "SELECT id, age FROM people WHERE first_name = 'n77'",
      "SELECT id FROM people WHERE lower(t) = 't7' ORDER BY id",
      "SELECT count(*) FROM people WHERE last_name = 'l3'",
    ]) {
      const [want, got] = await both(query(sql));
      assert.deepEqual(got, want, sql);
    }
    const explain = async (sql: string) => ((await query(`EXPLAIN ${sql}`)(floe.url)) as { rows: string[][] }).rows.map((r) => r[0]).join('\n');
    // The partial index's filters cover every row (a superset), so they prune even lookups outside its predicate.
    assert.match(await explain("SELECT id FROM people WHERE first_name = 'n77'"), /Index Prune: [^\n]*test_partial_index[^\n]*files skipped [12]/);
    // An expression key builds no filter: no prune is claimed for it.
    assert.doesNotMatch(await explain("SELECT id FROM people WHERE lower(t) = 't7'"), /Index Prune/);
  });

  test('what Floe cannot enforce is refused with 0A000; a bad expression fails as in PostgreSQL', async () => {
    for (const sql of ['CREATE UNIQUE INDEX ON people (lower(t))', "CREATE UNIQUE INDEX ON people (t) WHERE age > 3", 'CREATE INDEX ON people USING gin (t)']) {
      const r = await query(sql)(floe.url);
      assert.match((r as { error?: string }).error ?? '', /^0A000/, sql);
    }
    for (const sql of ['CREATE INDEX bad1 ON people (lower(nope))', 'CREATE INDEX bad2 ON people (t) WHERE nope > 1', 'CREATE INDEX bad3 ON people (t) WHERE age + 1']) {
      const [want, got] = await both(query(sql));
      assert.ok('error' in want, sql);
      assert.equal((got as { error?: string }).error?.slice(0, 5), (want as { error: string }).error.slice(0, 5), sql);
    }
  });

  test('DROP COLUMN of a column an expression or predicate reads drops the index, as in PostgreSQL', async () => {
    const [want, got] = await both(query('ALTER TABLE people DROP COLUMN age'));
    assert.deepEqual(got, want);
    assert.equal(await psql(floeTarget, '\\d people'), await psql(oracleTarget, '\\d people'));
  });
});
