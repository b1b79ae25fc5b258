import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startFloe, type FloeServer } from '../harness/floe-server.js';

/**
 * What `floe serve` logs and counts, read from its JSON log lines and from
 * floe_stat_statements: connections, failed statements, the slow-query log under the
 * --log-min-duration-statement default and SET, optimize processes, and statement
 * statistics folded by normalized text.
 */

type Line = Record<string, unknown>;

function lines(f: FloeServer): Line[] {
  return f.log().split('\n').flatMap((l) => {
    try {
      return [JSON.parse(l) as Line];
    } catch {
      return [];
    }
  });
}

async function eventually(f: FloeServer, what: string, pick: (ls: Line[]) => Line[], count = 1): Promise<Line[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = pick(lines(f));
    if (found.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${f.log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('floe serve logs and statement statistics', () => {
  let floe: FloeServer;
  before(async () => { floe = await startFloe({ args: ['--log-min-duration-statement', '250ms'] }); });
  after(async () => { await floe?.stop(); });

  const connect = async (applicationName: string) => {
    const c = new pg.Client({ connectionString: floe.url, application_name: applicationName });
    await c.connect();
    return c;
  };

  test('a connection logs its open and its close; a failed statement its SQLSTATE, position and text', async () => {
    const c = await connect('log-open-close');
    const pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    await assert.rejects(c.query('SELECT * FROM no_such_table'), (e: Error & { code?: string }) => e.code === '42P01');
    await c.end();
    const mine = (ls: Line[]) => ls.filter((l) => l.backend_pid === pid);
    await eventually(floe, 'the disconnection', (ls) => mine(ls).filter((l) => l.msg === 'disconnection'));
    const [open] = mine(lines(floe)).filter((l) => l.msg === 'connection authorized');
    assert.deepEqual([open!.user, open!.database, open!.application_name, open!.client_addr, typeof open!.client_port], ['floe', 'floe', 'log-open-close', '127.0.0.1', 'number']);
    const [failed] = mine(lines(floe)).filter((l) => l.msg === 'statement failed');
    assert.deepEqual([failed!.level, failed!.sqlstate, failed!.message, failed!.position, failed!.statement, failed!.user, failed!.application_name],
      [30, '42P01', 'relation "no_such_table" does not exist', 15, 'SELECT * FROM no_such_table', 'floe', 'log-open-close']);
  });

  test('the server default comes from --log-min-duration-statement; SET 0 logs every statement with its duration, rows and user, -1 none', async () => {
    const c = await connect('log-slow');
    const pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    assert.deepEqual((await c.query('SHOW log_min_duration_statement')).rows, [{ log_min_duration_statement: '250ms' }]);
    await c.query('SET log_min_duration_statement = 0');
    await c.query('SELECT g FROM generate_series(1, 5) AS g');
    await c.query('SET log_min_duration_statement = -1');
    await c.query('SELECT g FROM generate_series(1, 7) AS g');
    await c.query('RESET log_min_duration_statement');
    assert.deepEqual((await c.query('SHOW log_min_duration_statement')).rows, [{ log_min_duration_statement: '250ms' }]);
    await c.end();
    const mine = (ls: Line[]) => ls.filter((l) => l.backend_pid === pid && l.msg === 'duration');
    const durations = await eventually(floe, 'the duration lines', mine, 2);
    // As in PostgreSQL, the value in force when a statement ends decides: SET … 0 is logged, SET … -1 is not.
    assert.deepEqual(durations.map((l) => [l.phase, l.statement, l.rows, l.user, l.application_name, typeof l.duration_ms]), [
      ['statement', 'SET log_min_duration_statement = 0', 0, 'floe', 'log-slow', 'number'],
      ['statement', 'SELECT g FROM generate_series(1, 5) AS g', 5, 'floe', 'log-slow', 'number'],
    ]);
    await eventually(floe, 'the disconnection', (ls) => ls.filter((l) => l.backend_pid === pid && l.msg === 'disconnection'));
    assert.equal(mine(lines(floe)).length, 2, 'nothing is logged at -1, nor under 250ms');
  });

  test('CALL optimize logs the process: kind, table, outcome, duration, files and bytes in and out', async () => {
    const c = await connect('log-optimize');
    await c.query('CREATE TABLE opt_log (id bigint PRIMARY KEY, v text)');
    for (let i = 0; i < 3; i++) await c.query('INSERT INTO opt_log SELECT g, \'x\' FROM generate_series($1::int8, $1::int8 + 99) AS g', [i * 100]);
    const report = (await c.query("CALL optimize('opt_log', 'full')")).rows[0] as Record<string, string>;
    await c.end();
    const [end] = await eventually(floe, 'the optimize line', (ls) => ls.filter((l) => l.msg === 'optimize finished' && l.table === 'public.opt_log' && l.trigger === 'call'));
    assert.deepEqual([end!.component, end!.kind, end!.outcome, end!.files_in, end!.files_out, end!.bytes_out, end!.rows_out, typeof end!.duration_ms],
      ['optimizer', 'full', 'success', Number(report.files_in), Number(report.files_out), Number(report.bytes_out), Number(report.rows_out), 'number']);
    assert.ok(Number(report.rows_out) === 300);
    const started = lines(floe).filter((l) => l.msg === 'optimize started' && l.table === 'public.opt_log' && l.trigger === 'call');
    assert.equal(started.length, 1);
  });

  test('floe_stat_statements folds statements that differ in constants, in both protocols, and floe_stat_statements_reset() empties it', async () => {
    const c = await connect('stats');
    await c.query('CREATE TABLE stat_t (id bigint PRIMARY KEY, name text)');
    await c.query("INSERT INTO stat_t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    await c.query('SELECT floe_stat_statements_reset()');
    for (const id of [1, 2, 3]) await c.query(`SELECT name FROM stat_t WHERE id = ${id}`);
    await c.query('SELECT name FROM stat_t WHERE id >= 2');
    for (const id of [1, 9]) await c.query('SELECT name FROM stat_t WHERE id = $1', [id]);
    await c.query("UPDATE stat_t SET name = 'z' WHERE id <= 2");
    const rows = (await c.query(`SELECT usename, userid::int AS userid, query, calls::int AS calls, rows::int AS rows,
        total_exec_time > 0 AS timed, abs(mean_exec_time - total_exec_time / calls) < 1e-9 AS mean_ok, queryid <> 0 AS has_id
      FROM floe_stat_statements WHERE query LIKE '%stat_t%' ORDER BY query`)).rows;
    assert.deepEqual(rows, [
      { usename: 'floe', userid: 10, query: 'SELECT name FROM stat_t WHERE id = $1', calls: 5, rows: 4, timed: true, mean_ok: true, has_id: true },
      { usename: 'floe', userid: 10, query: 'SELECT name FROM stat_t WHERE id >= $1', calls: 1, rows: 2, timed: true, mean_ok: true, has_id: true },
      { usename: 'floe', userid: 10, query: 'UPDATE stat_t SET name = $1 WHERE id <= $2', calls: 1, rows: 2, timed: true, mean_ok: true, has_id: true },
    ]);
    const other = await connect('stats-2');
    assert.equal((await other.query("SELECT calls::int AS calls FROM floe_stat_statements WHERE query = 'SELECT name FROM stat_t WHERE id = $1'")).rows[0]?.calls, 5,
      'every session of the gateway sees the same statistics');
    await other.query('SELECT floe_stat_statements_reset()');
    assert.deepEqual((await c.query("SELECT count(*)::int AS n FROM floe_stat_statements WHERE query LIKE '%stat_t%'")).rows, [{ n: 0 }]);
    await other.end();
    await c.end();
  });
});
