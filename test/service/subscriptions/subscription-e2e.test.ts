import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import type { FloeServer } from '../../harness/floe-server.js';
import type { PostgresServer } from '../../harness/postgres-server.js';
import { connect, conninfoOf, createSourceSchema, randomTransaction, rng, sourceAndFloeForFile, uniqueSlot, waitFor, waitForEquality } from './cdc-source.js';

// CDC in (issue 27) end to end: a real PostgreSQL 15 with wal_level=logical publishes, a
// spawned `floe serve` subscribes, and Floe's tables must equal the source's.
const url = process.env.FLOE_TEST_PG_URL;
const skip = url === undefined || url === '' ? 'needs FLOE_TEST_PG_URL (a PostgreSQL with wal_level=logical)' : false;

let pgs: PostgresServer;
let floe: FloeServer;
let source: pg.Client;
sourceAndFloeForFile(skip, (bed) => ({ pgs, floe, source } = bed));

test('initial copy and streaming equal the source after random DML, a large transaction and rollbacks', { skip }, async () => {
  await createSourceSchema(source, 'pub1');
  const rand = rng(27);
  // Rows before the subscription: the initial copy's part.
  for (let i = 0; i < 40; i++) await randomTransaction(source, rand);
  const slot = uniqueSlot();
  const f = await connect(floe.url);
  const notices: string[] = [];
  f.on('notice', (n) => notices.push(n.message ?? ''));
  try {
    await f.query(`CREATE SUBSCRIPTION s1 CONNECTION '${conninfoOf(pgs)}' PUBLICATION pub1 WITH (slot_name = ${slot})`);
    assert.deepEqual(notices, [`created replication slot "${slot}" on publisher`]);
    // The tables were created from the source's key and types.
    const keys = await f.query(`SELECT column_name FROM information_schema.key_column_usage WHERE table_name = 'pairs' ORDER BY ordinal_position`);
    assert.deepEqual(keys.rows.map((r) => r.column_name), ['a', 'b']);
    const price = await f.query(`SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'items'::regclass AND attname = 'price'`);
    assert.equal(price.rows[0].t, 'numeric(12,2)');

    // Streaming: random transactions (some rolled back), then one large transaction.
    for (let i = 0; i < 150; i++) await randomTransaction(source, rand);
    await source.query(`INSERT INTO items (id, name, price) SELECT g, 'bulk ' || g, g / 100.0 FROM generate_series(100000, 105000) g`);
    await source.query('BEGIN');
    await source.query(`INSERT INTO items (id, name) VALUES (999999, 'never committed')`);
    await source.query('ROLLBACK');
    const want = await waitForEquality(source, floe.url);
    assert.ok(want.items!.length > 5000, 'the large transaction arrived');
    assert.ok(!want.items!.some((r) => r[0] === '999999'));

    // An update leaves a TOASTed value unchanged: it is not sent, and Floe keeps the one it has, from the
    // batch (same transaction) or from the table (a later one).
    const big = randomBytes(8000).toString('base64');
    await source.query('BEGIN');
    await source.query('UPDATE items SET name = $1 WHERE id = (SELECT min(id) FROM items)', [big]);
    await source.query('UPDATE items SET price = price + 1 WHERE id = (SELECT min(id) FROM items)');
    await source.query('COMMIT');
    await waitForEquality(source, floe.url);
    await source.query('UPDATE items SET price = price + 2 WHERE id = (SELECT min(id) FROM items)');
    const withBig = await waitForEquality(source, floe.url);
    assert.equal(withBig.items![0]![1], big);

    const status = await f.query(`SELECT enabled, slot_name, tables, tables_copying, applied_lsn, last_error FROM floe_subscriptions WHERE subname = 's1'`);
    assert.equal(status.rows.length, 1);
    assert.deepEqual({ ...status.rows[0], applied_lsn: typeof status.rows[0].applied_lsn }, {
      enabled: true, slot_name: slot, tables: 3, tables_copying: 0, applied_lsn: 'string', last_error: null,
    });
    const lsns = await f.query(`SELECT received_lsn, applied_lsn FROM floe_subscriptions WHERE subname = 's1'`);
    const asNumber = (t: string) => { const [hi, lo] = t.split('/'); return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`); };
    assert.ok(asNumber(lsns.rows[0].received_lsn) >= asNumber(lsns.rows[0].applied_lsn), JSON.stringify(lsns.rows[0]));
    const subs = await f.query(`SELECT subname, subenabled, subslotname, subpublications FROM pg_subscription`);
    assert.deepEqual(subs.rows, [{ subname: 's1', subenabled: true, subslotname: slot, subpublications: ['pub1'] }]);

    // DISABLE stops applying; ENABLE resumes from the stored position.
    await f.query('ALTER SUBSCRIPTION s1 DISABLE');
    for (let i = 0; i < 20; i++) await randomTransaction(source, rand);
    await f.query('ALTER SUBSCRIPTION s1 ENABLE');
    await waitForEquality(source, floe.url);

    // A column added on the source is added in Floe.
    await source.query('ALTER TABLE pairs ADD COLUMN note text');
    await source.query(`INSERT INTO pairs VALUES (1000, 'new', 1, 'with a note')`);
    await waitFor(async () => (await f.query(`SELECT note FROM pairs WHERE a = 1000`)).rows[0]?.note, (n) => n === 'with a note', 'the added column');

    // TRUNCATE on the source empties the Floe table.
    await source.query('TRUNCATE pairs');
    await waitFor(async () => (await f.query('SELECT count(*)::int AS n FROM pairs')).rows[0].n, (n) => n === 0, 'the truncate');

    // A table added to the publication joins on REFRESH PUBLICATION: copied, then streamed.
    await source.query('CREATE TABLE extra (id bigint PRIMARY KEY, v text)');
    await source.query(`INSERT INTO extra SELECT g, 'v' || g FROM generate_series(1, 300) g`);
    await source.query('ALTER PUBLICATION pub1 ADD TABLE extra');
    await f.query('ALTER SUBSCRIPTION s1 REFRESH PUBLICATION');
    await source.query(`UPDATE extra SET v = 'changed' WHERE id <= 10`);
    await source.query('DELETE FROM extra WHERE id > 290');
    const extra = await waitFor(async () => (await f.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE v = 'changed')::int AS c FROM extra`)).rows[0],
      (r) => r.n === 290 && r.c === 10, 'the refreshed table');
    assert.deepEqual(extra, { n: 290, c: 10 });

    notices.length = 0;
    await f.query('DROP SUBSCRIPTION s1');
    assert.deepEqual(notices, [`dropped replication slot "${slot}" on publisher`]);
    const left = await source.query('SELECT slot_name FROM pg_replication_slots WHERE slot_name = $1', [slot]);
    assert.equal(left.rows.length, 0);
    await assert.rejects(f.query('DROP SUBSCRIPTION s1'), (e: Error & { code?: string }) => e.code === '42704' && /subscription "s1" does not exist/.test(e.message));
  } finally {
    await f.end();
  }
});

test('CREATE SUBSCRIPTION refuses what PostgreSQL refuses', { skip }, async () => {
  const f = await connect(floe.url);
  try {
    await assert.rejects(f.query(`CREATE SUBSCRIPTION bad CONNECTION 'host=127.0.0.1 port=1 dbname=x' PUBLICATION p`),
      (e: Error & { code?: string }) => e.code === '08006' && /could not connect to the publisher/.test(e.message));
    await assert.rejects(f.query(`CREATE SUBSCRIPTION bad CONNECTION '${conninfoOf(pgs)}' PUBLICATION p WITH (foo = 1)`),
      (e: Error & { code?: string }) => e.code === '42601' && /unrecognized subscription parameter: "foo"/.test(e.message));
    await f.query('BEGIN');
    await assert.rejects(f.query(`CREATE SUBSCRIPTION bad CONNECTION '${conninfoOf(pgs)}' PUBLICATION p`),
      (e: Error & { code?: string }) => e.code === '25001' && /cannot run inside a transaction block/.test(e.message));
    await f.query('ROLLBACK');
    // A source table without a key cannot be applied by key.
    await source.query('CREATE TABLE nokey (x int)');
    await source.query('CREATE PUBLICATION pub_nokey FOR TABLE nokey');
    await assert.rejects(f.query(`CREATE SUBSCRIPTION bad CONNECTION '${conninfoOf(pgs)}' PUBLICATION pub_nokey WITH (slot_name = ${uniqueSlot()})`),
      (e: Error & { code?: string }) => e.code === '55000' && /neither a primary key nor a replica identity index/.test(e.message));
    const none = await f.query(`SELECT count(*)::int AS n FROM pg_subscription WHERE subname = 'bad'`);
    assert.equal(none.rows[0].n, 0);
  } finally {
    await f.end();
  }
});
