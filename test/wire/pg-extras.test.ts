import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import Cursor from 'pg-cursor';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { serialize } from 'pg-protocol';
import { eventually, fakeAuth } from './fake-session.js';

const serializeCancel = (pid: number, secret: number): Buffer => serialize.cancel(pid, secret);
import { startFakeServer, type Fixture } from './server-fixture.js';

describe('cursors, COPY, cancel and authentication with node-postgres', () => {
  let fx: Fixture;
  before(async () => {
    fx = await startFakeServer({
      auth: fakeAuth({ scram: { alice: 'sécret' }, md5: { bob: 'hunter2' }, password: { carol: 'plain' } }),
    });
  });
  after(async () => { await fx.stop(); });

  const client = (user = 'floe', password?: string): pg.Client =>
    new pg.Client({ host: '127.0.0.1', port: fx.port, user, database: 'floe', ...(password === undefined ? {} : { password }) });

  test('pg-cursor reads a portal in row-limited chunks (PortalSuspended)', async () => {
    const c = client();
    await c.connect();
    try {
      const cursor = c.query(new Cursor('series 10'));
      const sizes: number[] = [];
      const all: number[] = [];
      for (;;) {
        const rows = (await cursor.read(3)) as { n: number }[];
        sizes.push(rows.length);
        all.push(...rows.map((r) => r.n));
        if (rows.length === 0) break;
      }
      await cursor.close();
      assert.deepEqual(sizes, [3, 3, 3, 1, 0]);
      assert.deepEqual(all, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      assert.equal((await c.query('series 2')).rows.length, 2);
    } finally {
      await c.end();
    }
  });

  test('COPY FROM STDIN and COPY TO STDOUT via pg-copy-streams', async () => {
    const c = client();
    await c.connect();
    try {
      const data = '1\tone\n2\ttwo\n3\tthree\n';
      const sink = c.query(copyFrom('copy in'));
      await pipeline(Readable.from([Buffer.from(data.slice(0, 7)), Buffer.from(data.slice(7))]), sink);
      assert.equal(sink.rowCount, 3);
      assert.equal(fx.state.copied.at(-1)?.toString(), data);

      const chunks: Buffer[] = [];
      const source = c.query(copyTo('copy out 4'));
      await pipeline(source, new Writable({ write(chunk, _e, cb) { chunks.push(chunk); cb(); } }));
      assert.equal(Buffer.concat(chunks).toString(), '1\trow 1\n2\trow 2\n3\trow 3\n4\trow 4\n');
      assert.equal(source.rowCount, 4);
      assert.equal((await c.query('series 1')).rows.length, 1);
    } finally {
      await c.end();
    }
  });

  test('CopyFail aborts the sink and the connection carries on', async () => {
    const c = client();
    await c.connect();
    try {
      const sink = c.query(copyFrom('copy in'));
      const failed = new Promise<Error>((resolve) => sink.on('error', resolve));
      sink.write(Buffer.from('1\tx\n'));
      sink.destroy(new Error('client gave up'));
      const err = await failed;
      assert.ok(err instanceof Error);
      await eventually(() => fx.state.copyFailures.length > 0, 'sink.fail to be called');
      assert.equal((await c.query('series 1')).rows.length, 1);
    } finally {
      await c.end();
    }
  });

  test('CancelRequest aborts the running statement with 57014', async () => {
    const c = client();
    await c.connect();
    try {
      const sleeps = fx.state.sleepsStarted;
      const running = c.query('sleep').then(() => undefined, (e: unknown) => e);
      await eventually(() => fx.state.sleepsStarted > sleeps, 'the statement to start');
      const { processID, secretKey } = c as unknown as { processID: number; secretKey: number };
      await new Promise<void>((resolve, reject) => {
        const s = netConnect(fx.port, '127.0.0.1', () => {
          const b = Buffer.alloc(16);
          b.writeInt32BE(16, 0);
          b.writeInt32BE(80877102, 4);
          b.writeInt32BE(processID, 8);
          b.writeInt32BE(secretKey, 12);
          s.end(b);
        });
        s.on('close', () => resolve());
        s.on('error', reject);
      });
      const err = (await running) as pg.DatabaseError | undefined;
      assert.equal(err?.code, '57014');
      assert.equal((await c.query('series 1')).rows.length, 1, 'session survives a cancel');
    } finally {
      await c.end();
    }
  });

  test('CancelRequest during COPY FROM STDIN fails the copy with 57014 and aborts the sink', async () => {
    const c = client();
    await c.connect();
    try {
      const failuresBefore = fx.state.copyFailures.length;
      const started = fx.state.copyInsStarted;
      const sink = c.query(copyFrom('copy in'));
      const outcome = new Promise<unknown>((resolve) => {
        sink.on('error', resolve);
        sink.on('finish', () => resolve(undefined));
      });
      sink.write(Buffer.from('1\tx\n'));
      await eventually(() => fx.state.copyInsStarted > started, 'COPY to start');
      const { processID, secretKey } = c as unknown as { processID: number; secretKey: number };
      await new Promise<void>((resolve) => {
        const s = netConnect(fx.port, '127.0.0.1', () => s.end(serializeCancel(processID, secretKey)));
        s.on('close', () => resolve());
      });
      const err = (await outcome) as pg.DatabaseError | undefined;
      assert.equal(err?.code, '57014');
      assert.equal(fx.state.copyFailures.length, failuresBefore + 1);
      assert.equal((await c.query('series 2')).rows.length, 2, 'the session carries on');
    } finally {
      await c.end();
    }
  });

  test('a cancel with the wrong secret is ignored', async () => {
    const c = client();
    await c.connect();
    try {
      const { processID, secretKey } = c as unknown as { processID: number; secretKey: number };
      await new Promise<void>((resolve) => {
        const s = netConnect(fx.port, '127.0.0.1', () => {
          const b = Buffer.alloc(16);
          b.writeInt32BE(16, 0);
          b.writeInt32BE(80877102, 4);
          b.writeInt32BE(processID, 8);
          b.writeInt32BE(secretKey ^ 1, 12);
          s.end(b);
        });
        s.on('close', () => resolve());
      });
      const r = await c.query('series 5');
      assert.equal(r.rows.length, 5);
    } finally {
      await c.end();
    }
  });

  test('SCRAM-SHA-256, md5 and cleartext logins', async () => {
    for (const [user, password] of [['alice', 'sécret'], ['bob', 'hunter2'], ['carol', 'plain']] as const) {
      const c = client(user, password);
      await c.connect();
      assert.equal((await c.query('series 1')).rows.length, 1, user);
      await c.end();
    }
  });

  test('wrong passwords fail with FATAL 28P01', async () => {
    for (const [user, password] of [['alice', 'nope'], ['bob', 'nope'], ['carol', 'nope']] as const) {
      const c = client(user, password);
      await assert.rejects(c.connect(), (e: pg.DatabaseError) => {
        assert.equal(e.code, '28P01');
        assert.equal(e.severity, 'FATAL');
        assert.equal(e.message, `password authentication failed for user "${user}"`);
        return true;
      });
      await c.end().catch(() => undefined);
    }
  });
});
