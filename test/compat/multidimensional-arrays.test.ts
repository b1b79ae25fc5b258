import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { binaryQuery } from '../harness/binary-query.js';
import type { ConnectTarget } from '../harness/run-psql.js';
import { gatewayAndOracleForSuite, sameOnBoth, type GatewayAndOracle } from '../lakesql/gateway-and-oracle.js';

/** Multi-dimensional arrays keep their dimensions: literals, functions, subscripts, order, storage, wire. Differential against PostgreSQL 15. */
describe('multi-dimensional arrays match PostgreSQL 15', () => {
  let both: GatewayAndOracle;
  gatewayAndOracleForSuite([
    'CREATE TABLE ma (id integer PRIMARY KEY, a integer[], t text[])',
    `INSERT INTO ma VALUES (1, '{{1,2},{3,4}}', '{{a,b}}'), (2, '{5,6}', '{c}'), (3, NULL, '{}'), (4, '{{{1}},{{2}}}', NULL), (5, ARRAY[[7,8,9]], '{{"x y",NULL},{"",z}}')`,
    'CREATE TABLE mapp (a integer[], n numeric[])',
    `INSERT INTO mapp VALUES ('{{1,2},{3,4}}', '{{1.5,2},{NULL,-3.25}}'), ('{1}', '{1.0}')`,
  ], (b) => { both = b; });

  test('literals, dimensions and subscripts', async () => {
    await sameOnBoth(both, [
      `SELECT '{{1,joe},{2,bob}}'::text[], '{{1,2,3},{4,5,6}}'::int[], '{{{1},{2}},{{3},{4}}}'::int[], '{{"a b",NULL},{"",x}}'::text[]`,
      `SELECT array_ndims('{{1,2},{3,4}}'::int[]), array_dims('{{1,2,3},{4,5,6}}'::int[]), array_ndims('{1}'::int[]), array_dims('{}'::int[]), array_ndims('{}'::int[])`,
      `SELECT array_length('{{1,2,3},{4,5,6}}'::int[], 1), array_length('{{1,2,3},{4,5,6}}'::int[], 2), array_length('{{1,2,3},{4,5,6}}'::int[], 3), array_upper('{{1,2,3},{4,5,6}}'::int[], 2), array_lower('{{1},{2}}'::int[], 2)`,
      `SELECT cardinality('{{1,2,3},{4,5,6}}'::int[]), cardinality('{}'::int[]), cardinality('{1,2}'::int[])`,
      `SELECT ('{{1,joe},{2,bob}}'::text[])[2][2], ('{{1,2},{3,4}}'::int[])[1][2], ('{{1,2},{3,4}}'::int[])[1], ('{{1,2},{3,4}}'::int[])[3][1], ('{{1,2},{3,4}}'::int[])[1][5], ('{1,2}'::int[])[1][1]`,
      `SELECT x[2][1] FROM (SELECT '{{a,b},{c,d}}'::text[] AS x) s`,
      `SELECT '{{1,2},{3}}'::int[]`,
      `SELECT '{{}}'::int[]`,
      `SELECT '[1:2][1:1]={{1},{2}}'::int[], '[2]={7,8}'::int[]`,
      `SELECT '[1:3]={1,2}'::int[]`,
      `SELECT unnest('{{1,2},{3,4}}'::int[])`,
      `SELECT '{{1,2},{3,4}}'::int[]::text[], '{{1,2},{3,4}}'::text::int[], '{{1.5,2},{3,4}}'::float8[]::numeric[], array_to_string('{{1,2},{3,4}}'::int[], ',')`,
    ]);
  });

  test('ARRAY constructors, equality and order', async () => {
    await sameOnBoth(both, [
      `SELECT ARRAY[[1,2],[3,4]], ARRAY[ARRAY['a','b'],ARRAY['c','d']], pg_typeof(ARRAY[[1,2],[3,4]]), array_ndims(ARRAY[[[1]]]), ARRAY[NULL::int[], NULL]`,
      `SELECT ARRAY[[1,2],[3]]`,
      `SELECT ARRAY[ARRAY[1,2], NULL, ARRAY[3,4]]`,
      `SELECT '{{1,2},{3,4}}'::int[] = ARRAY[[1,2],[3,4]], '{{1,2},{3,4}}'::int[] = '{1,2,3,4}'::int[], '{{1,2},{3,4}}'::int[] < '{{1,2},{3,5}}'::int[],
        '{{1,2}}'::int[] < '{1,2}'::int[], '{{1,2}}'::int[] > '{1,2}'::int[], '{{1},{2}}'::int[] < '{{1,2}}'::int[], '{{1,2}}'::int[] <> '{1,2}'::int[]`,
      `SELECT x, count(*) FROM (VALUES ('{{1,2},{3,4}}'::int[]), ('{1,2,3,4}'), ('{{1,2},{3,4}}'), ('{{1},{2},{3},{4}}')) v(x) GROUP BY x ORDER BY x`,
      `SELECT max(x), min(x) FROM (VALUES ('{{1,2},{3,4}}'::int[]), ('{1,2,3,4}')) v(x)`,
      `SELECT DISTINCT x FROM (VALUES ('{{1,2},{3,4}}'::int[]), ('{1,2,3,4}'), ('{{1,2},{3,4}}')) v(x) ORDER BY x`,
      `SELECT array_agg(x ORDER BY x), pg_typeof(array_agg(x)) FROM (VALUES (ARRAY[1,2]), (ARRAY[3,4])) v(x)`,
      `SELECT array_agg(t) FROM (VALUES ('{{a}}'::text[]), ('{{b}}')) v(t)`,
      `SELECT array_agg(x) FROM (VALUES (ARRAY[1,2]), (ARRAY[3])) v(x)`,
      `SELECT array_agg(x) FROM (VALUES (ARRAY[1,2]), (NULL)) v(x)`,
    ]);
  });

  test('stored in a table and read back', async () => {
    await sameOnBoth(both, [
      'SELECT * FROM ma ORDER BY id',
      'SELECT id, a[1][2], a[2][1][1], array_dims(a), t[1][1], a[1] FROM ma ORDER BY id',
      `SELECT id FROM ma WHERE a = '{{1,2},{3,4}}' ORDER BY id`,
      `UPDATE ma SET a = '{{7,8},{9,10}}', t = ARRAY[['p','q']] WHERE id = 2`,
      `INSERT INTO ma VALUES (6, ARRAY[[1,2],[3,4]] , '{{r}}')`,
      'SELECT * FROM ma ORDER BY id',
      'SELECT * FROM ma ORDER BY a NULLS FIRST, id',
      'SELECT * FROM mapp ORDER BY a',
    ]);
    // Folded into the base store: change files of both forms (List and Struct) become one file.
    await both.g.run(`CALL optimize('ma', 'full')`);
    await sameOnBoth(both, [
      'SELECT * FROM ma ORDER BY id',
      `UPDATE ma SET a = '{3}' WHERE id = 6`,
      'SELECT * FROM ma ORDER BY id',
    ]);
    await both.g.run(`CALL optimize('ma', 'full')`);
    await sameOnBoth(both, ['SELECT * FROM ma ORDER BY id', 'SELECT id, array_ndims(a), array_dims(t) FROM ma ORDER BY id']);
  });

  test('the wire: node-postgres parameters and binary results', async () => {
    for (const c of [both.g.client, both.oracle]) {
      const r = await c.query({ text: 'SELECT $1::int[] AS a, $2::text[] AS t, array_dims($1::int[]) AS d', values: [[[1, 2], [3, 4]], [['a', null], ['c', 'd e']]], rowMode: 'array' });
      assert.deepEqual(r.rows, [['{{1,2},{3,4}}', '{{a,NULL},{c,"d e"}}', '[1:2][1:2]']]);
    }
    const floe: ConnectTarget = { port: both.g.server.port, host: '127.0.0.1' };
    const o = both.oracle;
    const oracle: ConnectTarget = { port: o.port, host: o.host, user: o.user, database: o.database };
    const sql = `SELECT id, a, t FROM ma WHERE id IN (1, 3, 4, 5) ORDER BY id`;
    const [got, want] = await Promise.all([binaryQuery(floe, sql, []), binaryQuery(oracle, sql, [])]);
    const hex = (rows: typeof got.rows) => rows.map((r) => r.map((b) => b?.toString('hex') ?? null));
    assert.deepEqual(got.fields.map((f) => f.dataTypeID), want.fields.map((f) => f.dataTypeID));
    assert.deepEqual(hex(got.rows), hex(want.rows));
    // '{{1,2},{3,4}}': ndim 2, no NULLs, int4, then (2, 1), (2, 1).
    assert.deepEqual([0, 1, 2, 3, 4].map((k) => got.rows[0]![1]!.readInt32BE(k * 4)), [2, 0, 23, 2, 1]);
  });
});
