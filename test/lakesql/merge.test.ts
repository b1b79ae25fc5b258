import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { runPsql } from '../harness/run-psql.js';
import { gatewayAndOracleForSuite } from './gateway-and-oracle.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';

type Outcome = { command: string; rowCount: number | null } | { code: string };

/** Runs a statement and reports its tag and count, or its SQLSTATE. */
async function outcome(c: pg.Client, sql: string): Promise<Outcome> {
  try {
    const r = await c.query(sql);
    return { command: r.command, rowCount: r.rowCount };
  } catch (e) {
    return { code: (e as { code?: string }).code ?? '?' };
  }
}

const setup = [
  'CREATE TABLE tgt (id int PRIMARY KEY, v int, note text)',
  'CREATE TABLE src (id int, v int)',
  'CREATE TABLE log (id int, v int)',
  "INSERT INTO tgt VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c'), (4, 40, 'd'), (5, 50, 'e')",
  'INSERT INTO src VALUES (1, 11), (2, -1), (3, 33), (6, 60), (7, -7), (8, 80)',
  'INSERT INTO log VALUES (1, 1), (1, 2)',
];

/** MERGE forms PostgreSQL 15 accepts, each run on both servers in order, with the table compared after each. */
const pg15Forms = [
  // Every clause kind, first matching clause wins, conditions on source and target.
  `MERGE INTO tgt t USING src s ON t.id = s.id
     WHEN MATCHED AND s.v < 0 THEN DELETE
     WHEN MATCHED AND t.v > 25 THEN UPDATE SET v = s.v, note = t.note || '!'
     WHEN MATCHED THEN DO NOTHING
     WHEN NOT MATCHED AND s.v < 0 THEN DO NOTHING
     WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v * 2)`,
  // A VALUES source, INSERT with DEFAULT and without a column list.
  `MERGE INTO tgt USING (VALUES (9, 90), (1, 100)) AS s(id, v) ON tgt.id = s.id
     WHEN MATCHED THEN UPDATE SET v = tgt.v + s.v
     WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v, DEFAULT)`,
  // A subquery source with an aggregate, and INSERT DEFAULT VALUES-like partial lists.
  `MERGE INTO tgt t USING (SELECT id, max(v) AS v FROM log GROUP BY id) s ON t.id = s.id
     WHEN MATCHED THEN UPDATE SET note = 'log ' || s.v`,
  // The target itself as the source.
  `MERGE INTO tgt t USING tgt s ON t.id = s.id AND s.id > 8
     WHEN MATCHED THEN DELETE`,
  // No row qualifies.
  `MERGE INTO tgt t USING (SELECT 1000 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE`,
  // A target row matched twice.
  `MERGE INTO tgt t USING log s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v`,
  // DO NOTHING for a double match is not an error.
  `MERGE INTO tgt t USING log s ON t.id = s.id WHEN MATCHED THEN DO NOTHING`,
  // A clause's condition, SET and VALUES are computed only for the rows that reach it
  // (no 22012 from rows another clause took), as in PostgreSQL.
  `MERGE INTO tgt t USING (VALUES (2, 0), (12, 5), (14, 0)) s(id, d) ON t.id = s.id
     WHEN MATCHED AND s.d > 0 THEN UPDATE SET v = 10 / s.d
     WHEN MATCHED THEN DO NOTHING
     WHEN NOT MATCHED AND s.d = 0 THEN DO NOTHING
     WHEN NOT MATCHED AND 10 / s.d > 1 THEN INSERT (id, v) VALUES (s.id, 100 / s.d)`,
  // An append table (no key) as the target.
  `MERGE INTO src t USING (VALUES (6, 0), (100, 1)) s(id, v) ON t.id = s.id
     WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)`,
];

describe('MERGE INTO over the wire, against PostgreSQL 15', () => {
  let g: LakeSqlGateway;
  let oracle: pg.Client;
  gatewayAndOracleForSuite(setup, (both) => ({ g, oracle } = both));

  const tableRows = async (c: pg.Client, table: string) => (await c.query({ text: `SELECT * FROM ${table} ORDER BY 1, 2`, rowMode: 'array' })).rows;

  test('every form PostgreSQL 15 supports: same tag, count, error and table contents', async () => {
    for (const sql of pg15Forms) {
      const [mine, theirs] = [await outcome(g.client, sql), await outcome(oracle, sql)];
      assert.deepEqual(mine, theirs, sql);
      assert.deepEqual(await tableRows(g.client, 'tgt'), await tableRows(oracle, 'tgt'), sql);
      assert.deepEqual(await tableRows(g.client, 'src'), await tableRows(oracle, 'src'), sql);
    }
    const doubleMatch = await g.failure(pg15Forms[5]!);
    assert.equal(doubleMatch.code, '21000');
    assert.match(doubleMatch.message, /MERGE command cannot affect row a second time/);
  });

  test('psql shows the MERGE n command tag', async () => {
    const r = await runPsql(g.server, ['-c', 'MERGE INTO tgt t USING (VALUES (2)) s(id) ON t.id = s.id WHEN MATCHED THEN DO NOTHING']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'MERGE 0');
  });

  test('PostgreSQL 17 forms: WHEN NOT MATCHED BY SOURCE / BY TARGET', async () => {
    await g.run('CREATE TABLE k (id int PRIMARY KEY, v int)');
    await g.run('INSERT INTO k VALUES (1, 1), (2, 2), (3, 3), (4, 4)');
    const r = await g.run(`MERGE INTO k USING (VALUES (1, 10), (5, 50), (6, -60)) s(id, v) ON k.id = s.id
      WHEN MATCHED THEN UPDATE SET v = s.v
      WHEN NOT MATCHED BY TARGET AND s.v < 0 THEN DO NOTHING
      WHEN NOT MATCHED BY TARGET THEN INSERT VALUES (s.id, s.v)
      WHEN NOT MATCHED BY SOURCE AND k.id = 2 THEN DELETE
      WHEN NOT MATCHED BY SOURCE AND k.id = 3 THEN DO NOTHING
      WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = -k.v`);
    assert.deepEqual(r, { command: 'MERGE', rowCount: 4 });
    assert.deepEqual(await g.rows('SELECT * FROM k ORDER BY id'), [['1', '10'], ['3', '3'], ['4', '-4'], ['5', '50']]);
  });

  test('RETURNING: source and target columns, qualified stars, expressions', async () => {
    await g.run('CREATE TABLE r (id int PRIMARY KEY, v int)');
    await g.run('INSERT INTO r VALUES (1, 1), (2, 2)');
    const res = await g.client.query({
      text: `MERGE INTO r t USING (VALUES (1, 10), (3, 30)) s(id, v) ON t.id = s.id
        WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)
        RETURNING t.id, t.v, s.v AS source_v, t.v * 2 AS twice`,
      rowMode: 'array',
    });
    assert.equal(res.command, 'MERGE');
    assert.equal(res.rowCount, 2);
    assert.deepEqual(res.fields.map((f) => f.name), ['id', 'v', 'source_v', 'twice']);
    assert.deepEqual([...res.rows].sort(), [['1', '10', '10', '20'], ['3', '30', '30', '60']]);
    const star = await g.client.query({
      text: 'MERGE INTO r t USING (VALUES (2, 5)) s(sid, sv) ON t.id = s.sid WHEN MATCHED THEN DELETE RETURNING t.*', rowMode: 'array',
    });
    assert.deepEqual(star.fields.map((f) => f.name), ['id', 'v'], 't.* is the target row only');
    assert.deepEqual(star.rows, [['2', '2']], 'DELETE returns the deleted row');
    const both = await g.client.query({
      text: 'MERGE INTO r t USING (VALUES (1, 7)) s(sid, sv) ON t.id = s.sid WHEN MATCHED THEN UPDATE SET v = s.sv RETURNING s.*, t.*', rowMode: 'array',
    });
    assert.deepEqual(both.fields.map((f) => f.name), ['sid', 'sv', 'id', 'v']);
    assert.deepEqual(both.rows, [['1', '7', '1', '7']]);
  });

  test('RETURNING merge_action() names the clause each row took, including BY SOURCE ones', async () => {
    await g.run('CREATE TABLE ma (id int PRIMARY KEY, v int)');
    await g.run('INSERT INTO ma VALUES (1, 1), (2, 2), (3, 3)');
    const res = await g.client.query({
      text: `MERGE INTO ma t USING (VALUES (1, 10), (2, -1), (4, 40)) s(id, v) ON t.id = s.id
        WHEN MATCHED AND s.v < 0 THEN DELETE
        WHEN MATCHED THEN UPDATE SET v = s.v
        WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)
        WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = 0
        RETURNING merge_action(), t.id, t.v, s.v AS sv`,
      rowMode: 'array',
    });
    assert.deepEqual(res.fields.map((f) => f.name), ['merge_action', 'id', 'v', 'sv']);
    assert.equal(res.rowCount, 4);
    const byId = [...res.rows].sort((a, b) => Number(a[1]) - Number(b[1]));
    assert.deepEqual(byId, [['UPDATE', '1', '10', '10'], ['DELETE', '2', '2', '-1'], ['UPDATE', '3', '0', null], ['INSERT', '4', '40', '40']]);
    assert.deepEqual(await g.rows('SELECT * FROM ma ORDER BY id'), [['1', '10'], ['3', '0'], ['4', '40']]);
    const named = await g.client.query({ text: 'MERGE INTO ma t USING (VALUES (1)) s(id) ON t.id = s.id WHEN MATCHED THEN DO NOTHING RETURNING merge_action() AS act', rowMode: 'array' });
    assert.deepEqual(named.fields.map((f) => f.name), ['act']);
    assert.deepEqual(named.rows, [], 'DO NOTHING returns no row');
  });

  test('MERGE reads what it writes: a concurrent commit to a key it wrote fails it with 40001, another key does not', async () => {
    await g.run('CREATE TABLE si (id int PRIMARY KEY, v int)');
    await g.run('INSERT INTO si VALUES (1, 1), (2, 2)');
    const other = new pg.Client({ host: '127.0.0.1', port: g.server.port, user: 'floe', database: 'floe' });
    await other.connect();
    try {
      await g.run('BEGIN');
      await g.run('MERGE INTO si t USING (VALUES (1, 10)) s(id, v) ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = t.v + s.v');
      await other.query('UPDATE si SET v = 100 WHERE id = 1');
      const e = await g.failure('COMMIT');
      assert.equal(e.code, '40001');
      assert.deepEqual(await g.rows('SELECT * FROM si ORDER BY id'), [['1', '100'], ['2', '2']]);
      await g.run('BEGIN');
      await g.run('MERGE INTO si t USING (VALUES (2, 10)) s(id, v) ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = t.v + s.v');
      await other.query('UPDATE si SET v = 101 WHERE id = 1');
      await g.run('COMMIT');
      assert.deepEqual(await g.rows('SELECT * FROM si ORDER BY id'), [['1', '101'], ['2', '12']]);
    } finally {
      await other.end();
    }
  });
});
