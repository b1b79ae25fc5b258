import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { SyncPgClient } from '../../../src/lake/catalog/postgres/sync-pg-client.js';
import { startPostgres, type PostgresServer } from '../../harness/postgres-server.js';

/**
 * The synchronous PostgreSQL bridge the PostgreSQL catalog is built on: calls return their
 * rows synchronously, PostgreSQL's SQLSTATEs come through, a
 * transaction is one unit that leaves nothing when it fails, NOTIFY raises an epoch the
 * caller reads without a round trip, and a dead or silent connection is 08006, not a hang.
 */
describe('SyncPgClient', () => {
  let pgServer: PostgresServer;
  const clients: SyncPgClient[] = [];
  const open = (opts: { callTimeoutMs?: number; url?: string } = {}) => {
    const c = new SyncPgClient({ url: opts.url ?? pgServer.url, ...(opts.callTimeoutMs === undefined ? {} : { callTimeoutMs: opts.callTimeoutMs }) });
    clients.push(c);
    return c;
  };
  before(async () => { pgServer = await startPostgres(); });
  after(async () => {
    for (const c of clients) c.close();
    await pgServer?.stop();
  });

  test('a call returns its rows, not a promise: int8 as bigint, bytea as bytes, NULL as null', () => {
    const c = open();
    const rows = c.query('SELECT pg_sleep(0.05), $1::int8 AS big, $2::bytea AS bytes, NULL::text AS nothing, $3::text AS t', ['9007199254740993', Buffer.from([1, 2, 255]), 'é']);
    assert.ok(Array.isArray(rows));
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!['big'], 9007199254740993n);
    assert.deepEqual([...(rows[0]!['bytes'] as Uint8Array)], [1, 2, 255]);
    assert.equal(rows[0]!['nothing'], null);
    assert.equal(rows[0]!['t'], 'é');
  });

  test('errors keep PostgreSQL\'s SQLSTATE and detail, and the connection stays usable', () => {
    const c = open();
    c.query('CREATE TABLE k (id int PRIMARY KEY)');
    c.query('INSERT INTO k VALUES (1)');
    assert.throws(() => c.query('INSERT INTO k VALUES (1)'), (e: { sqlstate?: string; detail?: string }) => e.sqlstate === '23505' && /\(id\)=\(1\)/.test(e.detail ?? ''));
    assert.throws(() => c.query('SELECT 1/0'), { sqlstate: '22012' });
    assert.throws(() => c.query('SELEC 1'), { sqlstate: '42601' });
    assert.deepEqual(c.query('SELECT count(*)::int AS n FROM k'), [{ n: 1 }]);
  });

  test('a transaction is one unit: each statement\'s rows when it commits, nothing of it when a statement fails', () => {
    const c = open();
    c.query('CREATE TABLE t (id int PRIMARY KEY, v text)');
    const results = c.transaction([
      { sql: 'INSERT INTO t VALUES ($1, $2) RETURNING id', params: [1, 'a'] },
      { sql: 'INSERT INTO t VALUES ($1, $2) RETURNING id', params: [2, 'b'] },
      { sql: 'SELECT count(*)::int AS n FROM t' },
    ]);
    assert.deepEqual(results, [[{ id: 1 }], [{ id: 2 }], [{ n: 2 }]]);
    assert.throws(() => c.transaction([
      { sql: 'INSERT INTO t VALUES (3, $1)', params: ['c'] },
      { sql: 'INSERT INTO t VALUES (1, $1)', params: ['dup'] },
    ]), { sqlstate: '23505' });
    assert.deepEqual(c.query('SELECT id FROM t ORDER BY id'), [{ id: 1 }, { id: 2 }]);
    // The connection is out of the failed transaction: the next one runs.
    assert.deepEqual(c.transaction([{ sql: 'SELECT 1 AS one' }], 'serializable'), [[{ one: 1 }]]);
  });

  test('two clients are two sessions: a row lock held by one makes the other\'s NOWAIT fail with 55P03', () => {
    const a = open();
    const b = open();
    a.query('CREATE TABLE r (id int PRIMARY KEY, v int)');
    a.query('INSERT INTO r VALUES (1, 0)');
    a.query('BEGIN');
    a.query('SELECT * FROM r WHERE id = 1 FOR UPDATE');
    assert.throws(() => b.query('SELECT * FROM r WHERE id = 1 FOR UPDATE NOWAIT'), { sqlstate: '55P03' });
    a.query('COMMIT');
    assert.equal(b.query('SELECT * FROM r WHERE id = 1 FOR UPDATE NOWAIT').length, 1);
  });

  test('NOTIFY on a channel the client listens on raises its epoch, without a call', async () => {
    const listener = open();
    const sender = open();
    listener.listen('floe_catalog');
    const before = listener.notifyEpoch;
    sender.query(`NOTIFY floe_catalog, '42'`);
    sender.query(`NOTIFY other_channel, '1'`);
    const until = Date.now() + 10_000;
    while (listener.notifyEpoch === before && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    assert.equal(listener.notifyEpoch, before + 1);
  });

  test('a call that outlives its timeout is 08006 and the connection is given up; so is a server that is not there', async () => {
    const slow = open({ callTimeoutMs: 300 });
    const started = Date.now();
    assert.throws(() => slow.query('SELECT pg_sleep(5)'), (e: { sqlstate?: string; message: string }) => e.sqlstate === '08006' && /did not answer within 300 ms/.test(e.message));
    assert.ok(Date.now() - started < 3_000);
    assert.throws(() => slow.query('SELECT 1'), { sqlstate: '08006' });

    // A port nothing listens on: taken from a closed server.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const absent = open({ url: `postgres://postgres@127.0.0.1:${port}/postgres` });
    assert.throws(() => absent.query('SELECT 1'), { sqlstate: '08006' });
  });

  test('a session the server ends is lost: the call on it is 08006, and the client says so', () => {
    const victim = open();
    const admin = open();
    const pid = victim.query('SELECT pg_backend_pid() AS pid')[0]!['pid'];
    // Terminated while a statement of its runs: that statement is the one that fails.
    victim.query('CREATE TABLE lost_t (id int)');
    assert.throws(() => victim.transaction([
      { sql: `SELECT pg_terminate_backend(${String(pid)}) FROM (SELECT 1) AS x WHERE $1::int = 1`, params: [1] },
      { sql: 'INSERT INTO lost_t VALUES (1)' },
    ]), { sqlstate: '08006' });
    assert.equal(victim.lost, true);
    assert.equal(victim.closed, true);
    assert.throws(() => victim.query('SELECT 1'), { sqlstate: '08006' });
    assert.deepEqual(admin.query('SELECT count(*)::int AS n FROM lost_t'), [{ n: 0 }], 'nothing of the lost transaction stays');
  });

  test('after close, a call is 08006', () => {
    const c = open();
    assert.deepEqual(c.query('SELECT 1 AS one'), [{ one: 1 }]);
    c.close();
    assert.throws(() => c.query('SELECT 1'), { sqlstate: '08006' });
  });
});
