/**
 * Row-level security on Floe's publication stream: a replication role under a policy receives
 * only the changes of rows it may SELECT, an update that moves a row out of its view arriving
 * as a delete and one that moves a row into it as an insert (PostgreSQL 15's rules for
 * publication row filters); a superuser's stream is whole; `row_security = off` and a table
 * without SELECT stop the stream with 42501.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { startPostgres } from '../harness/postgres-server.js';
import type { PostgresServer } from '../harness/postgres-server.js';
import { runCommand } from '../harness/run-command.js';
import { decodeRecvlogicalFile } from './pgoutput-decoder.js';
import { transactions } from './streamed-transactions.js';

const PG_RECVLOGICAL = '/usr/lib/postgresql/15/bin/pg_recvlogical';
const PASSWORD = 'alice-secret';
const DOCS_COLUMNS = '(id int PRIMARY KEY, owner text, body text)';
const CONTENTS = 'SELECT id, owner, body FROM docs ORDER BY id';

describe('row-level security on the publication stream', () => {
  let floe: FloeServer;
  let postgres: PostgresServer;
  /** The bootstrap superuser on Floe. */
  let admin: pg.Client;
  /** alice on Floe: what she sees with SELECT is what her subscription must hold. */
  let alice: pg.Client;
  let target: pg.Client;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'floe-rls-stream-'));
    floe = await startFloe();
    postgres = await startPostgres();
    admin = new pg.Client({ connectionString: floe.url });
    await admin.connect();
    await admin.query(`CREATE ROLE alice LOGIN REPLICATION PASSWORD '${PASSWORD}'`);
    await admin.query('CREATE ROLE bob LOGIN');
    await policyTable('docs', DOCS_COLUMNS);
    alice = new pg.Client({ host: floe.host, port: floe.port, database: floe.database, user: 'alice', password: PASSWORD });
    await alice.connect();
    target = new pg.Client({ connectionString: postgres.url });
    await target.connect();
  });

  after(async () => {
    try {
      await target?.query('DROP SUBSCRIPTION IF EXISTS s');
    } catch {
      await target?.query('ALTER SUBSCRIPTION s DISABLE').catch(() => undefined);
      await target?.query('ALTER SUBSCRIPTION s SET (slot_name = NONE)').catch(() => undefined);
      await target?.query('DROP SUBSCRIPTION IF EXISTS s').catch(() => undefined);
    }
    await target?.end();
    await alice?.end();
    await admin?.end();
    await postgres?.stop();
    await floe?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A table owned by the superuser, under a policy, that alice may SELECT, in a publication of its own: pub_NAME. */
  async function policyTable(name: string, columns: string, using = 'owner = current_user'): Promise<void> {
    await admin.query(`CREATE TABLE ${name} ${columns}`);
    await admin.query(`ALTER TABLE ${name} ENABLE ROW LEVEL SECURITY`);
    await admin.query(`CREATE POLICY mine ON ${name} USING (${using})`);
    await admin.query(`GRANT SELECT ON ${name} TO alice`);
    await admin.query(`CREATE PUBLICATION pub_${name} FOR TABLE ${name}`);
  }

  /** Polls until the subscriber's table equals what alice sees on Floe, or fails with both at the deadline. */
  async function converged(what: string): Promise<void> {
    const want = (await alice.query(CONTENTS)).rows;
    const deadline = Date.now() + 60_000;
    let got: unknown[] = [];
    while (Date.now() < deadline) {
      got = (await target.query(CONTENTS)).rows;
      if (JSON.stringify(got) === JSON.stringify(want)) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(got, want, `${what}: the subscriber does not hold what alice sees\n${floe.log().slice(-3000)}`);
  }

  const recvlogical = (user: string, args: readonly string[], env: Record<string, string> = {}) =>
    runCommand(PG_RECVLOGICAL, ['-h', floe.host, '-p', String(floe.port), '-U', user, '-d', floe.database, ...args], {
      timeoutMs: 60_000, env: { PGPASSWORD: PASSWORD, ...env },
    });

  /** The server's current end of the change stream. */
  async function currentLsn(): Promise<string> {
    const repl = new pg.Client({ connectionString: floe.url, replication: 'database' } as pg.ClientConfig);
    await repl.connect();
    try {
      return String((await repl.query('IDENTIFY_SYSTEM')).rows[0].xlogpos);
    } finally {
      await repl.end();
    }
  }

  /** Streams a slot to the current end as `user`; the transactions' changes, or the failure's message. */
  async function stream(user: string, slot: string, publication: string, env: Record<string, string> = {}): Promise<string[][] | string> {
    const file = join(dir, `${slot}.out`);
    const r = await recvlogical(user, [
      `--slot=${slot}`, '--start', '--no-loop', `--endpos=${await currentLsn()}`, '-o', 'proto_version=1', '-o', `publication_names=${publication}`, '-f', file,
    ], env);
    if (r.code !== 0) return r.stderr;
    return transactions(decodeRecvlogicalFile(readFileSync(file))).map((t) => t.changes);
  }

  async function createSlot(user: string, slot: string): Promise<void> {
    const r = await recvlogical(user, [`--slot=${slot}`, '--create-slot', '--plugin=pgoutput']);
    assert.equal(r.code, 0, r.stderr);
  }

  test('a PostgreSQL subscriber connected as a role under a policy holds exactly the rows the role sees', async () => {
    await admin.query("INSERT INTO docs VALUES (1, 'alice', 'a1'), (2, 'bob', 'b2'), (3, 'alice', 'a3')");
    await target.query(`CREATE TABLE docs ${DOCS_COLUMNS}`);
    const conninfo = `host=${floe.host} port=${floe.port} dbname=${floe.database} user=alice password=${PASSWORD}`;
    await target.query(`CREATE SUBSCRIPTION s CONNECTION '${conninfo}' PUBLICATION pub_docs`);
    await converged('initial copy');
    assert.deepEqual((await target.query('SELECT id FROM docs ORDER BY id')).rows.map((r) => r.id), [1, 3]);

    await admin.query("INSERT INTO docs VALUES (4, 'alice', 'a4'), (5, 'bob', 'b5')");
    // Into alice's view (an insert for her), out of it (a delete), within it, outside it.
    await admin.query("UPDATE docs SET owner = 'alice' WHERE id = 2");
    await admin.query("UPDATE docs SET owner = 'bob' WHERE id = 3");
    await admin.query("UPDATE docs SET body = 'A1' WHERE id = 1");
    await admin.query("UPDATE docs SET body = 'B5' WHERE id = 5");
    // A key change leaving her view, and one staying in it.
    await admin.query("UPDATE docs SET id = 40, owner = 'bob' WHERE id = 4");
    await admin.query('UPDATE docs SET id = 10 WHERE id = 1');
    await admin.query('DELETE FROM docs WHERE id IN (5, 2)');
    await admin.query("INSERT INTO docs VALUES (6, 'alice', 'a6')");
    await converged('after changes');
    assert.deepEqual((await target.query(CONTENTS)).rows, [{ id: 6, owner: 'alice', body: 'a6' }, { id: 10, owner: 'alice', body: 'A1' }]);
  });

  test("the stream carries only the role's rows, an update leaving its view as a delete and one entering it as an insert; a superuser's is whole", async () => {
    await policyTable('notes', '(id int PRIMARY KEY, owner text, n int)');
    await createSlot('alice', 'alice_notes');
    await createSlot(floe.user, 'admin_notes');
    await admin.query("INSERT INTO notes VALUES (1, 'alice', 1), (2, 'bob', 2)");
    await admin.query('BEGIN');
    await admin.query("UPDATE notes SET owner = 'bob' WHERE id = 1");
    await admin.query("UPDATE notes SET owner = 'alice' WHERE id = 2");
    await admin.query('COMMIT');
    await admin.query('UPDATE notes SET n = n + 10');
    // Only bob's row: nothing for alice, and no empty transaction either.
    await admin.query("INSERT INTO notes VALUES (3, 'bob', 3)");
    await admin.query('DELETE FROM notes');

    assert.deepEqual(await stream('alice', 'alice_notes', 'pub_notes'), [
      ['insert public.notes 1,alice,1'],
      ['delete public.notes K 1,NULL,NULL', 'insert public.notes 2,alice,2'],
      ['update public.notes 2,alice,12'],
      ['delete public.notes K 2,NULL,NULL'],
    ]);
    assert.deepEqual(await stream(floe.user, 'admin_notes', 'pub_notes'), [
      ['insert public.notes 1,alice,1', 'insert public.notes 2,bob,2'],
      ['update public.notes 1,bob,1', 'update public.notes 2,alice,2'],
      ['update public.notes 1,bob,11', 'update public.notes 2,alice,12'],
      ['insert public.notes 3,bob,3'],
      ['delete public.notes K 1,NULL,NULL', 'delete public.notes K 2,NULL,NULL', 'delete public.notes K 3,NULL,NULL'],
    ]);
    // What alice received is what she can read: nothing is left.
    assert.deepEqual((await alice.query('SELECT * FROM notes')).rows, []);
  });

  test("a policy's subquery runs as the role: it needs SELECT on what it reads, and sees that table's rows as they are", async () => {
    await admin.query('CREATE TABLE shares (card int, grantee text)');
    await policyTable('cards', '(id int PRIMARY KEY, owner text)',
      'owner = current_user OR EXISTS (SELECT 1 FROM shares s WHERE s.card = cards.id AND s.grantee = current_user)');
    await admin.query("INSERT INTO shares VALUES (2, 'alice')");
    await createSlot('alice', 'alice_cards');
    await admin.query("INSERT INTO cards VALUES (1, 'alice'), (2, 'bob'), (3, 'bob')");
    assert.match(String(await stream('alice', 'alice_cards', 'pub_cards')), /permission denied for table shares/);
    await admin.query('GRANT SELECT ON shares TO alice');
    assert.deepEqual(await stream('alice', 'alice_cards', 'pub_cards'), [['insert public.cards 1,alice', 'insert public.cards 2,bob']]);
    assert.deepEqual((await alice.query('SELECT id FROM cards ORDER BY id')).rows.map((r) => r.id), [1, 2]);
  });

  test('row_security = off stops the stream of a table a policy would filter (42501)', async () => {
    await policyTable('plans', '(id int PRIMARY KEY, owner text)');
    await createSlot('alice', 'alice_plans');
    await admin.query("INSERT INTO plans VALUES (1, 'alice')");
    const failed = await stream('alice', 'alice_plans', 'pub_plans', { PGOPTIONS: '-c row_security=off' });
    assert.match(String(failed), /query would be affected by row-level security policy for table "plans"/);
    // With row security on, the same slot streams her row: the failure confirmed nothing.
    assert.deepEqual(await stream('alice', 'alice_plans', 'pub_plans'), [['insert public.plans 1,alice']]);
    // A role the policies do not apply to streams under row_security = off as before.
    await createSlot(floe.user, 'admin_plans');
    await admin.query("INSERT INTO plans VALUES (2, 'bob')");
    assert.deepEqual(await stream(floe.user, 'admin_plans', 'pub_plans', { PGOPTIONS: '-c row_security=off' }), [['insert public.plans 2,bob']]);
  });

  test('a published table the role may not SELECT stops its stream (42501)', async () => {
    await admin.query('CREATE TABLE secrets (id int PRIMARY KEY, v text)');
    await admin.query('CREATE PUBLICATION ps FOR TABLE secrets');
    await createSlot('alice', 'alice_secrets');
    await admin.query("INSERT INTO secrets VALUES (1, 'x')");
    assert.match(String(await stream('alice', 'alice_secrets', 'ps')), /permission denied for table secrets/);
    // SELECT on some columns only is not enough: the stream sends them all.
    await admin.query('GRANT SELECT (id) ON secrets TO alice');
    assert.match(String(await stream('alice', 'alice_secrets', 'ps')), /permission denied for table secrets/);
    await admin.query('GRANT SELECT ON secrets TO alice');
    assert.deepEqual(await stream('alice', 'alice_secrets', 'ps'), [['insert public.secrets 1,x']]);
  });
});
