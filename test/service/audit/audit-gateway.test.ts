import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startFloe, type FloeServer } from '../../harness/floe-server.js';

/**
 * The audit trail through the real gateway (`floe serve --audit`): logins that succeed and
 * fail, DDL, privilege changes and writes become rows of audit.floe_audit; reads only under
 * audit.log_reads, which only a superuser may set; the table is the superusers' alone.
 */
describe('floe serve --audit', () => {
  let server: FloeServer;
  let admin: pg.Client;
  const connect = async (user: string, password?: string) => {
    const c = new pg.Client({ host: '127.0.0.1', port: server.port, user, database: 'floe', application_name: 'audit-test', ...(password === undefined ? {} : { password }) });
    await c.connect();
    return c;
  };

  before(async () => {
    server = await startFloe({ args: ['--audit', '--optimizer-threads', '0'] });
    admin = await connect('floe');
  });
  after(async () => {
    await admin?.end();
    await server?.stop();
  });

  /** The rows of the trail once `expected` of them are there (the trail flushes about every second). */
  async function trail(expected: number): Promise<Record<string, unknown>[]> {
    for (let i = 0; i < 100; i++) {
      const r = await admin.query("SELECT to_regclass('audit.floe_audit') IS NOT NULL AS ok");
      if (r.rows[0].ok) {
        const rows = (await admin.query('SELECT user_name, client_addr, application_name, action, objects, statement, rows::int4 AS rows, sqlstate, outcome FROM audit.floe_audit ORDER BY at')).rows;
        if (rows.length >= expected) return rows;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the audit trail did not reach ${expected} rows`);
  }

  test('logins, DDL, privilege changes and writes are recorded; reads only when asked', async () => {
    await admin.query("CREATE ROLE alice LOGIN PASSWORD 'alice-pw'");
    await admin.query('CREATE TABLE t (id int PRIMARY KEY, v text)');
    await admin.query("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
    await admin.query('GRANT SELECT, INSERT ON t TO alice');
    await admin.query('SELECT * FROM t');
    await trail(5);
    await assert.rejects(connect('alice', 'wrong'));
    const alice = await connect('alice', 'alice-pw');
    await assert.rejects(alice.query('UPDATE t SET v = 1'), (e: { code?: string }) => e.code === '42501');
    await alice.query("INSERT INTO t VALUES (3, 'c')");
    // The trail is the superusers': alice may neither read nor change it, nor turn reads on or off.
    await assert.rejects(alice.query('SELECT * FROM audit.floe_audit'), (e: { code?: string }) => e.code === '42501');
    await assert.rejects(alice.query('DELETE FROM audit.floe_audit'), (e: { code?: string }) => e.code === '42501');
    await assert.rejects(alice.query('SET audit.log_reads = on'), (e: { code?: string }) => e.code === '42501');
    await alice.end();
    await admin.query('SET audit.log_reads = on');
    await admin.query('SELECT id FROM t WHERE id = 1');

    const rows = await trail(11);
    const brief = rows.map((r) => [r.user_name, r.action, r.objects, r.outcome, r.sqlstate, r.rows]);
    assert.deepEqual(brief.filter((r) => r[1] !== 'read' || (r[2] as string[]).includes('public.t')), [
      ['floe', 'connect', ['floe'], 'success', '00000', null],
      ['floe', 'privilege', ['alice'], 'success', '00000', 0],
      ['floe', 'ddl', ['public.t'], 'success', '00000', 0],
      ['floe', 'write', ['public.t'], 'success', '00000', 2],
      ['floe', 'privilege', ['t', 'alice'], 'success', '00000', 0],
      ['alice', 'connect', ['floe'], 'failure', '28P01', null],
      ['alice', 'connect', ['floe'], 'success', '00000', null],
      ['alice', 'write', ['public.t'], 'failure', '42501', null],
      ['alice', 'write', ['public.t'], 'success', '00000', 1],
      ['alice', 'write', ['audit.floe_audit'], 'failure', '42501', null],
      ['floe', 'read', ['public.t'], 'success', '00000', 1],
    ]);
    assert.ok(rows.every((r) => r.client_addr === '127.0.0.1' && r.application_name === 'audit-test'));
    assert.equal(rows.find((r) => r.action === 'write' && r.rows === 2)?.statement, "INSERT INTO t VALUES (1, 'a'), (2, 'b')");
    // The SELECT before audit.log_reads was on left no row.
    assert.equal(rows.filter((r) => r.statement === 'SELECT * FROM t').length, 0);
    await server.waitForLog(/"msg":"audit"/);
  });
});
