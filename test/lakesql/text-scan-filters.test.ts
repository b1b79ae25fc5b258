import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { gatewayAndOracleForSuite } from './gateway-and-oracle.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';

// char(n) values that differ only in trailing blanks, a tab before them, multibyte text, empty and blank-only values, NULL.
const VALUES = ["'ab'", "'ab  '", "E'ab\\t'", "'a'", "''", "'   '", 'NULL', "'é'", "'b'", "'AB'", "'ab c'", "'𝄞'"];

const setup = [
  'CREATE TABLE tf (id int, c char(6), v varchar(10))',
  'CREATE TABLE tfk (id int PRIMARY KEY, c char(6), v varchar(10))',
  ...['tf', 'tfk'].map((t) => `INSERT INTO ${t} VALUES ${VALUES.map((x, i) => `(${i}, ${x}, ${x})`).join(', ')}`),
];

/** Filters the scan takes over (pushed to the lake and decided there on the stored bytes). */
const predicates = [
  "c = 'ab'", "c = 'ab    '", "c <> 'ab'", "c IN ('ab', 'b ', NULL)", "c IN ('', 'é')", "c = ''",
  "c < 'ab'", "c <= 'ab '", "c > 'ab'", "c >= 'b'", "c > ''",
  "v = 'ab'", "v IN ('ab', 'ab  ')", "v <> 'ab  '", "v = ''",
  "c = 'ab' AND v = 'ab  '", "c IN ('ab', 'a') AND id > 0",
];

describe('text and char(n) filters in lake scans, against PostgreSQL 15', () => {
  let g: LakeSqlGateway;
  let oracle: pg.Client;
  gatewayAndOracleForSuite(setup, (both) => ({ g, oracle } = both));

  /** Each query returns PostgreSQL's ids, in its order. */
  async function sameIdsAsPostgres(queries: readonly string[]): Promise<void> {
    for (const sql of queries) {
      const theirs = (await oracle.query({ text: sql, rowMode: 'array' })).rows.map((r) => String(r[0]));
      assert.deepEqual((await g.rows(sql)).map((r) => r[0]), theirs, sql);
    }
  }

  /** The ids each predicate keeps, on the append table and on the keyed one. */
  const filtering = (ps: readonly string[]): string[] => ['tf', 'tfk'].flatMap((table) => ps.map((p) => `SELECT id FROM ${table} WHERE ${p} ORDER BY id`));

  test('each filter keeps the rows PostgreSQL keeps, on an append table and a keyed one', async () => {
    await sameIdsAsPostgres(filtering(predicates));
  });

  test('a leading substring IN a list of constants keeps the rows PostgreSQL keeps', async () => {
    // Keys as long as the prefix, shorter (the whole value must match) and longer (never), multibyte ones, NOT IN, NULL in the list.
    const prefixes = [
      "substring(c from 1 for 2) IN ('ab', 'a', 'é', '')", "substr(v, 1, 2) IN ('ab', 'a ', 'AB', 'abc')", "left(v, 1) IN ('a', 'é', '𝄞')",
      "substring(c::text, 1, 3) NOT IN ('ab', 'ab ', 'ab\t')", "substring(v from 1 for 0) IN ('')", "left(c, 2) IN ('ab', 'a', '   ')",
      "substring(v, 1, 2) IN ('ab', NULL)", "substring(v, 1, 1) NOT IN ('a', NULL)", "substring(v from 1 for 4) IN ('ab c', 'ab  ', 'é')", "left(v, 1) IN ('ab', 'b')", "substring(v, 2, 1) IN ('b', ' ')",
      // Keys all of one byte length (1 or 2), which a table of leading bytes decides: char(n) blanks, multibyte, NOT IN.
      "substring(v from 1 for 2) IN ('ab', 'AB', 'b ')", "left(c, 2) IN ('ab', 'AB')", "left(c, 1) NOT IN ('a', 'b')", "left(v, 1) IN ('é')",
      "left(c, 1) IN ('a', ' ')", "substr(v, 1, 2) NOT IN ('ab', 'a ')", "substring(v from 1 for 3) IN ('ab', 'é')",
    ];
    await sameIdsAsPostgres(filtering(prefixes));
  });

  test('ORDER BY a char(n) column orders as PostgreSQL does (trailing blanks ignored)', async () => {
    await sameIdsAsPostgres(['SELECT id FROM tf ORDER BY c, id', 'SELECT id FROM tf ORDER BY c DESC, id', 'SELECT id FROM tfk ORDER BY c NULLS FIRST, id DESC']);
  });

  test('char(n) equality and IN are decided by the scan, not re-checked above it', async () => {
    const plan = (await g.rows("EXPLAIN SELECT id FROM tf WHERE c IN ('ab', 'b') AND c <> 'x'")).map((r) => r[0]).join('\n');
    assert.match(plan, /Pushed Filters: .*c IN/);
    assert.doesNotMatch(plan, /Filter: .*c = ANY|Filter: .*c IN|Filter: .*<>/);
  });
});
