import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import Cursor from 'pg-cursor';
import { serialize } from 'pg-protocol';
import type { DatabaseError } from 'pg-protocol';
import { targetFactories, type ClientTarget } from '../clients/client-targets.js';
import { RawClient } from './raw-client.js';

/**
 * PostgreSQL flushes an ErrorResponse at once, then skips every message (Flush
 * included) until Sync. Clients that send Execute + Flush without Sync (pg-cursor,
 * pg-query-stream) wait for that error; holding it until Sync hangs them.
 */
async function openRaw(t: ClientTarget): Promise<RawClient> {
  const c = await RawClient.open(t.port);
  c.send(serialize.startup({ user: t.user, database: t.database }));
  await c.until('readyForQuery');
  return c;
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const target of targetFactories()) {
  describe(`an extended-protocol error goes out before Sync, on ${target.label}`, () => {
    let server: ClientTarget | undefined;
    const started = async () => (server ??= await target.start());
    after(async () => { await server?.stop(); });

    test('Parse error + Flush: the error arrives without Sync; later messages and Flushes are skipped until Sync', async () => {
      const c = await openRaw(await started());
      try {
        const from = c.messages.length;
        c.send(serialize.parse({ text: 'SELEC 1' }), serialize.flush());
        const got = await c.until('error', from);
        assert.deepEqual(got.map((m) => m.name), ['error']);
        assert.equal((got[0] as DatabaseError).code, '42601');
        const mark = c.messages.length;
        c.send(serialize.parse({ text: 'SELECT 1' }), serialize.bind({}), serialize.execute({}), serialize.flush());
        await settle(300);
        assert.deepEqual(c.messages.slice(mark).map((m) => m.name), [], 'skipped until Sync');
        c.send(serialize.sync());
        assert.deepEqual((await c.until('readyForQuery', mark)).map((m) => m.name), ['readyForQuery']);
      } finally {
        c.close();
      }
    });

    test('an error in Execute + Flush (no Sync) is flushed after the rows before it', async () => {
      const c = await openRaw(await started());
      try {
        const from = c.messages.length;
        c.send(
          serialize.parse({ text: 'SELECT 1 / (random() * 0)::int AS x' }), serialize.bind({}),
          serialize.describe({ type: 'P', name: '' }), serialize.execute({ rows: 10 }), serialize.flush(),
        );
        const got = await c.until('error', from);
        assert.deepEqual(got.map((m) => m.name), ['parseComplete', 'bindComplete', 'rowDescription', 'error']);
        assert.equal((got.at(-1) as DatabaseError).code, '22012');
        c.send(serialize.sync());
        await c.until('readyForQuery', from);
      } finally {
        c.close();
      }
    });

    test('pg-cursor over a failing query rejects instead of hanging, and the connection goes on', async () => {
      const client = new pg.Client({ connectionString: (await started()).url });
      await client.connect();
      try {
        const cursor = client.query(new Cursor('SELECT 1 / (random() * 0)::int AS x'));
        await assert.rejects(cursor.read(10), (e: DatabaseError) => e.code === '22012' && e.message === 'division by zero');
        assert.deepEqual((await client.query('SELECT 1 AS one')).rows, [{ one: 1 }]);
      } finally {
        await client.end();
      }
    });
  });
}
