import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startFloe, type FloeServer } from '../harness/floe-server.js';

/**
 * Who may connect, through the real gateway: a --hba rules file (trust, +role, reject,
 * SCRAM), then the role's own state — LOGIN, CONNECTION LIMIT, VALID UNTIL — each changed
 * with SQL and in force at the next connection, without a restart.
 */
describe('connection rules and login roles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-hba-'));
  const hba = join(dir, 'hba.conf');
  let server: FloeServer;
  let admin: pg.Client;

  const connect = async (user: string, password?: string, extra: Record<string, unknown> = {}) => {
    const c = new pg.Client({ host: '127.0.0.1', port: server.port, user, database: 'floe', ...(password === undefined ? {} : { password }), ...extra });
    await c.connect();
    return c;
  };
  const refusal = async (user: string, password?: string, extra: Record<string, unknown> = {}): Promise<string> => {
    try {
      const c = await connect(user, password, extra);
      await c.end();
      return 'connected';
    } catch (e) {
      const err = e as { code?: string; message: string };
      return `${err.code}: ${err.message}`;
    }
  };

  before(async () => {
    writeFileSync(hba, [
      '# test rules',
      'host all floe 127.0.0.1/32 trust',
      'host all blocked 127.0.0.1/32 reject',
      'host all +staff 127.0.0.1/32 scram-sha-256',
      'host sales all 127.0.0.1/32 scram-sha-256',
    ].join('\n'));
    server = await startFloe({ dataDir: join(dir, 'data'), args: ['--hba', hba, '--optimizer-threads', '0'] });
    admin = await connect('floe');
    for (const sql of [
      'CREATE ROLE staff NOLOGIN',
      "CREATE ROLE alice LOGIN PASSWORD 'alice-pw' IN ROLE staff",
      "CREATE ROLE dormant NOLOGIN PASSWORD 'dormant-pw' IN ROLE staff",
      "CREATE ROLE limited LOGIN PASSWORD 'limited-pw' CONNECTION LIMIT 1 IN ROLE staff",
      "CREATE ROLE expired LOGIN PASSWORD 'expired-pw' VALID UNTIL '2001-01-01' IN ROLE staff",
      "CREATE ROLE blocked LOGIN PASSWORD 'blocked-pw' IN ROLE staff",
      "CREATE ROLE outsider LOGIN PASSWORD 'outsider-pw'",
    ]) await admin.query(sql);
  });
  after(async () => {
    await admin?.end();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the first matching rule decides: trust, reject, +role, database lists', async () => {
    assert.equal(await refusal('alice', 'alice-pw'), 'connected');
    assert.equal(await refusal('alice', 'wrong'), '28P01: password authentication failed for user "alice"');
    assert.equal(await refusal('blocked', 'blocked-pw'), '28000: pg_hba.conf rejects connection for host "127.0.0.1", user "blocked", database "floe", no encryption');
    // Not in staff, and only database "sales" is open to everyone.
    assert.equal(await refusal('outsider', 'outsider-pw'), '28000: no pg_hba.conf entry for host "127.0.0.1", user "outsider", database "floe", no encryption');
    const rules = await admin.query('SELECT line_number, user_name, auth_method FROM pg_hba_file_rules ORDER BY line_number');
    assert.deepEqual(rules.rows, [
      { line_number: 2, user_name: ['floe'], auth_method: 'trust' },
      { line_number: 3, user_name: ['blocked'], auth_method: 'reject' },
      { line_number: 4, user_name: ['+staff'], auth_method: 'scram-sha-256' },
      { line_number: 5, user_name: ['all'], auth_method: 'scram-sha-256' },
    ]);
  });

  test('LOGIN, CONNECTION LIMIT and VALID UNTIL, changed with SQL, apply to the next connection', async () => {
    assert.equal(await refusal('dormant', 'dormant-pw'), '28000: role "dormant" is not permitted to log in');
    await admin.query('ALTER ROLE dormant LOGIN');
    assert.equal(await refusal('dormant', 'dormant-pw'), 'connected');

    const first = await connect('limited', 'limited-pw');
    assert.equal(await refusal('limited', 'limited-pw'), '53300: too many connections for role "limited"');
    await first.end();
    await admin.query('ALTER ROLE limited CONNECTION LIMIT 2');
    const a = await connect('limited', 'limited-pw');
    const b = await connect('limited', 'limited-pw');
    await a.end();
    await b.end();

    // An expired password fails like a wrong one; moving VALID UNTIL brings it back.
    assert.equal(await refusal('expired', 'expired-pw'), '28P01: password authentication failed for user "expired"');
    await admin.query("ALTER ROLE expired VALID UNTIL 'infinity'");
    assert.equal(await refusal('expired', 'expired-pw'), 'connected');

    await admin.query("ALTER ROLE alice PASSWORD 'new-pw'");
    assert.equal(await refusal('alice', 'alice-pw'), '28P01: password authentication failed for user "alice"');
    assert.equal(await refusal('alice', 'new-pw'), 'connected');
    // Dropped, it is no member of staff any more: no rule lets the name in.
    await admin.query('DROP ROLE dormant');
    assert.equal(await refusal('dormant', 'dormant-pw'), '28000: no pg_hba.conf entry for host "127.0.0.1", user "dormant", database "floe", no encryption');
  });

  test('a walsender needs REPLICATION or SUPERUSER, whatever the rules let in', async () => {
    const walsender = () => refusal('alice', 'new-pw', { replication: 'database' });
    assert.equal(await walsender(), '42501: must be superuser or replication role to start walsender');
    await admin.query('ALTER ROLE alice REPLICATION');
    assert.equal(await walsender(), 'connected');
    await admin.query('ALTER ROLE alice NOREPLICATION');
  });

  test('the session knows who it is: session_user, current_user, SET ROLE to a role it belongs to', async () => {
    const c = await connect('alice', 'new-pw');
    try {
      assert.deepEqual((await c.query('SELECT session_user, current_user, current_setting(\'is_superuser\') AS su')).rows, [{ session_user: 'alice', current_user: 'alice', su: 'off' }]);
      await c.query('SET ROLE staff');
      assert.deepEqual((await c.query('SELECT session_user, current_user')).rows, [{ session_user: 'alice', current_user: 'staff' }]);
      await assert.rejects(c.query('SET ROLE outsider'), (e: { code?: string; message: string }) => e.code === '42501' && e.message === 'permission denied to set role "outsider"');
      await assert.rejects(c.query('SET SESSION AUTHORIZATION floe'), (e: { code?: string }) => e.code === '42501');
      await assert.rejects(c.query('SET log_min_duration_statement = 0'), (e: { code?: string; message: string }) => e.code === '42501' && /log_min_duration_statement/.test(e.message));
    } finally {
      await c.end();
    }
  });
});

describe('the default rules', () => {
  let server: FloeServer;
  before(async () => {
    server = await startFloe({ args: ['--optimizer-threads', '0'] });
    const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'floe', database: 'floe' });
    await c.connect();
    await c.query("CREATE ROLE bob LOGIN PASSWORD 'bob-pw'");
    await c.end();
  });
  after(async () => {
    await server?.stop();
  });

  test('trust the bootstrap superuser on loopback only; everyone else gives a SCRAM password', async () => {
    const noPassword = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'bob', database: 'floe', password: '' });
    await assert.rejects(noPassword.connect());
    const withPassword = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'bob', database: 'floe', password: 'bob-pw' });
    await withPassword.connect();
    await withPassword.end();
    // A name nobody created: the exchange runs to its end and fails like a wrong password.
    const stranger = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'nobody', database: 'floe', password: 'x' });
    await assert.rejects(stranger.connect(), (e: { code?: string }) => e.code === '28P01');
  });
});
