import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { gatewayAndOracleForSuite } from './gateway-and-oracle.js';
import type { GatewayAndOracle } from './gateway-and-oracle.js';

/**
 * Primary keys mean what PostgreSQL 15 means: INSERT and COPY of a live key are 23505
 * with PostgreSQL's message and DETAIL and write nothing; an UPDATE that moves keys is
 * checked at the end of the statement. Each case runs on Floe and on the oracle.
 * The oracle's keys are DEFERRABLE (checked at the end of each statement, as the SQL
 * standard says and Floe does); PostgreSQL's default checks row by row.
 */

interface Outcome {
  readonly ok: boolean;
  readonly tag?: string;
  readonly code?: string;
  readonly message?: string;
  readonly detail?: string;
}

async function outcome(c: pg.Client, sql: string): Promise<Outcome> {
  try {
    const r = await c.query(sql);
    return { ok: true, tag: `${r.command} ${r.rowCount ?? ''}`.trim() };
  } catch (e) {
    const x = e as { code?: string; message: string; detail?: string };
    return { ok: false, code: x.code, message: x.message, ...(x.detail === undefined ? {} : { detail: x.detail }) };
  }
}

async function copyIn(c: pg.Client, sql: string, data: string): Promise<Outcome> {
  try {
    const stream = c.query(copyStreams.from(sql));
    await pipeline(Readable.from([Buffer.from(data)]), stream);
    return { ok: true, tag: `COPY ${stream.rowCount}` };
  } catch (e) {
    const x = e as { code?: string; message: string; detail?: string };
    // a failed COPY leaves the connection usable once the error is read
    return { ok: false, code: x.code, message: x.message, ...(x.detail === undefined ? {} : { detail: x.detail }) };
  }
}

const contents = async (c: pg.Client, table: string) => (await c.query({ text: `SELECT * FROM ${table} ORDER BY 1, 2`, rowMode: 'array' })).rows;

const floeDdl = [
  'CREATE TABLE k (id int PRIMARY KEY, v text)',
  'CREATE TABLE c (a int, b text, v int, PRIMARY KEY (a, b))',
];
const oracleDdl = [
  'CREATE TABLE k (id int PRIMARY KEY DEFERRABLE, v text)',
  'CREATE TABLE c (a int, b text, v int, PRIMARY KEY (a, b) DEFERRABLE)',
];

describe('primary keys against PostgreSQL 15', () => {
  let both: GatewayAndOracle;
  gatewayAndOracleForSuite([], (b) => { both = b; });

  const same = async (sql: string, tables = ['k', 'c']): Promise<Outcome> => {
    const f = await outcome(both.g.client, sql);
    const o = await outcome(both.oracle, sql);
    assert.deepEqual(f, o, sql);
    for (const t of tables) assert.deepEqual(await contents(both.g.client, t), await contents(both.oracle, t), `${t} after ${sql}`);
    return f;
  };

  test('setup', async () => {
    for (const s of floeDdl) await both.g.client.query(s);
    for (const s of oracleDdl) await both.oracle.query(s);
    await same("INSERT INTO k VALUES (1, 'a'), (2, 'b'), (3, 'c'), (10, 'j')");
    await same("INSERT INTO c VALUES (1, 'x', 1), (1, 'y', 2)");
  });

  test('INSERT of an existing key, or the same key twice in one INSERT, is 23505 and writes nothing', async () => {
    const a = await same("INSERT INTO k VALUES (4, 'd'), (1, 'again')");
    assert.equal(a.code, '23505');
    assert.equal(a.detail, 'Key (id)=(1) already exists.');
    const b = await same("INSERT INTO k VALUES (7, 'x'), (7, 'y')");
    assert.equal(b.detail, 'Key (id)=(7) already exists.');
    const c = await same("INSERT INTO c VALUES (2, 'x', 0), (1, 'x', 9)");
    assert.equal(c.detail, 'Key (a, b)=(1, x) already exists.');
    await same("INSERT INTO c VALUES (1, 'z', 3)");
    await same("INSERT INTO k SELECT id + 100, v FROM k");
    await same("DELETE FROM k WHERE id > 100");
  });

  test('a duplicate across statements of one transaction fails the second and the transaction', async () => {
    for (const sql of ['BEGIN', "INSERT INTO k VALUES (20, 't')", "INSERT INTO k VALUES (20, 'u')", 'ROLLBACK']) {
      const f = await outcome(both.g.client, sql);
      const o = await outcome(both.oracle, sql);
      assert.deepEqual(f, o, sql);
    }
    assert.deepEqual(await contents(both.g.client, 'k'), await contents(both.oracle, 'k'));
  });

  test('a key deleted earlier may be inserted again, in the same transaction too', async () => {
    await same('DELETE FROM k WHERE id = 3');
    await same("INSERT INTO k VALUES (3, 'c2')");
    for (const sql of ['BEGIN', 'DELETE FROM k WHERE id = 3', "INSERT INTO k VALUES (3, 'c3')", 'COMMIT']) {
      assert.deepEqual(await outcome(both.g.client, sql), await outcome(both.oracle, sql), sql);
    }
    assert.deepEqual(await contents(both.g.client, 'k'), await contents(both.oracle, 'k'));
  });

  test('COPY of an existing key or a key twice is 23505 and writes nothing', async () => {
    for (const [sql, data] of [
      ['COPY k FROM STDIN', '30\tx\n1\ty\n'],
      ['COPY k FROM STDIN WITH (FORMAT csv)', '31,x\n31,y\n'],
      ['COPY k FROM STDIN WITH (FORMAT csv)', '32,x\n33,y\n'],
    ] as const) {
      const f = await copyIn(both.g.client, sql, data);
      const o = await copyIn(both.oracle, sql, data);
      assert.equal(f.ok, o.ok, sql);
      assert.equal(f.code, o.code);
      assert.equal(f.message, o.message);
      assert.equal(f.detail, o.detail);
      assert.deepEqual(await contents(both.g.client, 'k'), await contents(both.oracle, 'k'));
    }
  });

  test('UPDATE that changes keys is checked at the end of the statement', async () => {
    await same('UPDATE k SET id = id + 1');
    await same('UPDATE k SET id = id - 1');
    const collide = await same('UPDATE k SET id = 1 WHERE id = 10');
    assert.equal(collide.code, '23505');
    assert.equal(collide.detail, 'Key (id)=(1) already exists.');
    const twoOntoOne = await same("UPDATE k SET id = 50 WHERE id IN (1, 2)");
    assert.equal(twoOntoOne.code, '23505');
    await same('UPDATE k SET id = CASE id WHEN 1 THEN 2 WHEN 2 THEN 1 ELSE id END WHERE id IN (1, 2)');
    await same("UPDATE k SET v = v || '!' WHERE id = 2");
    await same("UPDATE c SET b = b || b WHERE a = 1");
    await same("UPDATE k SET id = id * 10 RETURNING id, v");
  });

  test('MERGE: a matched update that moves a key and a not-matched insert are checked like UPDATE and INSERT', async () => {
    await same('DELETE FROM k');
    await same("INSERT INTO k VALUES (1, 'a'), (10, 'j')");
    assert.equal((await same('MERGE INTO k USING (VALUES (10, 500)) s(id, nid) ON k.id = s.id WHEN MATCHED THEN UPDATE SET id = s.nid')).tag, 'MERGE 1');
    const dup = await same("MERGE INTO k USING (VALUES (20, 'n')) s(id, v) ON k.id = s.id WHEN MATCHED THEN UPDATE SET id = 500 WHEN NOT MATCHED THEN INSERT VALUES (500, s.v)");
    assert.equal(dup.code, '23505');
    const moved = await same('MERGE INTO k USING (VALUES (500, 20)) s(id, nid) ON k.id = s.id WHEN MATCHED THEN UPDATE SET id = s.nid');
    assert.equal(moved.ok, true);
  });
});
