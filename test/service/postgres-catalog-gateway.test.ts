/**
 * The same SQL through two gateways, one on the embedded SQLite catalog and one on a
 * PostgreSQL catalog (`--catalog`): every statement must answer the same, rows, command
 * tags and errors alike. The script walks what the catalog keeps: schemas, keyed and
 * serial tables, writes and upserts, snapshots and time travel, tags and branches,
 * fast-forward, optimize, enum types, views, comments, ALTER TABLE, publications,
 * transactions and drops.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFloe, type FloeServer } from '../harness/floe-server.js';
import { startPostgres, type PostgresServer } from '../harness/postgres-server.js';
import { stepOutcomes, type Step } from '../harness/statement-outcomes.js';

const SCRIPT: readonly Step[] = [
  'CREATE SCHEMA s',
  'CREATE TABLE s.orders (id int PRIMARY KEY, customer text, amount numeric(10,2))',
  "INSERT INTO s.orders VALUES (1, 'a', 10.5), (2, 'b', 20), (3, 'c', 30)",
  "INSERT INTO s.orders VALUES (2, 'b', 21) ON CONFLICT (id) DO UPDATE SET amount = excluded.amount",
  'UPDATE s.orders SET amount = amount + 1 WHERE id = 3',
  'DELETE FROM s.orders WHERE id = 1',
  "INSERT INTO s.orders VALUES (2, 'again', 1)",
  'SELECT * FROM s.orders ORDER BY id',
  'SELECT snapshot_id, parent_id, operation FROM s.orders$snapshots ORDER BY snapshot_id',
  'SELECT * FROM s.orders FOR SYSTEM_VERSION AS OF 2 ORDER BY id',
  'ALTER TABLE s.orders CREATE TAG v1',
  'ALTER TABLE s.orders CREATE BRANCH dev',
  "INSERT INTO s.orders$branch_dev VALUES (9, 'z', 99)",
  'SELECT * FROM s.orders$branch_dev ORDER BY id',
  "SELECT * FROM s.orders FOR SYSTEM_VERSION AS OF 'v1' ORDER BY id",
  "CALL fast_forward('s.orders', 'main', 'dev')",
  'SELECT count(*) FROM s.orders',
  'SELECT name, type FROM s.orders$refs ORDER BY name',
  "SELECT store, count(*) FROM s.orders$files GROUP BY store ORDER BY store",
  'CREATE TABLE s.items (id serial PRIMARY KEY, name text)',
  "INSERT INTO s.items (name) VALUES ('x'), ('y')",
  'SELECT * FROM s.items ORDER BY id',
  "SELECT nextval('s.items_id_seq')",
  "CREATE TYPE s.mood AS ENUM ('sad', 'ok', 'happy')",
  "ALTER TYPE s.mood ADD VALUE 'meh' BEFORE 'ok'",
  'CREATE TABLE s.feel (id int PRIMARY KEY, m s.mood)',
  "INSERT INTO s.feel VALUES (1, 'meh'), (2, 'happy'), (3, 'sad')",
  'SELECT * FROM s.feel ORDER BY m',
  'CREATE VIEW s.big AS SELECT id, amount FROM s.orders WHERE amount > 20',
  'SELECT * FROM s.big ORDER BY id',
  "COMMENT ON TABLE s.orders IS 'all orders'",
  "SELECT obj_description('s.orders'::regclass)",
  'ALTER TABLE s.orders ADD COLUMN note text',
  'ALTER TABLE s.orders RENAME TO orders2',
  'SELECT * FROM s.orders2 ORDER BY id',
  'BEGIN',
  "INSERT INTO s.orders2 VALUES (50, 'rolled back', 5, NULL)",
  'ROLLBACK',
  'SELECT count(*) FROM s.orders2',
  "CALL optimize('s.orders2', 'full')",
  'SELECT store, count(*) FROM s.orders2$files GROUP BY store ORDER BY store',
  'SELECT * FROM s.orders2 ORDER BY id',
  "SELECT * FROM s.orders2 FOR SYSTEM_VERSION AS OF 'v1' ORDER BY id",
  'CREATE PUBLICATION p FOR TABLE s.orders2',
  'SELECT pubname, puballtables FROM pg_publication',
  "SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 's' ORDER BY c.relname",
  'DROP TABLE s.feel',
  'DROP SCHEMA s',
  'DROP PUBLICATION p',
  'DROP SCHEMA s CASCADE',
  "SELECT count(*) FROM pg_namespace WHERE nspname = 's'",
];

let catalogDb: PostgresServer;
let onSqlite: FloeServer;
let onPostgres: FloeServer;
before(async () => {
  catalogDb = await startPostgres();
  [onSqlite, onPostgres] = await Promise.all([
    // No background work: what it does depends on timing, and the script compares file counts.
    startFloe({ args: ['--optimizer-threads', '0', '--no-log-tiering'] }),
    startFloe({ args: ['--optimizer-threads', '0', '--no-log-tiering', '--catalog', catalogDb.url, '--catalog-schema', 'floe_test'] }),
  ]);
});
after(async () => {
  await onSqlite?.stop();
  await onPostgres?.stop();
  await catalogDb?.stop();
});

test('the same statements answer the same on the SQLite and the PostgreSQL catalog', async () => {
  const [expected, got] = await Promise.all([stepOutcomes(onSqlite.url, SCRIPT), stepOutcomes(onPostgres.url, SCRIPT)]);
  for (const [i, step] of SCRIPT.entries()) {
    // What an optimize did is the same; how long it took is not.
    const comparable = (o: unknown) => (String(step).startsWith('CALL optimize') ? { ...(o as object), rows: (o as { rows?: unknown[][] }).rows?.map((r) => r.length) } : o);
    assert.deepEqual(comparable(got[i]), comparable(expected[i]), `step ${i}: ${String(step)}`);
  }
  // The script's errors are the ones it means: a duplicate key, and a schema not yet empty.
  const errors = expected.flatMap((o, i) => ((o as { error?: string }).error === undefined ? [] : [`${i}:${(o as { error: string }).error}`]));
  assert.deepEqual(errors, ['6:23505', '47:2BP01']);
});
