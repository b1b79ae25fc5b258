import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { serialize } from 'pg-protocol';
import { targetFactories, type ClientTarget } from './client-targets.js';

/**
 * pg_sleep, pg_cancel_backend, pg_terminate_backend, the timeouts and their
 * units, pg_stat_activity and advisory locks, through node-postgres: each test
 * runs first on PostgreSQL 15 (which proves it) and then on Floe.
 */

interface Conn {
  readonly c: pg.Client;
  readonly pid: number;
  readonly notices: { severity: string; code: string; message: string }[];
  /** The asynchronous error an idle connection got (FATAL from terminate or a timeout). */
  fatal: { code: string; message: string } | undefined;
}

async function open(t: ClientTarget, applicationName?: string): Promise<Conn> {
  const c = new pg.Client({ connectionString: t.url, ...(applicationName === undefined ? {} : { application_name: applicationName }) });
  const conn: Conn = { c, pid: 0, notices: [], fatal: undefined };
  c.on('notice', (n) => conn.notices.push({ severity: n.severity ?? '', code: n.code ?? '', message: n.message ?? '' }));
  // The first error only: node-postgres follows a FATAL with "Connection terminated unexpectedly".
  c.on('error', (e: Error & { code?: string }) => { conn.fatal ??= { code: e.code ?? '', message: e.message }; });
  await c.connect();
  (conn as { pid: number }).pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  return conn;
}

async function close(...cs: Conn[]): Promise<void> {
  for (const x of cs) await x.c.end().catch(() => undefined);
}

async function eventually(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A query expected to fail later: its rejection is observed at once, so it is never "unhandled". */
function pending<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

const one = async (x: Conn, sql: string, params: unknown[] = []): Promise<Record<string, unknown>> => (await x.c.query(sql, params)).rows[0] as Record<string, unknown>;

async function stateOf(watcher: Conn, pid: number): Promise<Record<string, unknown> | undefined> {
  return (await watcher.c.query('SELECT state, query, wait_event_type, wait_event FROM pg_stat_activity WHERE pid = $1', [pid])).rows[0];
}

function codeOf(e: unknown): string | undefined {
  return (e as { code?: string }).code;
}

for (const target of targetFactories()) {
  describe(`server functions through node-postgres on ${target.label}`, () => {
    let server: ClientTarget | undefined;
    const started = async () => (server ??= await target.start());
    after(async () => { await server?.stop(); });

    test('pg_sleep, pg_sleep_for and pg_sleep_until return void after the wait', async () => {
      const a = await open(await started());
      try {
        const t0 = Date.now();
        const r = await a.c.query('SELECT pg_sleep(0.1) AS s');
        assert.ok(Date.now() - t0 >= 90);
        assert.deepEqual(r.rows, [{ s: '' }]);
        assert.equal(r.fields[0]!.dataTypeID, 2278);
        assert.deepEqual((await a.c.query("SELECT pg_sleep_for('100 milliseconds') AS s")).rows, [{ s: '' }]);
        assert.deepEqual((await a.c.query("SELECT pg_sleep_until(now() + interval '0.1 seconds') AS s")).rows, [{ s: '' }]);
        assert.deepEqual((await a.c.query('SELECT pg_sleep(NULL) AS s')).rows, [{ s: null }]);
        assert.ok(Date.now() - t0 >= 270);
      } finally {
        await close(a);
      }
    });

    test('statement_timeout interrupts pg_sleep with 57014, and SHOW prints it in units', async () => {
      const a = await open(await started());
      try {
        const shown: string[] = [];
        for (const v of ['3000', "'3s'", "'1min'", '1500', "'90s'", "'120s'", "'1h'", '0']) {
          await a.c.query(`SET statement_timeout = ${v}`);
          shown.push((await one(a, 'SHOW statement_timeout')).statement_timeout as string);
        }
        assert.deepEqual(shown, ['3s', '3s', '1min', '1500ms', '90s', '2min', '1h', '0']);
        await a.c.query("SET statement_timeout = '20500ms'");
        assert.deepEqual(await one(a, "SELECT current_setting('statement_timeout') AS v"), { v: '20500ms' });
        assert.deepEqual(await one(a, "SELECT setting, unit FROM pg_settings WHERE name = 'statement_timeout'"), { setting: '20500', unit: 'ms' });
        await a.c.query("SET statement_timeout = '1s'");
        const t0 = Date.now();
        await assert.rejects(a.c.query('SELECT pg_sleep(10)'), (e: Error) => codeOf(e) === '57014' && e.message === 'canceling statement due to statement timeout');
        assert.ok(Date.now() - t0 < 8000);
        await a.c.query('SET statement_timeout = 0');
        assert.deepEqual(await one(a, 'SELECT 1 AS one'), { one: 1 });
        await assert.rejects(a.c.query("SET statement_timeout = '3 apples'"), (e: Error & { hint?: string }) =>
          codeOf(e) === '22023' && e.message === 'invalid value for parameter "statement_timeout": "3 apples"'
          && e.hint === 'Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".');
        await assert.rejects(a.c.query('SET lock_timeout = -1'), (e: Error) =>
          codeOf(e) === '22023' && e.message === '-1 ms is outside the valid range for parameter "lock_timeout" (0 .. 2147483647)');
        await a.c.query('RESET statement_timeout');
        assert.deepEqual(await one(a, 'SHOW statement_timeout'), { statement_timeout: '0' });
        await a.c.query("SET idle_in_transaction_session_timeout = '2min'");
        assert.deepEqual(await one(a, 'SHOW idle_in_transaction_session_timeout'), { idle_in_transaction_session_timeout: '2min' });
      } finally {
        await close(a);
      }
    });

    test('a CancelRequest interrupts pg_sleep with 57014', async () => {
      const t = await started();
      const a = await open(t);
      try {
        const sleeping = pending(a.c.query('SELECT pg_sleep(30)'));
        const w = await open(t);
        await eventually('the sleep to start', async () => (await stateOf(w, a.pid))?.state === 'active');
        await close(w);
        const { processID, secretKey } = a.c as unknown as { processID: number; secretKey: number };
        const s = connect(t.port, t.host);
        await new Promise<void>((resolve) => s.once('connect', () => resolve()));
        s.end(serialize.cancel(processID, secretKey));
        await assert.rejects(sleeping, (e: Error) => codeOf(e) === '57014' && e.message === 'canceling statement due to user request');
      } finally {
        await close(a);
      }
    });

    test('pg_cancel_backend cancels another session; an unknown pid is false with a WARNING', async () => {
      const t = await started();
      const [victim, killer] = [await open(t), await open(t)];
      try {
        const sleeping = pending(victim.c.query('SELECT pg_sleep(30)'));
        await eventually('the sleep to show', async () => (await stateOf(killer, victim.pid))?.wait_event === 'PgSleep');
        assert.deepEqual(await stateOf(killer, victim.pid), { state: 'active', query: 'SELECT pg_sleep(30)', wait_event_type: 'Timeout', wait_event: 'PgSleep' });
        assert.deepEqual(await one(killer, 'SELECT pg_cancel_backend($1) AS ok', [victim.pid]), { ok: true });
        await assert.rejects(sleeping, (e: Error) => codeOf(e) === '57014' && e.message === 'canceling statement due to user request');
        assert.deepEqual(await one(victim, 'SELECT 2 AS two'), { two: 2 });
        assert.deepEqual(await one(killer, 'SELECT pg_cancel_backend(1) AS ok'), { ok: false });
        assert.deepEqual(killer.notices, [{ severity: 'WARNING', code: '01000', message: 'PID 1 is not a PostgreSQL backend process' }]);
      } finally {
        await close(victim, killer);
      }
    });

    test('pg_terminate_backend ends another session with FATAL 57P01, idle or busy', async () => {
      const t = await started();
      const [idle, busy, killer] = [await open(t), await open(t), await open(t)];
      try {
        assert.deepEqual(await one(killer, 'SELECT pg_terminate_backend($1) AS ok', [idle.pid]), { ok: true });
        await eventually('the idle session to be told', () => idle.fatal !== undefined);
        assert.deepEqual(idle.fatal, { code: '57P01', message: 'terminating connection due to administrator command' });
        const sleeping = pending(busy.c.query('SELECT pg_sleep(30)'));
        await eventually('the sleep to start', async () => (await stateOf(killer, busy.pid))?.state === 'active');
        assert.deepEqual(await one(killer, 'SELECT pg_terminate_backend($1, 5000) AS ok', [busy.pid]), { ok: true });
        await assert.rejects(sleeping, (e: Error) => codeOf(e) === '57P01' && e.message === 'terminating connection due to administrator command');
        assert.equal(await stateOf(killer, busy.pid), undefined);
        await assert.rejects(killer.c.query('SELECT pg_terminate_backend($1, -1)', [busy.pid]), (e: Error) => codeOf(e) === '22003' && e.message === '"timeout" must not be negative');
      } finally {
        await close(idle, busy, killer);
      }
    });

    test('idle_in_transaction_session_timeout ends the session with FATAL 25P03', async () => {
      const a = await open(await started());
      try {
        await a.c.query("SET idle_in_transaction_session_timeout = '300ms'");
        await a.c.query('SELECT 1'); // idle outside a transaction: not ended
        await new Promise((r) => setTimeout(r, 600));
        assert.equal(a.fatal, undefined);
        await a.c.query('BEGIN');
        await eventually('the timeout', () => a.fatal !== undefined);
        assert.deepEqual(a.fatal, { code: '25P03', message: 'terminating connection due to idle-in-transaction timeout' });
      } finally {
        await close(a);
      }
    });

    test('pg_stat_activity lists every session with its state and last query', async () => {
      const t = await started();
      const [a, w] = [await open(t, 'admin-a'), await open(t, 'admin-w')];
      try {
        await a.c.query('SELECT 1 AS x');
        const activity = () => one(w, `SELECT datname, usename, application_name, client_addr, client_port > 0 AS has_port, backend_type,
            backend_start <= now() AS started, xact_start IS NULL AS no_xact, query_start <= state_change AS ordered,
            state, wait_event_type, wait_event, query FROM pg_stat_activity WHERE pid = $1`, [a.pid]);
        // PostgreSQL reports the session idle a moment before its backend starts waiting on
        // the client (wait_event ClientRead): on a loaded box the first look can fall between.
        let row: Record<string, unknown> = {};
        await eventually('the session to wait on its client', async () => (row = await activity()).wait_event !== null);
        assert.deepEqual(row, {
          datname: t.database, usename: t.user, application_name: 'admin-a', client_addr: '127.0.0.1', has_port: true,
          backend_type: 'client backend', started: true, no_xact: true, ordered: true, state: 'idle',
          wait_event_type: 'Client', wait_event: 'ClientRead', query: 'SELECT 1 AS x',
        });
        await a.c.query('BEGIN');
        await a.c.query('SELECT 2 AS y');
        assert.deepEqual(await one(w, 'SELECT state, query, xact_start IS NOT NULL AS in_xact FROM pg_stat_activity WHERE pid = $1', [a.pid]),
          { state: 'idle in transaction', query: 'SELECT 2 AS y', in_xact: true });
        await a.c.query('SELECT 1 / 0').catch(() => undefined);
        // node-postgres settles a failed query on its ErrorResponse, before the server's
        // ReadyForQuery: the server may report the new state a moment later.
        let aborted: Record<string, unknown> = {};
        await eventually('the aborted transaction to show', async () => (aborted = await one(w, 'SELECT state FROM pg_stat_activity WHERE pid = $1', [a.pid])).state !== 'active');
        assert.deepEqual(aborted, { state: 'idle in transaction (aborted)' });
        await a.c.query('ROLLBACK');
        assert.deepEqual(await one(w, 'SELECT state, query FROM pg_stat_activity WHERE pid = pg_backend_pid()'),
          { state: 'active', query: 'SELECT state, query FROM pg_stat_activity WHERE pid = pg_backend_pid()' });
        const apps = (await w.c.query("SELECT application_name FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND application_name LIKE 'admin-%' ORDER BY 1")).rows;
        assert.deepEqual(apps, [{ application_name: 'admin-a' }, { application_name: 'admin-w' }]);
      } finally {
        await close(a, w);
      }
    });

    test('advisory locks: reentrant session locks, try, unlock warnings, shared key spaces apart, pg_locks', async () => {
      const t = await started();
      const [a, b] = [await open(t), await open(t)];
      try {
        await a.c.query('SELECT pg_advisory_lock(7)');
        assert.deepEqual((await a.c.query('SELECT pg_advisory_lock(7) AS v')).rows, [{ v: '' }]);
        assert.deepEqual(await one(b, 'SELECT pg_try_advisory_lock(7) AS got'), { got: false });
        assert.deepEqual(await one(a, 'SELECT pg_advisory_unlock(7) AS released'), { released: true });
        assert.deepEqual(await one(b, 'SELECT pg_try_advisory_lock(7) AS got'), { got: false });
        assert.deepEqual(await one(a, 'SELECT pg_advisory_unlock(7) AS released'), { released: true });
        assert.deepEqual(await one(b, 'SELECT pg_try_advisory_lock(7) AS got'), { got: true });
        assert.deepEqual(await one(a, 'SELECT pg_advisory_unlock(7) AS released'), { released: false });
        assert.deepEqual(a.notices, [{ severity: 'WARNING', code: '01000', message: "you don't own a lock of type ExclusiveLock" }]);
        assert.deepEqual(await one(b, 'SELECT pg_advisory_unlock(7) AS released'), { released: true });

        await a.c.query('SELECT pg_advisory_lock(1, 2)');
        assert.deepEqual(await one(b, 'SELECT pg_try_advisory_lock(1, 2) AS pair, pg_try_advisory_lock(4294967298) AS big'), { pair: false, big: true });
        await a.c.query('SELECT pg_advisory_lock_shared(20)');
        assert.deepEqual(await one(b, 'SELECT pg_try_advisory_lock_shared(20) AS shared, pg_try_advisory_lock(20) AS excl'), { shared: true, excl: false });
        const locks = (await b.c.query(`SELECT locktype, classid::text, objid::text, objsubid, mode, granted, pid = $1 AS mine
            FROM pg_locks WHERE locktype = 'advisory' AND pid IN ($1, $2) ORDER BY objsubid, objid, mine`, [b.pid, a.pid])).rows;
        assert.deepEqual(locks, [
          { locktype: 'advisory', classid: '1', objid: '2', objsubid: 1, mode: 'ExclusiveLock', granted: true, mine: true },
          { locktype: 'advisory', classid: '0', objid: '20', objsubid: 1, mode: 'ShareLock', granted: true, mine: false },
          { locktype: 'advisory', classid: '0', objid: '20', objsubid: 1, mode: 'ShareLock', granted: true, mine: true },
          { locktype: 'advisory', classid: '1', objid: '2', objsubid: 2, mode: 'ExclusiveLock', granted: true, mine: false },
        ]);
        await a.c.query('SELECT pg_advisory_unlock_all()');
        await b.c.query('SELECT pg_advisory_unlock_all()');
        assert.deepEqual((await b.c.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid IN ($1, $2)", [a.pid, b.pid])).rows, [{ n: 0 }]);
      } finally {
        await close(a, b);
      }
    });

    test('a blocked pg_advisory_lock waits until the holder unlocks, honours lock_timeout, and a disconnect releases', async () => {
      const t = await started();
      const [a, b] = [await open(t), await open(t)];
      try {
        await a.c.query('SELECT pg_advisory_lock(8)');
        let granted = false;
        const waiting = b.c.query('SELECT pg_advisory_lock(8)').then(() => { granted = true; });
        await eventually('the waiter to show', async () => (await stateOf(a, b.pid))?.wait_event === 'advisory');
        assert.deepEqual(await stateOf(a, b.pid), { state: 'active', query: 'SELECT pg_advisory_lock(8)', wait_event_type: 'Lock', wait_event: 'advisory' });
        assert.deepEqual((await a.c.query("SELECT granted, waitstart IS NOT NULL AS waits FROM pg_locks WHERE locktype = 'advisory' AND pid = $1", [b.pid])).rows, [{ granted: false, waits: true }]);
        assert.equal(granted, false);
        await a.c.query('SELECT pg_advisory_unlock(8)');
        await waiting;
        assert.equal(granted, true);

        await a.c.query("SET lock_timeout = '200ms'");
        await assert.rejects(a.c.query('SELECT pg_advisory_lock(8)'), (e: Error) => codeOf(e) === '55P03' && e.message === 'canceling statement due to lock timeout');
        await a.c.query("SET statement_timeout = '200ms'");
        await a.c.query('SET lock_timeout = 0');
        await assert.rejects(a.c.query('SELECT pg_advisory_lock(8)'), (e: Error) => codeOf(e) === '57014' && e.message === 'canceling statement due to statement timeout');
        await close(b);
        await eventually('the lock to go with its session', async () => (await one(a, 'SELECT pg_try_advisory_lock(8) AS got')).got === true);
      } finally {
        await close(a, b);
      }
    });

    test('transaction-level advisory locks last until the transaction (or autocommit statement) ends', async () => {
      const t = await started();
      const [a, b] = [await open(t), await open(t)];
      try {
        await a.c.query('BEGIN');
        await a.c.query('SELECT pg_advisory_xact_lock(10)');
        assert.deepEqual(await one(a, 'SELECT pg_try_advisory_xact_lock(10) AS again'), { again: true });
        assert.deepEqual(await one(b, 'SELECT pg_try_advisory_lock(10) AS got'), { got: false });
        assert.deepEqual(await one(a, 'SELECT pg_advisory_unlock(10) AS released'), { released: false });
        await a.c.query('COMMIT');
        assert.deepEqual(await one(b, 'SELECT pg_try_advisory_lock(10) AS got'), { got: true });
        await a.c.query('SELECT pg_advisory_xact_lock(11)');
        assert.deepEqual(await one(b, 'SELECT pg_try_advisory_xact_lock(11) AS got'), { got: true });
        await a.c.query('BEGIN');
        await a.c.query('SELECT pg_advisory_xact_lock(12)');
        await a.c.query('ROLLBACK');
        assert.deepEqual(await one(b, 'SELECT pg_try_advisory_xact_lock(12) AS got'), { got: true });
      } finally {
        await close(a, b);
      }
    });
  });
}
