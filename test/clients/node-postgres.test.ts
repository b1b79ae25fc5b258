import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pipeline } from 'node:stream/promises';
import { Readable, Writable } from 'node:stream';
import pg from 'pg';
import Cursor from 'pg-cursor';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { targetFactories } from './client-targets.js';
import { binaryQuery } from '../harness/binary-query.js';
import type { ClientTarget } from './client-targets.js';

async function withClient<T>(t: ClientTarget, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: t.url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

for (const target of targetFactories()) {
  describe(`node-postgres against ${target.label}`, () => {
    let server: ClientTarget | undefined;
    const started = async () => (server ??= await target.start());
    after(async () => { await server?.stop(); });

    test('schema setup', async () => {
      await withClient(await started(), async (c) => {
        await c.query('CREATE TABLE np (id integer PRIMARY KEY, name text, amount numeric(10,2), ok boolean, ts timestamp, big bigint, f double precision)');
      });
    });

    test('named prepared statements, reused with different parameters', async () => {
      await withClient(await started(), async (c) => {
        for (let i = 1; i <= 5; i++) {
          const r = await c.query({
            name: 'ins',
            text: 'INSERT INTO np (id, name, amount, ok, ts, big, f) VALUES ($1, $2, $3, $4, $5, $6, $7)',
            values: [i, `n${i}`, `${i}.50`, i % 2 === 0, `2024-01-0${i} 12:00:00`, String(10n ** 12n + BigInt(i)), i / 4],
          });
          assert.equal(r.rowCount, 1);
        }
        const r = await c.query({ name: 'sel', text: 'SELECT id, name FROM np WHERE id >= $1 ORDER BY id', values: [4] });
        assert.deepEqual(r.rows, [{ id: 4, name: 'n4' }, { id: 5, name: 'n5' }]);
        const again = await c.query({ name: 'sel', text: 'SELECT id, name FROM np WHERE id >= $1 ORDER BY id', values: [5] });
        assert.deepEqual(again.rows, [{ id: 5, name: 'n5' }]);
      });
    });

    test('binary results carry PostgreSQL\'s exact binary encodings', async () => {
      // node-postgres requests binary results but decodes every field as UTF-8 text, which destroys them;
      // so the same Bind (all result columns binary) goes through pg-protocol's codec and the bytes are checked.
      const t = await started();
      const r = await binaryQuery(t, 'SELECT id, name, ok, big, f, ts, amount FROM np WHERE id <= $1 ORDER BY id', ['2']);
      assert.deepEqual(r.fields.map((f) => f.format), Array(7).fill('binary'));
      assert.deepEqual(r.fields.map((f) => f.dataTypeID), [23, 25, 16, 20, 701, 1114, 1700]);
      assert.equal(r.rows.length, 2);
      const [id, name, ok, big, f, ts, amount] = r.rows[1]!;
      assert.equal(id!.readInt32BE(0), 2);
      assert.equal(name!.toString('utf8'), 'n2');
      assert.deepEqual([...ok!], [1]);
      assert.equal(big!.readBigInt64BE(0), 10n ** 12n + 2n);
      assert.equal(f!.readDoubleBE(0), 0.5);
      // 2024-01-02 12:00:00 as microseconds since 2000-01-01.
      assert.equal(ts!.readBigInt64BE(0), BigInt(Date.UTC(2024, 0, 2, 12) - Date.UTC(2000, 0, 1)) * 1000n);
      // numeric 2.50: ndigits 2, weight 0, sign +, dscale 2, base-10000 digits [2, 5000].
      assert.deepEqual([...amount!], [0, 2, 0, 0, 0, 0, 0, 2, 0, 2, 0x13, 0x88]);
    });

    test('a cursor reads a result in chunks', async () => {
      await withClient(await started(), async (c) => {
        const cursor = c.query(new Cursor('SELECT id FROM np ORDER BY id'));
        const chunks: number[][] = [];
        for (;;) {
          const rows = (await cursor.read(2)) as { id: number }[];
          if (rows.length === 0) break;
          chunks.push(rows.map((r) => r.id));
        }
        await cursor.close();
        assert.deepEqual(chunks, [[1, 2], [3, 4], [5]]);
      });
    });

    test('COPY FROM STDIN and COPY TO STDOUT', async () => {
      await withClient(await started(), async (c) => {
        await c.query('CREATE TABLE np_copy (id integer, label text, v numeric)');
        const data = '1\talpha\t1.5\n2\t\\N\t\\N\n3\ttab\\there\t-2\n';
        await pipeline(Readable.from([Buffer.from(data)]), c.query(copyFrom('COPY np_copy FROM STDIN')));
        const out: Buffer[] = [];
        await pipeline(
          c.query(copyTo('COPY (SELECT id, label, v FROM np_copy ORDER BY id) TO STDOUT')),
          new Writable({ write(chunk: Buffer, _enc, cb) { out.push(chunk); cb(); } }),
        );
        assert.equal(Buffer.concat(out).toString('utf8'), data);
        const csv: Buffer[] = [];
        await pipeline(
          c.query(copyTo("COPY (SELECT id, label FROM np_copy ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)")),
          new Writable({ write(chunk: Buffer, _enc, cb) { csv.push(chunk); cb(); } }),
        );
        assert.equal(Buffer.concat(csv).toString('utf8'), 'id,label\n1,alpha\n2,\n3,tab\there\n');
      });
    });

    test('cancel stops a running statement with 57014', async () => {
      const t = await started();
      const c = new pg.Client({ connectionString: t.url });
      await c.connect();
      try {
        // Twice, after statements that ran to their end: the gateway keeps one statement signal
        // across statements until a cancel fires it, and the next statement gets a fresh one.
        for (let round = 0; round < 2; round++) {
          for (let i = 0; i < 3; i++) assert.deepEqual((await c.query('SELECT $1::int AS n', [i])).rows, [{ n: i }]);
          // Long on both servers (10^10 joined rows), so the cancel always lands while it runs.
          const query = new pg.Query('SELECT count(*) FROM generate_series(1, 100000) AS a(i), generate_series(1, 100000) AS b(j)');
          const outcome = new Promise<unknown>((resolve) => {
            query.on('error', (e: unknown) => resolve(e));
            query.on('end', () => resolve(undefined));
          });
          c.query(query);
          await new Promise((r) => setTimeout(r, 500));
          const canceller = new pg.Client({ connectionString: t.url });
          (canceller as unknown as { cancel(client: pg.Client, q: pg.Query): void }).cancel(c, query);
          let timer: NodeJS.Timeout | undefined;
          const err = (await Promise.race([
            outcome,
            new Promise((resolve) => { timer = setTimeout(() => resolve({ code: 'not cancelled within 10 s' }), 10_000); }),
          ])) as { code?: string } | undefined;
          clearTimeout(timer);
          assert.ok(err, `round ${round}: the statement finished instead of being cancelled`);
          assert.equal(err.code, '57014');
          const after = await c.query('SELECT 1 AS one');
          assert.deepEqual(after.rows, [{ one: 1 }]);
        }
      } finally {
        // A server that ignored the cancel is still busy on this connection: drop it rather than wait.
        (c as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
        await c.end().catch(() => undefined);
      }
    });

    test('other sessions are served while a long statement runs', { timeout: 60_000 }, async () => {
      const t = await started();
      const c = new pg.Client({ connectionString: t.url });
      const other = new pg.Client({ connectionString: t.url });
      await c.connect();
      await other.connect();
      try {
        const query = new pg.Query('SELECT count(*) FROM generate_series(1, 100000) AS a(i), generate_series(1, 100000) AS b(j)');
        let finished = false;
        const outcome = new Promise<unknown>((resolve) => {
          query.on('error', (e: unknown) => { finished = true; resolve(e); });
          query.on('end', () => { finished = true; resolve(undefined); });
        });
        c.query(query);
        await new Promise((r) => setTimeout(r, 300));
        for (let i = 0; i < 5; i++) {
          const r = await other.query('SELECT $1::int + 1 AS n', [i]);
          assert.deepEqual(r.rows, [{ n: i + 1 }]);
        }
        assert.equal(finished, false, 'the long statement was expected to still be running');
        const canceller = new pg.Client({ connectionString: t.url });
        (canceller as unknown as { cancel(client: pg.Client, q: pg.Query): void }).cancel(c, query);
        const err = (await outcome) as { code?: string } | undefined;
        assert.equal(err?.code, '57014');
      } finally {
        (c as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
        await c.end().catch(() => undefined);
        await other.end();
      }
    });

    test('20 pooled clients work concurrently', async () => {
      const t = await started();
      const pool = new pg.Pool({ connectionString: t.url, max: 20 });
      // pool.end() resolves before its clients' sockets have closed; a server stopping
      // right after may still reach one with 57P01. Query failures reject their promises
      // either way, so only that teardown notice is absorbed here.
      pool.on('connect', (c) => c.on('error', () => undefined));
      // The pool re-emits an idle client's error on itself: absorbed for the same reason.
      pool.on('error', () => undefined);
      try {
        await pool.query('CREATE TABLE np_pool (id integer PRIMARY KEY, who text)');
        const clients = await Promise.all(Array.from({ length: 20 }, () => pool.connect()));
        try {
          await Promise.all(clients.map(async (c, i) => {
            await c.query('BEGIN');
            await c.query('INSERT INTO np_pool VALUES ($1, $2)', [i, `client${i}`]);
            const r = await c.query('SELECT who FROM np_pool WHERE id = $1', [i]);
            assert.deepEqual(r.rows, [{ who: `client${i}` }]);
            await c.query('COMMIT');
          }));
        } finally {
          for (const c of clients) c.release();
        }
        const r = await pool.query('SELECT count(*)::int AS n, count(DISTINCT who)::int AS d FROM np_pool');
        assert.deepEqual(r.rows, [{ n: 20, d: 20 }]);
      } finally {
        await pool.end();
      }
    });
  });
}
