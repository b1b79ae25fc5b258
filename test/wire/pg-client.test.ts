import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startFakeServer, type Fixture } from './server-fixture.js';

describe('node-postgres against the wire server', () => {
  let fx: Fixture;
  before(async () => { fx = await startFakeServer(); });
  after(async () => { await fx.stop(); });

  const connect = async (): Promise<pg.Client> => {
    const c = new pg.Client({ host: '127.0.0.1', port: fx.port, user: 'floe', database: 'floe' });
    await c.connect();
    return c;
  };

  test('simple query with several statements and an empty one', async () => {
    const c = await connect();
    try {
      const r = await c.query('series 3');
      assert.deepEqual(r.rows, [{ n: 1 }, { n: 2 }, { n: 3 }]);
      assert.equal(r.command, 'SELECT');
      assert.equal(r.rowCount, 3);
      const multi = (await c.query('series 2; begin; commit')) as unknown as pg.QueryResult[];
      assert.equal(multi.length, 3);
      assert.equal(multi[0]!.rows.length, 2);
      assert.equal(multi[1]!.command, 'BEGIN');
      const empty = await c.query('');
      assert.deepEqual(empty.rows, []);
    } finally {
      await c.end();
    }
  });

  test('errors carry SQLSTATE, position, detail and hint; internal errors are XX000', async () => {
    const c = await connect();
    try {
      await assert.rejects(c.query('error'), (e: pg.DatabaseError) => {
        assert.equal(e.code, '42601');
        assert.equal(e.position, '3');
        assert.equal(e.hint, 'a hint');
        assert.equal(e.detail, 'a detail');
        assert.equal(e.severity, 'ERROR');
        return true;
      });
      await assert.rejects(c.query('crash'), (e: pg.DatabaseError) => e.code === 'XX000' && e.message === 'boom');
      await assert.rejects(c.query({ text: 'error', values: [] }), (e: pg.DatabaseError) => e.code === '42601');
      const r = await c.query('series 1');
      assert.equal(r.rows.length, 1, 'connection still usable');
    } finally {
      await c.end();
    }
  });

  test('prepared statements with text parameters, named and unnamed', async () => {
    const c = await connect();
    try {
      const r = await c.query('echo $1 $2', ['hello', 'wörld']);
      assert.deepEqual(r.rows, [{ p1: 'hello', p2: 'wörld' }]);
      const named = { name: 'e2', text: 'echo $1', values: ['a'] };
      assert.deepEqual((await c.query(named)).rows, [{ p1: 'a' }]);
      assert.deepEqual((await c.query({ name: 'e2', text: 'echo $1', values: ['b'] })).rows, [{ p1: 'b' }]);
      const s = await c.query({ text: 'series $1', values: ['4'] });
      assert.equal(s.rows.length, 4);
    } finally {
      await c.end();
    }
  });

  test('text and binary results decode to the same values', async () => {
    const c = await connect();
    try {
      const text = (await c.query({ text: 'types', values: [] })).rows[0] as Record<string, unknown>;
      const bin = (await c.query({ text: 'types', values: [], binary: true } as pg.QueryConfig)).rows[0] as Record<string, unknown>;
      assert.equal(text.b, true);
      assert.equal(text.i4, 123456);
      assert.equal(text.i8, '9007199254740993');
      assert.equal(text.num, '-12345.6789');
      assert.equal(text.f8, 0.1);
      assert.equal(text.t, 'hé "x"');
      assert.deepEqual(text.bytes, Buffer.from([0, 1, 254, 255]));
      assert.deepEqual(text.ia, [1, null, 3]);
      assert.deepEqual(text.ta, ['a', 'b c', null, '']);
      assert.equal(text.u, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
      assert.equal((text.tstz as Date).toISOString(), '2024-03-10T12:34:56.789Z');
      for (const k of ['b', 'i2', 'i4', 'f4', 'f8', 'num', 't', 'ia', 'ta']) assert.deepEqual(bin[k], text[k], k);
      assert.equal(String(bin.i8), '9007199254740993');
      assert.equal((bin.tstz as Date).toISOString(), '2024-03-10T12:34:56.789Z');
      assert.equal(bin.o, 1259);
      assert.deepEqual(text.jb, { a: 1 });
    } finally {
      await c.end();
    }
  });

  test('ParameterStatus after SET and NoticeResponse reach the client', async () => {
    const c = await connect();
    try {
      const notices: string[] = [];
      c.on('notice', (n) => notices.push(n.message ?? ''));
      await c.query('set tz Europe/Amsterdam');
      const r = await c.query('types');
      assert.equal(r.rows[0].tstz.toISOString(), '2024-03-10T12:34:56.789Z', 'text in the new zone parses back to the same instant');
      await c.query('notice');
      assert.deepEqual(notices, ['hello']);
    } finally {
      await c.end();
    }
  });

  test('transaction status I/T/E through ReadyForQuery', async () => {
    const c = await connect();
    try {
      await c.query('begin');
      await assert.rejects(c.query('error'));
      const r = await c.query('commit');
      assert.equal(r.command, 'ROLLBACK');
    } finally {
      await c.end();
    }
  });

  test('20 pooled clients at once', async () => {
    const pool = new pg.Pool({ host: '127.0.0.1', port: fx.port, user: 'floe', database: 'floe', max: 20 });
    try {
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.query('series $1', [String(i + 1)])));
      results.forEach((r, i) => {
        assert.equal(r.rows.length, i + 1);
        assert.equal(r.rows[i]!.n, i + 1);
      });
    } finally {
      await pool.end();
    }
  });
});
