import { test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import type { FloeServer } from '../../harness/floe-server.js';
import type { PostgresServer } from '../../harness/postgres-server.js';
import { connect, conninfoOf, rng, sourceAndFloeForFile, uniqueSlot, waitFor } from './cdc-source.js';

// CDC in (issue 27) from source tables without a key. With REPLICA IDENTITY FULL every
// UPDATE and DELETE carries the whole old row, and Floe, like PostgreSQL's apply worker,
// changes exactly one row equal to it (NULLs equal) in a Floe table without a key; equal
// rows are legal, so the tables are compared as multisets. Without FULL the table is refused.
const url = process.env.FLOE_TEST_PG_URL;
const skip = url === undefined || url === '' ? 'needs FLOE_TEST_PG_URL (a PostgreSQL with wal_level=logical)' : false;

const BAG_COLUMNS = 'grp, label, qty, note, at';

let pgs: PostgresServer;
let floe: FloeServer;
let source: pg.Client;
sourceAndFloeForFile(skip, (bed) => ({ pgs, floe, source } = bed));

const RAW_TEXT = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;

/** The table's rows as text, sorted: a multiset, since equal rows are legal and their order is not. */
async function bagRows(c: pg.Client): Promise<string[]> {
  const r = await c.query<unknown[]>({ text: `SELECT ${BAG_COLUMNS} FROM bag`, rowMode: 'array', types: RAW_TEXT });
  return r.rows.map((row) => JSON.stringify(row)).sort();
}

async function waitForSameBag(f: pg.Client, what: string): Promise<string[]> {
  const want = await bagRows(source);
  await waitFor(() => bagRows(f), (got) => JSON.stringify(got) === JSON.stringify(want), what, 60_000);
  return want;
}

/** Changes one of the rows the condition picks (PostgreSQL's UPDATE and DELETE change them all): by ctid. */
function oneRow(where: string): string {
  return `ctid = (SELECT ctid FROM bag WHERE ${where} LIMIT 1)`;
}

test('a keyless REPLICA IDENTITY FULL table: equal rows, NULLs, one of several equal rows changed, unchanged TOAST, TRUNCATE', { skip }, async () => {
  await source.query('CREATE TABLE bag (grp int, label text, qty numeric(8,2), note text, at timestamptz)');
  await source.query('ALTER TABLE bag REPLICA IDENTITY FULL');
  // Large values go out of line uncompressed, so an UPDATE that leaves one alone sends it as unchanged ('u').
  await source.query('ALTER TABLE bag ALTER COLUMN note SET STORAGE EXTERNAL');
  await source.query(`INSERT INTO bag VALUES (1, 'x', 1.50, NULL, '2026-01-01 00:00:00+00'), (1, 'x', 1.50, NULL, '2026-01-01 00:00:00+00'),
    (1, 'x', 1.50, NULL, '2026-01-01 00:00:00+00'), (NULL, NULL, NULL, NULL, NULL), (NULL, NULL, NULL, NULL, NULL), (2, 'y', NULL, 'n', NULL)`);
  await source.query('CREATE PUBLICATION pub_bag FOR TABLE bag');
  const slot = uniqueSlot();
  const f = await connect(floe.url);
  try {
    await f.query(`CREATE SUBSCRIPTION sk CONNECTION '${conninfoOf(pgs)}' PUBLICATION pub_bag WITH (slot_name = ${slot})`);
    // The Floe table has no key either, and holds the copied duplicates.
    const keys = await f.query(`SELECT count(*)::int AS n FROM information_schema.key_column_usage WHERE table_name = 'bag'`);
    assert.equal(keys.rows[0].n, 0);
    const copied = await waitForSameBag(f, 'the initial copy');
    assert.equal(copied.length, 6);

    // One of three equal rows changes, one of two all-NULL rows goes: the others stay.
    await source.query(`UPDATE bag SET qty = 9.25 WHERE ${oneRow("grp = 1 AND label = 'x'")}`);
    await source.query(`DELETE FROM bag WHERE ${oneRow('grp IS NULL')}`);
    // A NULL column still matches: the old row (2, 'y', NULL, 'n', NULL) is found.
    await source.query(`UPDATE bag SET label = 'z' WHERE grp = 2`);
    let want = await waitForSameBag(f, 'single-row changes');
    assert.equal(want.filter((r) => r === JSON.stringify(['1', 'x', '1.50', null, '2026-01-01 00:00:00+00'])).length, 2);
    assert.equal(want.filter((r) => r === JSON.stringify([null, null, null, null, null])).length, 1);

    // Within one source transaction (one Floe commit): a row inserted, changed and deleted again, an equal
    // row added beside an existing one and then one of the two removed, a row added twice and updated once.
    await source.query('BEGIN');
    await source.query(`INSERT INTO bag VALUES (3, 'w', 3.00, NULL, NULL)`);
    await source.query(`UPDATE bag SET qty = 4.00 WHERE grp = 3`);
    await source.query(`DELETE FROM bag WHERE grp = 3`);
    await source.query(`INSERT INTO bag VALUES (NULL, NULL, NULL, NULL, NULL)`);
    await source.query(`DELETE FROM bag WHERE ${oneRow('grp IS NULL')}`);
    await source.query(`INSERT INTO bag VALUES (4, 'v', 1.00, NULL, NULL), (4, 'v', 1.00, NULL, NULL)`);
    await source.query(`UPDATE bag SET label = 'u' WHERE ${oneRow('grp = 4')}`);
    await source.query('COMMIT');
    want = await waitForSameBag(f, 'a transaction that changes its own rows');
    assert.ok(!want.some((r) => r.startsWith('["3"')));

    // A large value left alone by an UPDATE is not sent with the new row: it comes from the old row.
    const big = Array.from({ length: 400 }, (_, i) => `${i.toString(36)}-${(i * 7919) % 1000}`).join('|').repeat(4);
    assert.ok(big.length > 8000);
    await source.query(`INSERT INTO bag VALUES (5, 'big', 1.00, $1, NULL), (5, 'big', 1.00, $1, NULL)`, [big]);
    await waitForSameBag(f, 'the large values');
    await source.query(`UPDATE bag SET qty = 2.00 WHERE ${oneRow('grp = 5')}`);
    want = await waitForSameBag(f, 'an update that leaves the large value unchanged');
    assert.equal(want.filter((r) => r.includes(big)).length, 2);
    const bigRows = await f.query<{ qty: string; n: number }>(`SELECT qty::text AS qty, length(note) AS n FROM bag WHERE grp = 5 ORDER BY qty`);
    assert.deepEqual(bigRows.rows, [{ qty: '1.00', n: big.length }, { qty: '2.00', n: big.length }]);

    // Random single-row changes over a small domain (many equal rows), some transactions rolled back.
    const rand = rng(2727);
    const grp = () => Math.floor(rand() * 4);
    for (let t = 0; t < 40; t++) {
      await source.query('BEGIN');
      for (let i = 0; i < 1 + Math.floor(rand() * 4); i++) {
        const r = rand();
        if (r < 0.45) await source.query('INSERT INTO bag VALUES ($1, $2, $3, NULL, NULL)', [grp(), rand() < 0.3 ? null : 'r', rand() < 0.5 ? '1.00' : null]);
        else if (r < 0.75) await source.query(`UPDATE bag SET qty = coalesce(qty, 0) + 1 WHERE ${oneRow('grp = $1')}`, [grp()]);
        else await source.query(`DELETE FROM bag WHERE ${oneRow('grp = $1')}`, [grp()]);
      }
      await source.query(rand() < 0.15 ? 'ROLLBACK' : 'COMMIT');
    }
    await waitForSameBag(f, 'random single-row changes');

    // A row Floe lacks (deleted in Floe by hand): the source's delete of it finds nothing, is logged, and the
    // apply goes on, as PostgreSQL's does.
    await f.query(`DELETE FROM bag WHERE grp = 2`);
    await source.query(`DELETE FROM bag WHERE grp = 2`);
    await source.query(`INSERT INTO bag VALUES (6, 'after', NULL, NULL, NULL)`);
    await waitForSameBag(f, 'the apply after a row it did not find');
    await floe.waitForLog(/logical replication did not find row to be updated or deleted in replication target relation \\?"public\.bag\\?"/);
    const status = await f.query(`SELECT last_error FROM floe_subscriptions WHERE subname = 'sk'`);
    assert.deepEqual(status.rows, [{ last_error: null }]);

    // TRUNCATE empties it, rows written after it stay.
    await source.query('BEGIN');
    await source.query(`INSERT INTO bag VALUES (7, 'gone', NULL, NULL, NULL)`);
    await source.query('TRUNCATE bag');
    await source.query(`INSERT INTO bag VALUES (8, 'kept', NULL, NULL, NULL), (8, 'kept', NULL, NULL, NULL)`);
    await source.query('COMMIT');
    want = await waitForSameBag(f, 'the truncate');
    assert.equal(want.length, 2);

    await f.query('DROP SUBSCRIPTION sk');
  } finally {
    await f.end();
  }
});

test('a keyless table without REPLICA IDENTITY FULL is refused, and so is a keyed Floe table for a keyless source', { skip }, async () => {
  const f = await connect(floe.url);
  try {
    await source.query('CREATE TABLE plain (x int)');
    await source.query('CREATE TABLE nothing (x int)');
    await source.query('ALTER TABLE nothing REPLICA IDENTITY NOTHING');
    await source.query('CREATE PUBLICATION pub_plain FOR TABLE plain');
    await source.query('CREATE PUBLICATION pub_nothing FOR TABLE nothing');
    for (const t of ['plain', 'nothing']) {
      await assert.rejects(f.query(`CREATE SUBSCRIPTION bad CONNECTION '${conninfoOf(pgs)}' PUBLICATION pub_${t} WITH (slot_name = ${uniqueSlot()})`),
        (e: Error & { code?: string; hint?: string }) => {
          assert.equal(e.code, '55000');
          assert.equal(e.message, `table "public"."${t}" on the publisher has neither a primary key nor a replica identity index, and its replica identity is not FULL`);
          assert.match(e.hint ?? '', /REPLICA IDENTITY FULL/);
          return true;
        });
    }
    // The source has no key but is FULL; the existing Floe table has one: it could not hold equal rows.
    await source.query('CREATE TABLE keyed_here (x int)');
    await source.query('ALTER TABLE keyed_here REPLICA IDENTITY FULL');
    await source.query('CREATE PUBLICATION pub_keyed_here FOR TABLE keyed_here');
    await f.query('CREATE TABLE keyed_here (x int PRIMARY KEY)');
    await assert.rejects(f.query(`CREATE SUBSCRIPTION bad CONNECTION '${conninfoOf(pgs)}' PUBLICATION pub_keyed_here WITH (slot_name = ${uniqueSlot()})`),
      (e: Error & { code?: string }) => e.code === '55000' && /"public"\."keyed_here" is keyed by \(x\), the source has no key/.test(e.message));
    const none = await f.query(`SELECT count(*)::int AS n FROM pg_subscription WHERE subname = 'bad'`);
    assert.equal(none.rows[0].n, 0);
  } finally {
    await f.end();
  }
});
