import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { startPostgres } from '../harness/postgres-server.js';
import type { PostgresServer } from '../harness/postgres-server.js';

const TABLE = 'CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(10,2), at timestamptz, tags text[])';
const CONTENTS = 'SELECT id, name, price::text AS price, at::text AS at, tags FROM items ORDER BY id';

describe('PostgreSQL 15 subscribes to a Floe publication', () => {
  let floe: FloeServer;
  let postgres: PostgresServer;
  let source: pg.Client;
  let target: pg.Client;
  let dataDir: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'floe-publisher-'));
    floe = await startFloe({ dataDir });
    postgres = await startPostgres();
    source = new pg.Client({ connectionString: floe.url });
    await source.connect();
    target = new pg.Client({ connectionString: postgres.url });
    await target.connect();
    await target.query("SET TimeZone = 'UTC'");
    await source.query("SET TimeZone = 'UTC'");
  });

  after(async () => {
    // The subscription goes first: it holds a slot on Floe and a worker connected to it.
    for (const sub of ['s', 's2']) {
      try {
        await target?.query(`DROP SUBSCRIPTION IF EXISTS ${sub}`);
      } catch {
        await target?.query(`ALTER SUBSCRIPTION ${sub} DISABLE`).catch(() => undefined);
        await target?.query(`ALTER SUBSCRIPTION ${sub} SET (slot_name = NONE)`).catch(() => undefined);
        await target?.query(`DROP SUBSCRIPTION IF EXISTS ${sub}`).catch(() => undefined);
      }
    }
    await target?.end();
    await source?.end();
    await postgres?.stop();
    await floe?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const conninfo = () => `host=${floe.host} port=${floe.port} dbname=${floe.database} user=${floe.user}`;

  /** Polls until the subscriber's table equals Floe's, or fails with both at the deadline. */
  async function converged(what: string, contents = CONTENTS): Promise<void> {
    const want = (await source.query(contents)).rows;
    const deadline = Date.now() + 60_000;
    let got: unknown[] = [];
    while (Date.now() < deadline) {
      got = (await target.query(contents)).rows;
      if (JSON.stringify(got) === JSON.stringify(want)) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    // What the subscriber's workers thought of each table says which of them skipped the changes.
    const tables = (await target.query('SELECT srrelid::regclass::text AS rel, srsubstate, srsublsn::text FROM pg_subscription_rel ORDER BY 1')).rows;
    const workers = (await target.query('SELECT subname, relid::regclass::text AS rel, received_lsn::text, latest_end_lsn::text FROM pg_stat_subscription ORDER BY 1, 2')).rows;
    assert.deepEqual(got, want, `${what}: the subscriber did not catch up\n${JSON.stringify({ tables, workers })}\n${floe.log().slice(-3000)}`);
  }

  /**
   * Polls until every table of the subscription is ready ('r' in pg_subscription_rel): its
   * table-sync worker caught up, left Floe's stream and handed the table to the apply worker.
   * A sync worker that fails as it leaves the stream is restarted forever and the table never
   * gets there, though its rows may still arrive.
   */
  async function ready(subscription: string): Promise<void> {
    const states = `SELECT srrelid::regclass::text AS rel, srsubstate FROM pg_subscription_rel r
      JOIN pg_subscription s ON s.oid = r.srsubid WHERE s.subname = $1 ORDER BY 1`;
    const deadline = Date.now() + 60_000;
    let got: { rel: string; srsubstate: string }[] = [];
    while (Date.now() < deadline) {
      got = (await target.query(states, [subscription])).rows;
      if (got.length > 0 && got.every((r) => r.srsubstate === 'r')) {
        // Each sync worker dropped its slot on Floe as it finished: a slot left behind would hold back expiry for good.
        const slots = (await source.query('SELECT slot_name FROM pg_replication_slots ORDER BY 1')).rows.map((r) => r.slot_name as string);
        assert.deepEqual(slots.filter((name) => name.includes('_sync_')), [], `sync slots left on Floe: ${slots.join(', ')}`);
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.fail(`the tables of ${subscription} did not all become ready: ${JSON.stringify(got)}\n${floe.log().slice(-3000)}`);
  }

  test('initial copy, then inserts, updates, deletes and key changes, end with identical tables', async () => {
    await source.query(TABLE);
    await source.query(`INSERT INTO items VALUES (1, 'one', 1.50, '2024-01-01 10:00:00+00', '{a,b}'),
      (2, 'two', NULL, NULL, NULL), (3, E'three\\nlines', 3.00, '2024-06-30 23:59:59.5+02', '{}')`);
    await source.query('CREATE PUBLICATION p FOR TABLE items');
    await target.query(TABLE);
    await target.query(`CREATE SUBSCRIPTION s CONNECTION '${conninfo()}' PUBLICATION p`);
    await converged('initial copy');
    await ready('s');

    await source.query("INSERT INTO items VALUES (4, 'four', 4.25, now(), '{x}')");
    await source.query("UPDATE items SET name = 'ONE', price = price * 2 WHERE id = 1");
    await source.query('DELETE FROM items WHERE id = 2');
    await source.query('BEGIN');
    await source.query("INSERT INTO items VALUES (5, 'five', 5, NULL, NULL), (6, 'six', 6, NULL, '{\"q u\",NULL}')");
    await source.query('UPDATE items SET id = 7 WHERE id = 3');
    await source.query('COMMIT');
    await converged('after changes');

    const slots = (await source.query("SELECT slot_name FROM pg_replication_slots WHERE slot_name = 's'")).rows;
    assert.deepEqual(slots, [{ slot_name: 's' }]);

    // Floe restarts (on another port): the subscriber resumes from the durable slot, nothing lost and nothing
    // repeated (a repeated insert would stop its apply worker on a duplicate key).
    await source.end();
    await floe.stop();
    floe = await startFloe({ dataDir });
    source = new pg.Client({ connectionString: floe.url });
    await source.connect();
    await source.query("SET TimeZone = 'UTC'");
    await source.query("INSERT INTO items VALUES (8, 'after the restart', 8, NULL, NULL)");
    await source.query('DELETE FROM items WHERE id = 5');
    await target.query(`ALTER SUBSCRIPTION s CONNECTION '${conninfo()}'`);
    await source.query("UPDATE items SET tags = '{z}' WHERE id = 8");
    await converged('after a restart of Floe');
  });

  // A blind upsert of an existing key must reach the subscriber as an UPDATE: an INSERT stops its
  // apply worker on the duplicate key. Both changelog producers: a lookup table stores the update,
  // an input table's commits are sent as what they did to each key.
  test('blind upserts and deletes by key, on a lookup and an input table, end with identical tables', async () => {
    const stock = 'CREATE TABLE stock (id int PRIMARY KEY, qty int, note text)';
    const counts = 'CREATE TABLE counts (k text, n int, total bigint, PRIMARY KEY (k, n))';
    const both = `SELECT 'stock' AS t, id::text AS k, qty::text AS a, note AS b FROM stock
      UNION ALL SELECT 'counts', k || '/' || n, total::text, NULL FROM counts ORDER BY 1, 2`;
    await source.query(`${stock} WITH ("changelog-producer" = 'lookup')`);
    await source.query(counts);
    await source.query("INSERT INTO stock VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, NULL)");
    await source.query("INSERT INTO counts VALUES ('a', 1, 100), ('b', 2, 200)");
    await source.query('CREATE PUBLICATION p2 FOR TABLE stock, counts');
    await target.query(stock);
    await target.query(counts);
    await target.query(`CREATE SUBSCRIPTION s2 CONNECTION '${conninfo()}' PUBLICATION p2`);
    await converged('initial copy of stock and counts', both);
    await ready('s2');

    // COPY … WITH (UPSERT true) writes blind (SQL's ON CONFLICT DO UPDATE reads the rows first).
    const blind = async (table: string, csv: string) => pipeline(Readable.from([csv]), source.query(copyFrom(`COPY ${table} FROM STDIN WITH (FORMAT csv, UPSERT true)`)));
    const upsertStock = (id: number, qty: number, note: string) => blind('stock', `${id},${qty},${note}\n`);
    const upsertCounts = (k: string, n: number, total: number) => blind('counts', `${k},${n},${total}\n`);
    await blind('stock', '1,11,one again\n4,40,new\n');
    await upsertCounts('a', 1, 101);
    await upsertCounts('c', 3, 300);
    await source.query('DELETE FROM stock WHERE id = 2');
    await source.query('DELETE FROM stock WHERE id = 99');
    await source.query("DELETE FROM counts WHERE k = 'b' AND n = 2");
    await source.query('BEGIN');
    await upsertStock(3, 33, 'three');
    await upsertStock(3, 34, 'three twice');
    await upsertStock(2, 22, 'two is back');
    await upsertCounts('a', 1, 102);
    await source.query("DELETE FROM counts WHERE k = 'c' AND n = 3");
    await upsertCounts('c', 3, 301);
    await source.query('COMMIT');
    await converged('after blind upserts', both);
    await source.query('UPDATE stock SET qty = qty + 1 WHERE id IN (1, 4)');
    await source.query("INSERT INTO stock VALUES (4, 44, 'last'), (7, 70, 'seven') ON CONFLICT (id) DO UPDATE SET qty = EXCLUDED.qty, note = EXCLUDED.note");
    await converged('after an update and another upsert', both);

    // The lookup table's own changelog holds the updates the subscriber applied.
    const changes = (await source.query('SELECT qty, _change_type FROM stock$audit_log WHERE id = 1')).rows;
    assert.deepEqual(changes.map((r) => `${r._change_type} ${r.qty}`), ['INSERT 10', 'UPDATE_BEFORE 10', 'UPDATE_AFTER 11', 'UPDATE_BEFORE 11', 'UPDATE_AFTER 12']);

    // UPDATEs that change keys reach the subscriber as updates carrying the old key, which it applies
    // by that key: its triggers (ALWAYS, so they fire in the apply worker, whose search_path is empty)
    // see updates, no delete or insert.
    await target.query('CREATE TABLE applied (tbl text, op text)');
    await target.query(`CREATE FUNCTION note_applied() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN INSERT INTO public.applied VALUES (TG_TABLE_NAME, TG_OP); RETURN NULL; END $$`);
    for (const t of ['stock', 'counts']) {
      await target.query(`CREATE TRIGGER note_applied AFTER INSERT OR UPDATE OR DELETE ON ${t} FOR EACH ROW EXECUTE FUNCTION note_applied()`);
      await target.query(`ALTER TABLE ${t} ENABLE ALWAYS TRIGGER note_applied`);
    }
    await source.query('UPDATE stock SET id = id + 100 WHERE id IN (3, 4)');
    await source.query("UPDATE counts SET n = 9, total = total + 1 WHERE k = 'a'");
    await source.query('BEGIN');
    await source.query('UPDATE stock SET id = 8, qty = 0 WHERE id = 7');
    await source.query("UPDATE counts SET k = 'd' WHERE k = 'c'");
    await source.query('COMMIT');
    await converged('after key changes', both);
    const applied = (await target.query('SELECT tbl, op, count(*)::int AS n FROM applied GROUP BY 1, 2 ORDER BY 1, 2')).rows;
    assert.deepEqual(applied, [{ tbl: 'counts', op: 'UPDATE', n: 2 }, { tbl: 'stock', op: 'UPDATE', n: 3 }]);
  });
});
