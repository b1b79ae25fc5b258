import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { runCommand } from '../harness/run-command.js';
import { decodeRecvlogicalFile } from './pgoutput-decoder.js';
import { transactions, type StreamedTransaction } from './streamed-transactions.js';

const PG_RECVLOGICAL = '/usr/lib/postgresql/15/bin/pg_recvlogical';

describe('pg_recvlogical reads Floe as a pgoutput publisher', () => {
  let floe: FloeServer;
  let client: pg.Client;
  let dir: string;

  before(async () => {
    floe = await startFloe();
    client = new pg.Client({ connectionString: floe.url });
    await client.connect();
    dir = mkdtempSync(join(tmpdir(), 'floe-recvlogical-'));
  });

  after(async () => {
    await client?.end();
    await floe?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const connArgs = () => ['-h', floe.host, '-p', String(floe.port), '-U', floe.user, '-d', floe.database];

  /** The server's current end of the change stream, from IDENTIFY_SYSTEM on a replication connection. */
  async function currentLsn(): Promise<string> {
    const repl = new pg.Client({ connectionString: floe.url, replication: 'database' } as pg.ClientConfig);
    await repl.connect();
    try {
      const r = await repl.query('IDENTIFY_SYSTEM');
      assert.equal(r.rows[0].dbname, floe.database);
      return String(r.rows[0].xlogpos);
    } finally {
      await repl.end();
    }
  }

  /** Streams slot s1 from where it stands to the current end, into a file; returns the decoded transactions. */
  async function receive(file: string): Promise<StreamedTransaction[]> {
    const endpos = await currentLsn();
    const r = await runCommand(PG_RECVLOGICAL, [
      ...connArgs(), '--slot=s1', '--start', '--no-loop', `--endpos=${endpos}`, '-o', 'proto_version=1', '-o', 'publication_names=p', '-f', join(dir, file),
    ], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, `pg_recvlogical failed:\n${r.stderr}\n${floe.log().slice(-4000)}`);
    return transactions(decodeRecvlogicalFile(readFileSync(join(dir, file))));
  }

  test("SNAPSHOT 'use': the creating transaction reads exactly the commits before the slot, the stream exactly those after", async () => {
    await client.query('CREATE TABLE copied (id int PRIMARY KEY)');
    await client.query('INSERT INTO copied VALUES (1), (2)');
    await client.query('CREATE PUBLICATION pc FOR TABLE copied');
    const repl = new pg.Client({ connectionString: floe.url, replication: 'database' } as pg.ClientConfig);
    await repl.connect();
    try {
      await assert.rejects(repl.query(`CREATE_REPLICATION_SLOT "sc" LOGICAL pgoutput (SNAPSHOT 'use')`), /must be called inside a transaction/);
      await repl.query('BEGIN READ ONLY ISOLATION LEVEL REPEATABLE READ');
      const slot = await repl.query(`CREATE_REPLICATION_SLOT "sc" LOGICAL pgoutput (SNAPSHOT 'use')`);
      assert.equal(slot.rows[0].slot_name, 'sc');
      assert.equal(slot.rows[0].output_plugin, 'pgoutput');
      // Committed after the slot's consistent point, before the copy reads.
      await client.query('INSERT INTO copied VALUES (3)');
      const copy = await repl.query('SELECT id FROM copied ORDER BY id');
      assert.deepEqual(copy.rows.map((r) => r.id), [1, 2]);
      await repl.query('COMMIT');
    } finally {
      await repl.end();
    }
    const endpos = await currentLsn();
    const r = await runCommand(PG_RECVLOGICAL, [
      ...connArgs(), '--slot=sc', '--start', '--no-loop', `--endpos=${endpos}`, '-o', 'proto_version=2', '-o', 'publication_names=pc', '-f', join(dir, 'copied.out'),
    ], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(transactions(decodeRecvlogicalFile(readFileSync(join(dir, 'copied.out')))).map((t) => t.changes), [['insert public.copied 3']]);
    const dropped = await runCommand(PG_RECVLOGICAL, [...connArgs(), '--slot=sc', '--drop-slot'], { timeoutMs: 30_000 });
    assert.equal(dropped.code, 0, dropped.stderr);
  });

  test('a TEMPORARY slot is listed while its connection lives and goes with it', async () => {
    const repl = new pg.Client({ connectionString: floe.url, replication: 'database' } as pg.ClientConfig);
    await repl.connect();
    const created = await repl.query('CREATE_REPLICATION_SLOT "tmp" TEMPORARY LOGICAL pgoutput');
    assert.equal(created.rows[0].slot_name, 'tmp');
    await assert.rejects(repl.query('CREATE_REPLICATION_SLOT "tmp" LOGICAL pgoutput'), /replication slot "tmp" already exists/);
    await assert.rejects(repl.query('CREATE_REPLICATION_SLOT "Bad-Name" LOGICAL pgoutput'), /contains invalid character/);
    await assert.rejects(repl.query('CREATE_REPLICATION_SLOT "x" LOGICAL test_decoding'), /could not access file "test_decoding"/);
    const listed = await client.query("SELECT slot_name, temporary, active FROM pg_replication_slots WHERE slot_name = 'tmp'");
    assert.deepEqual(listed.rows, [{ slot_name: 'tmp', temporary: true, active: false }]);
    await repl.end();
    const deadline = Date.now() + 10_000;
    let left = 1;
    while (left > 0 && Date.now() < deadline) {
      left = (await client.query("SELECT count(*)::int AS n FROM pg_replication_slots WHERE slot_name = 'tmp'")).rows[0].n;
      if (left > 0) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(left, 0, 'the temporary slot outlived its connection');
  });

  test('the slot streams every committed change after its creation, in commit order, and resumes where it stopped', async () => {
    await client.query('CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(10,2))');
    await client.query('CREATE TABLE notes (body text, n int)');
    await client.query('CREATE TABLE other (id int PRIMARY KEY)');
    await client.query("INSERT INTO items VALUES (1, 'before the slot', 1.00)");
    await client.query('CREATE PUBLICATION p FOR TABLE items, notes');

    const created = await runCommand(PG_RECVLOGICAL, [...connArgs(), '--slot=s1', '--create-slot', '--plugin=pgoutput'], { timeoutMs: 30_000 });
    assert.equal(created.code, 0, created.stderr);
    const slots = await client.query('SELECT slot_name, plugin, slot_type, database FROM pg_replication_slots');
    assert.deepEqual(slots.rows, [{ slot_name: 's1', plugin: 'pgoutput', slot_type: 'logical', database: floe.database }]);

    await client.query("INSERT INTO items VALUES (2, 'two', 2.50), (3, 'three', NULL)");
    await client.query('INSERT INTO other VALUES (1)');
    await client.query("UPDATE items SET name = 'TWO' WHERE id = 2");
    await client.query('DELETE FROM items WHERE id = 3');
    await client.query('BEGIN');
    await client.query("INSERT INTO items VALUES (4, 'four', 4.00)");
    await client.query("INSERT INTO notes VALUES (E'line\\nbreak, \"quoted\"', 1)");
    await client.query('COMMIT');
    await client.query('UPDATE items SET id = 5 WHERE id = 4');
    await client.query('DELETE FROM notes');

    const first = await receive('first.out');
    assert.deepEqual(first.map((t) => [...t.changes].sort()), [
      ['insert public.items 2,two,2.50', 'insert public.items 3,three,NULL'],
      ['update public.items 2,TWO,2.50'],
      ['delete public.items K 3,NULL,NULL'],
      ['insert public.items 4,four,4.00', 'insert public.notes line\nbreak, "quoted",1'],
      ['update public.items 5,four,4.00 old K 4,NULL,NULL'],
      ['delete public.notes O line\nbreak, "quoted",1'],
    ]);
    // The key change is one update carrying the old key, as PostgreSQL sends it.
    assert.deepEqual(first[4]!.changes, ['update public.items 5,four,4.00 old K 4,NULL,NULL']);
    for (let i = 1; i < first.length; i++) assert.ok(first[i]!.commitLsn > first[i - 1]!.endLsn, 'commit LSNs grow');
    for (const t of first) assert.ok(t.endLsn > t.commitLsn);

    await client.query("INSERT INTO items VALUES (6, 'after the restart', 6.00)");
    const second = await receive('second.out');
    assert.deepEqual(second.map((t) => t.changes), [['insert public.items 6,after the restart,6.00']]);
    assert.ok(second[0]!.commitLsn > first[first.length - 1]!.endLsn);

    const dropped = await runCommand(PG_RECVLOGICAL, [...connArgs(), '--slot=s1', '--drop-slot'], { timeoutMs: 30_000 });
    assert.equal(dropped.code, 0, dropped.stderr);
    assert.equal((await client.query('SELECT count(*)::int AS n FROM pg_replication_slots')).rows[0].n, 0);
  });
});
