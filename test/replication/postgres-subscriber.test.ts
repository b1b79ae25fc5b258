import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
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
    try {
      await target?.query('DROP SUBSCRIPTION IF EXISTS s');
    } catch {
      await target?.query('ALTER SUBSCRIPTION s DISABLE').catch(() => undefined);
      await target?.query('ALTER SUBSCRIPTION s SET (slot_name = NONE)').catch(() => undefined);
      await target?.query('DROP SUBSCRIPTION IF EXISTS s').catch(() => undefined);
    }
    await target?.end();
    await source?.end();
    await postgres?.stop();
    await floe?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const conninfo = () => `host=${floe.host} port=${floe.port} dbname=${floe.database} user=${floe.user}`;

  /** Polls until the subscriber's table equals Floe's, or fails with both at the deadline. */
  async function converged(what: string): Promise<void> {
    const want = (await source.query(CONTENTS)).rows;
    const deadline = Date.now() + 60_000;
    let got: unknown[] = [];
    while (Date.now() < deadline) {
      got = (await target.query(CONTENTS)).rows;
      if (JSON.stringify(got) === JSON.stringify(want)) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(got, want, `${what}: the subscriber did not catch up\n${floe.log().slice(-3000)}`);
  }

  test('initial copy, then inserts, updates, deletes and key changes, end with identical tables', async () => {
    await source.query(TABLE);
    await source.query(`INSERT INTO items VALUES (1, 'one', 1.50, '2024-01-01 10:00:00+00', '{a,b}'),
      (2, 'two', NULL, NULL, NULL), (3, E'three\\nlines', 3.00, '2024-06-30 23:59:59.5+02', '{}')`);
    await source.query('CREATE PUBLICATION p FOR TABLE items');
    await target.query(TABLE);
    await target.query(`CREATE SUBSCRIPTION s CONNECTION '${conninfo()}' PUBLICATION p`);
    await converged('initial copy');

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
});
