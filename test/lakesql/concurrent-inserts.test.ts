import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startLakeSqlGateway } from './lake-sql-gateway.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';

/**
 * Two sessions on one gateway writing the same key at once: plain INSERTs cannot both
 * commit (the later fails 23505, as it would in PostgreSQL once the first commits),
 * while blind upserts (ON CONFLICT DO UPDATE SET c = EXCLUDED.c) never fail.
 */
describe('concurrent writes of one key', () => {
  let g: LakeSqlGateway;
  let other: pg.Client;
  before(async () => {
    g = await startLakeSqlGateway();
    other = new pg.Client({ host: '127.0.0.1', port: g.server.port, user: 'floe', database: 'floe', types: { getTypeParser: () => (v: string) => v } });
    await other.connect();
    await g.run('CREATE TABLE k (id int PRIMARY KEY, v text)');
    await g.run("INSERT INTO k VALUES (1, 'a')");
  });
  after(async () => {
    await other?.end().catch(() => undefined);
    await g?.stop();
  });

  const code = async (p: Promise<unknown>): Promise<string> => {
    try { await p; return 'ok'; } catch (e) { return (e as { code?: string }).code ?? String(e); }
  };

  test('two transactions inserting the same new key: the first commit wins, the second fails 23505', async () => {
    for (const [first, second] of [[g.client, other], [other, g.client]] as const) {
      const id = first === g.client ? 100 : 101;
      await g.client.query('BEGIN');
      await other.query('BEGIN');
      await first.query(`INSERT INTO k VALUES (${id}, 'first')`);
      await second.query(`INSERT INTO k VALUES (${id}, 'second')`);
      await first.query('COMMIT');
      const e = await second.query('COMMIT').then(() => undefined, (x: unknown) => x as { code: string; detail?: string });
      assert.equal(e?.code, '23505');
      assert.equal(e?.detail, `Key (id)=(${id}) already exists.`);
      assert.deepEqual(await g.rows(`SELECT v FROM k WHERE id = ${id}`), [['first']]);
    }
  });

  test('autocommit INSERTs of one key racing: exactly one succeeds', async () => {
    const results = await Promise.all([
      code(g.client.query("INSERT INTO k VALUES (200, 'x')")),
      code(other.query("INSERT INTO k VALUES (200, 'y')")),
    ]);
    assert.deepEqual(results.sort(), ['23505', 'ok']);
    assert.equal((await g.rows('SELECT count(*) FROM k WHERE id = 200'))[0]![0], '1');
  });

  test('blind upserts (every SET is EXCLUDED.c) of one key in two open transactions both commit, the younger wins', async () => {
    for (const id of [1, 300]) {
      await g.client.query('BEGIN');
      await other.query('BEGIN');
      await g.client.query(`INSERT INTO k VALUES (${id}, 'older') ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v`);
      await other.query(`INSERT INTO k VALUES (${id}, 'younger') ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v`);
      assert.equal(await code(other.query('COMMIT')), 'ok');
      assert.equal(await code(g.client.query('COMMIT')), 'ok');
      assert.deepEqual(await g.rows(`SELECT v FROM k WHERE id = ${id}`), [['younger']]);
    }
  });

  test('an upsert that reads the existing row is read-modify-write: the later commit fails 40001', async () => {
    await g.client.query('BEGIN');
    await other.query('BEGIN');
    await g.client.query("INSERT INTO k VALUES (1, 'p') ON CONFLICT (id) DO UPDATE SET v = k.v || EXCLUDED.v");
    await other.query("INSERT INTO k VALUES (1, 'q') ON CONFLICT (id) DO UPDATE SET v = k.v || EXCLUDED.v");
    assert.equal(await code(other.query('COMMIT')), 'ok');
    assert.equal(await code(g.client.query('COMMIT')), '40001');
  });
});
