import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { targetFactories, type ClientTarget } from './client-targets.js';

/**
 * pg_stat_activity as PostgreSQL 15 fills it, compared column by column: the columns and
 * their types, the identity columns joined to pg_roles and pg_database, the timestamps of
 * an active, an idle and an idle-in-transaction session, and the 1kB bound on the query
 * text. Each test runs first on PostgreSQL 15 (which proves it) and then on Floe.
 */

const PG15_COLUMNS: readonly (readonly [string, number])[] = [
  ['datid', 26], ['datname', 19], ['pid', 23], ['leader_pid', 23], ['usesysid', 26], ['usename', 19], ['application_name', 25],
  ['client_addr', 869], ['client_hostname', 25], ['client_port', 23], ['backend_start', 1184], ['xact_start', 1184],
  ['query_start', 1184], ['state_change', 1184], ['wait_event_type', 25], ['wait_event', 25], ['state', 25], ['backend_xid', 28],
  ['backend_xmin', 28], ['query_id', 20], ['query', 25], ['backend_type', 25],
];

/** Floe has no inet or xid type: client_addr is text and backend_xid/backend_xmin are oid (src/sql/system-catalog/catalog-shapes.ts). */
const FLOE_TYPE_FOR: Readonly<Record<number, number>> = { 869: 25, 28: 26 };

async function connect(t: ClientTarget, applicationName: string): Promise<pg.Client & { pid: number }> {
  const c = new pg.Client({ connectionString: t.url, application_name: applicationName });
  await c.connect();
  const pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  return Object.assign(c, { pid });
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const target of targetFactories()) {
  describe(`pg_stat_activity on ${target.label}`, () => {
    let server: ClientTarget | undefined;
    const started = async () => (server ??= await target.start());
    after(async () => { await server?.stop(); });

    test('columns and types are PostgreSQL 15\'s; identity columns join pg_roles and pg_database', async () => {
      const w = await connect(await started(), 'watcher');
      try {
        const r = await w.query('SELECT * FROM pg_stat_activity WHERE pid = pg_backend_pid()');
        const expected = PG15_COLUMNS.map(([n, oid]) => [n, target.label === 'Floe' ? FLOE_TYPE_FOR[oid] ?? oid : oid]);
        assert.deepEqual(r.fields.map((f) => [f.name, f.dataTypeID]), expected);
        assert.deepEqual((await w.query(`SELECT a.usesysid = r.oid AS role_matches, a.datid = d.oid AS database_matches,
            a.leader_pid IS NULL AS no_leader, a.client_hostname IS NULL AS no_hostname, a.backend_xid IS NULL AS no_xid,
            a.query_id IS NULL AS no_query_id, a.backend_type
          FROM pg_stat_activity a JOIN pg_roles r ON r.rolname = a.usename JOIN pg_database d ON d.datname = a.datname
          WHERE a.pid = pg_backend_pid()`)).rows, [{
          role_matches: true, database_matches: true, no_leader: true, no_hostname: true, no_xid: true, no_query_id: true, backend_type: 'client backend',
        }]);
      } finally {
        await w.end();
      }
    });

    test('a replication connection is a walsender', async () => {
      const t = await started();
      const w = await connect(t, 'watcher');
      const r = new pg.Client({ connectionString: t.url, replication: 'database' } as pg.ClientConfig);
      await r.connect();
      try {
        const pid = (await r.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
        assert.deepEqual((await w.query('SELECT backend_type FROM pg_stat_activity WHERE pid = $1', [pid])).rows, [{ backend_type: 'walsender' }]);
      } finally {
        await r.end();
        await w.end();
      }
    });

    test('active, idle and idle in transaction: state, wait event and the order of backend_start, xact_start, query_start and state_change', async () => {
      const t = await started();
      const [a, w] = [await connect(t, 'worker'), await connect(t, 'watcher')];
      const look = async () => (await w.query(`SELECT state, query, wait_event_type, wait_event,
          backend_start <= query_start AS started_first, xact_start IS NULL AS no_xact, xact_start = query_start AS xact_is_query,
          xact_start < query_start AS xact_before_query, query_start <= state_change AS changed_after_start
        FROM pg_stat_activity WHERE pid = $1`, [a.pid])).rows[0] as Record<string, unknown>;
      try {
        const sleeping = a.query('SELECT pg_sleep(1.5)');
        const active = await eventually('the sleep to show', async () => {
          const row = await look();
          return row.wait_event === 'PgSleep' ? row : undefined;
        });
        assert.deepEqual(active, {
          state: 'active', query: 'SELECT pg_sleep(1.5)', wait_event_type: 'Timeout', wait_event: 'PgSleep',
          started_first: true, no_xact: false, xact_is_query: true, xact_before_query: false, changed_after_start: true,
        });
        await sleeping;
        const idle = await eventually('the session to wait on its client', async () => {
          const row = await look();
          return row.wait_event === 'ClientRead' ? row : undefined;
        });
        assert.deepEqual(idle, {
          state: 'idle', query: 'SELECT pg_sleep(1.5)', wait_event_type: 'Client', wait_event: 'ClientRead',
          started_first: true, no_xact: true, xact_is_query: null, xact_before_query: null, changed_after_start: true,
        });
        await a.query('BEGIN');
        await new Promise((r) => setTimeout(r, 20));
        await a.query('SELECT 1');
        const inTransaction = await eventually('the transaction to wait on its client', async () => {
          const row = await look();
          return row.wait_event === 'ClientRead' ? row : undefined;
        });
        assert.deepEqual(inTransaction, {
          state: 'idle in transaction', query: 'SELECT 1', wait_event_type: 'Client', wait_event: 'ClientRead',
          started_first: true, no_xact: false, xact_is_query: false, xact_before_query: true, changed_after_start: true,
        });
        await a.query('COMMIT');
      } finally {
        await a.end();
        await w.end();
      }
    });

    test('the query text is cut at 1kB less one byte, on a character boundary', async () => {
      const w = await connect(await started(), 'watcher');
      try {
        const long = `SELECT '${'é'.repeat(600)}' AS long`;
        const r = await w.query(`${long}, (SELECT octet_length(query) FROM pg_stat_activity WHERE pid = pg_backend_pid()) AS bytes,
            (SELECT right(query, 3) FROM pg_stat_activity WHERE pid = pg_backend_pid()) AS tail`);
        assert.deepEqual([r.rows[0].bytes, r.rows[0].tail], [1022, 'ééé']);
      } finally {
        await w.end();
      }
    });
  });
}
