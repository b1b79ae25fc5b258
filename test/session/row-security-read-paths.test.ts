import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startFloe, type FloeServer } from '../harness/floe-server.js';

/**
 * Row-level security on Floe's own read paths, which PostgreSQL has no counterpart of: time
 * travel, branches, a branch's and the table's audit log, and table_changes show a role only
 * the rows its policies let it see; and table_changes needs SELECT on the table like any read.
 */
describe('row security on time travel, branches, audit logs and table_changes', () => {
  let server: FloeServer;
  let admin: pg.Client;
  let alice: pg.Client;
  const ids = async (sql: string) => (await alice.query(sql)).rows.map((r) => Number(r.id)).sort((a, b) => a - b);

  before(async () => {
    server = await startFloe({ args: ['--optimizer-threads', '0'] });
    admin = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'floe', database: 'floe' });
    await admin.connect();
    for (const sql of [
      "CREATE ROLE alice LOGIN PASSWORD 'alice-pw'", 'CREATE ROLE bob',
      'CREATE TABLE docs (id int PRIMARY KEY, owner text)',
      "INSERT INTO docs VALUES (1, 'alice'), (2, 'bob')",
      "INSERT INTO docs VALUES (3, 'alice'), (4, 'bob')",
      'ALTER TABLE docs CREATE BRANCH b',
      "INSERT INTO docs VALUES (5, 'bob')",
      'CREATE TABLE secret (id int PRIMARY KEY)',
      'GRANT SELECT ON docs TO alice',
      'ALTER TABLE docs ENABLE ROW LEVEL SECURITY',
      'CREATE POLICY own ON docs USING (owner = current_user)',
    ]) await admin.query(sql);
    alice = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'alice', password: 'alice-pw', database: 'floe' });
    await alice.connect();
  });
  after(async () => {
    await alice?.end();
    await admin?.end();
    await server?.stop();
  });

  test('every path shows only the policy\'s rows', async () => {
    // The snapshot of the first INSERT (the first is CREATE TABLE's, empty).
    const first = (await admin.query('SELECT snapshot_id::int8 AS s FROM "docs$snapshots" ORDER BY snapshot_id OFFSET 1 LIMIT 1')).rows[0].s as string;
    assert.deepEqual(await ids('SELECT id FROM docs'), [1, 3]);
    assert.deepEqual(await ids(`SELECT id FROM docs VERSION AS OF ${first}`), [1]);
    assert.deepEqual(await ids('SELECT id FROM "docs$branch_b"'), [1, 3]);
    assert.deepEqual(await ids('SELECT id FROM "docs$audit_log"'), [1, 3]);
    assert.deepEqual(await ids('SELECT id FROM "docs$branch_b$audit_log"'), [1, 3]);
    assert.deepEqual(await ids(`SELECT id FROM table_changes('docs', ${first})`), [3]);
    // The owner (here the bootstrap superuser) sees everything.
    assert.equal((await admin.query('SELECT count(*)::int AS n FROM "docs$audit_log"')).rows[0].n, 5);
  });

  test("a prepared read is bound again when the table's owner changes (the owner is spared the policies)", async () => {
    const read = { name: 'docs-ids', text: 'SELECT id FROM docs ORDER BY id' };
    const ids = async () => (await alice.query(read)).rows.map((r) => Number(r.id));
    assert.deepEqual(await ids(), [1, 3]);
    await admin.query('ALTER TABLE docs OWNER TO alice');
    try {
      assert.deepEqual(await ids(), [1, 2, 3, 4, 5]);
    } finally {
      // Handing the table back moves alice's own items to the new owner, as PostgreSQL's aclnewowner does: grant SELECT again.
      await admin.query('ALTER TABLE docs OWNER TO floe');
      await admin.query('GRANT SELECT ON docs TO alice');
    }
    assert.deepEqual(await ids(), [1, 3]);
  });

  test('table_changes and system tables need SELECT on their table', async () => {
    await assert.rejects(alice.query("SELECT * FROM table_changes('secret', 1)"), (e: { code?: string; message: string }) => e.code === '42501' && e.message === 'permission denied for table secret');
    await assert.rejects(alice.query('SELECT * FROM "secret$snapshots"'), (e: { code?: string }) => e.code === '42501');
  });
});
