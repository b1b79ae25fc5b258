import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { runPsql } from '../harness/run-psql.js';
import { targetFactories, type ClientTarget } from './client-targets.js';

/**
 * LISTEN / NOTIFY / pg_notify / UNLISTEN through node-postgres and psql, first on
 * PostgreSQL 15 and then on Floe: delivery at the sender's commit, in order,
 * deduplicated within a transaction, nothing on rollback, and a listener inside a
 * transaction receives only once it ends.
 */

interface Listener {
  readonly c: pg.Client;
  readonly pid: number;
  readonly got: { channel: string; payload: string | undefined; processId: number }[];
}

async function open(t: ClientTarget): Promise<Listener> {
  const c = new pg.Client({ connectionString: t.url });
  const l: Listener = { c, pid: 0, got: [] };
  c.on('notification', (n) => l.got.push({ channel: n.channel, payload: n.payload, processId: n.processId }));
  await c.connect();
  (l as { pid: number }).pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  return l;
}

async function eventually(what: string, check: () => boolean, timeoutMs = 15000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const target of targetFactories()) {
  describe(`LISTEN and NOTIFY on ${target.label}`, () => {
    let server: ClientTarget | undefined;
    const started = async () => (server ??= await target.start());
    after(async () => { await server?.stop(); });

    test('notifications reach listeners at commit, in order, once per (channel, payload) per transaction, never on rollback', async () => {
      const t = await started();
      const [l, s] = [await open(t), await open(t)];
      try {
        await l.c.query('LISTEN ch');
        await s.c.query("NOTIFY ch, 'p1'");
        await eventually('p1', () => l.got.length === 1);
        assert.deepEqual(l.got.splice(0), [{ channel: 'ch', payload: 'p1', processId: s.pid }]);

        await s.c.query('BEGIN');
        await s.c.query("NOTIFY ch, 'a'");
        await s.c.query("NOTIFY ch, 'b'");
        await s.c.query("NOTIFY ch, 'a'");
        await s.c.query("SELECT pg_notify('ch', 'c')");
        await s.c.query('NOTIFY other');
        await settle(200);
        assert.equal(l.got.length, 0, 'nothing before commit');
        await s.c.query('COMMIT');
        await eventually('a, b, c', () => l.got.length === 3);
        assert.deepEqual(l.got.splice(0).map((n) => n.payload), ['a', 'b', 'c']);

        await s.c.query('BEGIN');
        await s.c.query("NOTIFY ch, 'rolled back'");
        await s.c.query('ROLLBACK');
        await s.c.query("SELECT pg_notify('ch', 'after')");
        await eventually('after', () => l.got.length === 1);
        assert.deepEqual(l.got.splice(0).map((n) => n.payload), ['after']);
      } finally {
        await l.c.end();
        await s.c.end();
      }
    });

    test('a listener inside a transaction receives once it ends; self-notify; UNLISTEN; an empty channel is refused', async () => {
      const t = await started();
      const [l, s] = [await open(t), await open(t)];
      try {
        await l.c.query('LISTEN ch2');
        await l.c.query('BEGIN');
        await l.c.query('SELECT 1');
        await s.c.query("NOTIFY ch2, 'z'");
        await settle(300);
        assert.equal(l.got.length, 0, 'held while the listener is in a transaction');
        await l.c.query('COMMIT');
        await eventually('z', () => l.got.length === 1);
        assert.deepEqual(l.got.splice(0), [{ channel: 'ch2', payload: 'z', processId: s.pid }]);

        await l.c.query("NOTIFY ch2, 'self'");
        await eventually('self', () => l.got.length === 1);
        assert.deepEqual(l.got.splice(0), [{ channel: 'ch2', payload: 'self', processId: l.pid }]);

        await l.c.query('BEGIN');
        await l.c.query('LISTEN ch3');
        await l.c.query('ROLLBACK');
        await l.c.query('UNLISTEN ch2');
        await s.c.query("NOTIFY ch2, 'gone'");
        await s.c.query("NOTIFY ch3, 'not listening'");
        await l.c.query('LISTEN ch4');
        await s.c.query("NOTIFY ch4, 'last'");
        await eventually('last', () => l.got.length >= 1);
        await settle(100);
        assert.deepEqual(l.got.map((n) => n.payload), ['last']);
        await assert.rejects(s.c.query("SELECT pg_notify(NULL, 'x')"), (e: Error & { code?: string }) => e.code === '22023' && e.message === 'channel name cannot be empty');
      } finally {
        await l.c.end();
        await s.c.end();
      }
    });

    test('psql reports an asynchronous notification', async () => {
      const t = await started();
      const r = await runPsql(t, ['-c', 'LISTEN ch', '-c', "SELECT pg_notify('ch', 'hi') AS n", '-c', 'SELECT pg_backend_pid() AS pid']);
      assert.equal(r.code, 0, r.stderr);
      const pid = /^\s*(\d+)\s*$/m.exec(r.stdout.split('pid')[1] ?? '')?.[1];
      assert.ok(pid !== undefined, r.stdout);
      // The pid table's width follows the pid's digits; what must match is the notification and its place.
      const lines = r.stdout.replaceAll(pid, '<pid>').split('\n');
      assert.deepEqual(lines.slice(0, 7), [
        'LISTEN',
        ' n ',
        '---',
        ' ',
        '(1 row)',
        '',
        'Asynchronous notification "ch" with payload "hi" received from server process with PID <pid>.',
      ]);
      assert.deepEqual(lines.slice(9, 11), [' <pid>', '(1 row)']);
    });
  });
}
