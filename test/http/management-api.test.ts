import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startFloe, type FloeServer } from '../harness/floe-server.js';
import { histogramCount, scrape, seriesOf, valueOf } from './prometheus-scrape.js';

/**
 * The management server of a real `floe serve`, through Node's fetch: its JSON API and
 * its /metrics (parsed by an exposition-format parser), before and after real work
 * (commits, queries, an error, CALL optimize, a cancelled statement).
 */
describe('management API and /metrics of floe serve', () => {
  let server: FloeServer;
  let client: pg.Client;
  let base: string;
  const table = { schema: 'public', table: 'orders' };

  before(async () => {
    server = await startFloe();
    assert.ok(server.httpPort !== undefined, 'the listening line names the HTTP port');
    base = `http://127.0.0.1:${server.httpPort}`;
    client = new pg.Client({ host: server.host, port: server.port, user: server.user, database: server.database });
    await client.connect();
    await client.query('CREATE TABLE orders (id bigint PRIMARY KEY, amount int)');
  });
  after(async () => {
    await client?.end().catch(() => undefined);
    await server?.stop();
  });

  const getJson = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${base}${path}`, init);
    return { status: res.status, body: (await res.json()) as any };
  };
  const post = (path: string, body?: unknown) => getJson(path, {
    method: 'POST', ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });

  test('probes: healthz and readyz once the wire listens', async () => {
    assert.deepEqual(await getJson('/healthz'), { status: 200, body: { status: 'ok' } });
    assert.deepEqual(await getJson('/readyz'), { status: 200, body: { status: 'ready' } });
    // Node prints a library's deprecation warnings to stderr, which is the gateway's log.
    assert.doesNotMatch(server.log(), /DeprecationWarning|FSTDEP|DEP0\d+/);
  });

  test('commits, rows, statements and errors move their series', async () => {
    const before = await scrape(`${base}/metrics`);
    for (let i = 0; i < 3; i++) await client.query(`INSERT INTO orders VALUES (${2 * i}, ${i}), (${2 * i + 1}, ${i})`);
    assert.equal((await client.query('SELECT count(*)::int AS n FROM orders')).rows[0].n, 6);
    await assert.rejects(client.query('SELECT 1 / 0'), (e: { code?: string }) => e.code === '22012');
    const now = await scrape(`${base}/metrics`);
    assert.equal(valueOf(now, 'floe_commits_total')! - valueOf(before, 'floe_commits_total')!, 3);
    assert.equal(valueOf(now, 'floe_ingest_rows_total')! - valueOf(before, 'floe_ingest_rows_total')!, 6);
    assert.equal(histogramCount(now, 'floe_commit_duration_seconds') - histogramCount(before, 'floe_commit_duration_seconds'), 3);
    assert.equal(histogramCount(now, 'floe_query_duration_seconds', { kind: 'insert' }) - histogramCount(before, 'floe_query_duration_seconds', { kind: 'insert' }), 3);
    assert.ok(histogramCount(now, 'floe_query_duration_seconds', { kind: 'select' }) > histogramCount(before, 'floe_query_duration_seconds', { kind: 'select' }));
    assert.equal((valueOf(now, 'floe_query_errors_total', { sqlstate_class: '22' }) ?? 0) - (valueOf(before, 'floe_query_errors_total', { sqlstate_class: '22' }) ?? 0), 1);
    // Kinds are a fixed set: nothing per statement text.
    const kinds = new Set((now.floe_query_duration_seconds!.data as { labels: Record<string, string> }[]).map((d) => d.labels.kind));
    assert.deepEqual([...kinds].filter((k) => !['select', 'insert', 'update', 'delete', 'merge', 'copy', 'call', 'ddl', 'transaction', 'utility'].includes(k!)), []);
    assert.ok(valueOf(now, 'floe_wire_connections')! >= 1);
    assert.equal(valueOf(now, 'floe_scan_pool_queue_depth'), 0);
    assert.equal(typeof valueOf(now, 'floe_spill_bytes_total'), 'number');
    assert.ok(valueOf(now, 'process_resident_memory_bytes')! > 0);
    assert.ok(valueOf(now, 'nodejs_heap_size_used_bytes')! > 0);
    assert.equal(valueOf(now, 'floe_optimizer_tasks_running', { group: 'default' }), 0);
    assert.equal(typeof valueOf(now, 'floe_optimizer_tasks_queued', { group: 'default' }), 'number');
    // Per-table series, computed at the scrape.
    assert.ok(valueOf(now, 'floe_table_files', { ...table, store: 'change' })! >= 1);
    assert.ok(valueOf(now, 'floe_table_bytes', { ...table, store: 'change' })! > 0);
    assert.equal(valueOf(now, 'floe_table_rows', table), 6);
    const health = valueOf(now, 'floe_table_health_score', table)!;
    assert.ok(health >= 0 && health <= 100, String(health));
    assert.ok(valueOf(now, 'floe_table_optimizing_lag_seconds', table)! >= 0);
    const statuses = seriesOf(now, 'floe_table_optimizing_status').filter((d) => d.labels.table === 'orders');
    assert.equal(statuses.length, 5);
    assert.equal(statuses.filter((d) => d.value === 1).length, 1, 'one status at a time');
  });

  test('CALL optimize moves the table from the change store to the base store, and the API shows it', async () => {
    const before = await scrape(`${base}/metrics`);
    // A commit sits in the log store until tiering writes it as a change file (within a second); then it can be folded.
    const deadline = Date.now() + 30_000;
    let folded = 0;
    while (folded === 0) {
      assert.ok(Date.now() < deadline, 'CALL optimize folded nothing within 30 s');
      folded = Number((await client.query("CALL optimize('orders')")).rows[0].files_in);
      if (folded === 0) await new Promise((r) => setTimeout(r, 250));
    }
    const now = await scrape(`${base}/metrics`);
    assert.ok(valueOf(now, 'floe_table_files', { ...table, store: 'base' })! > valueOf(before, 'floe_table_files', { ...table, store: 'base' })!);
    assert.ok(valueOf(now, 'floe_table_files', { ...table, store: 'change' })! < valueOf(before, 'floe_table_files', { ...table, store: 'change' })!);
    assert.ok(valueOf(now, 'floe_optimizer_processes_total', { status: 'success' })! > valueOf(before, 'floe_optimizer_processes_total', { status: 'success' })!);
    assert.equal(valueOf(now, 'floe_table_rows', table), 6);

    const list = await getJson('/api/v1/tables');
    assert.equal(list.status, 200);
    const orders = list.body.tables.find((t: { table: string }) => t.table === 'orders');
    assert.equal(orders.schema, 'public');
    assert.equal(orders.keyed, true);
    assert.equal(orders.rows, 6);
    assert.ok(orders.stores.base.files >= 1 && orders.bytes > 0);
    assert.equal(typeof orders.freshnessLagSeconds, 'number');
    assert.ok(orders.healthScore >= 0 && orders.healthScore <= 100);

    await client.query('ALTER TABLE orders CREATE TAG before_more');
    const page = await getJson('/api/v1/tables/public/orders');
    assert.equal(page.status, 200);
    assert.deepEqual(page.body.columns.map((c: { name: string; type: string }) => `${c.name} ${c.type}`), ['id bigint', 'amount integer']);
    assert.deepEqual(page.body.primaryKey, ['id']);
    const snapshotIds = (await client.query('SELECT snapshot_id::text AS id FROM orders$snapshots ORDER BY snapshot_id DESC')).rows.map((r) => r.id);
    assert.deepEqual(page.body.snapshots.map((s: { id: string }) => s.id), snapshotIds, 'the snapshots of orders$snapshots, newest first');
    assert.ok(page.body.snapshots.some((s: { operation: string }) => s.operation === 'optimize'));
    assert.deepEqual(page.body.refs.map((r: { name: string; kind: string }) => `${r.kind} ${r.name}`).sort(), ['branch main', 'tag before_more']);
    const nodes = (await client.query('SELECT count(*)::int AS n FROM orders$buckets')).rows[0].n;
    assert.equal(page.body.buckets.length, nodes);
    assert.ok(page.body.buckets.every((b: { baseBytes: number; pendingChangeFiles: number }) => typeof b.baseBytes === 'number' && typeof b.pendingChangeFiles === 'number'));
    assert.equal(page.body.files.stores.base.files, orders.stores.base.files);
    assert.equal(page.body.files.sizes.reduce((n: number, c: { files: number }) => n + c.files, 0), orders.stores.base.files + orders.stores.change.files);
    const history = page.body.history as { trigger: string; status: string; filesIn: number }[];
    assert.ok(history.some((h) => h.trigger === 'call' && h.status === 'success' && h.filesIn > 0), JSON.stringify(history));
    assert.equal(page.body.readAmplification.target, 16);
    // t$audit_log's newest rows, newest first, as the system table spells them.
    const audit = (await client.query('SELECT _change_type, id::text AS id, _commit_snapshot_id::text AS snap FROM orders$audit_log ORDER BY _seq DESC, id DESC')).rows;
    assert.deepEqual(page.body.recentChanges.map((r: { changeType: string; values: { id: string }; snapshotId: string }) => [r.changeType, r.values.id, r.snapshotId]),
      audit.map((r) => [r._change_type, r.id, r.snap]));
    assert.equal(typeof page.body.readAmplification.actual, 'number');

    const optimizing = await getJson('/api/v1/optimizing');
    assert.equal(optimizing.status, 200);
    const sqlGroups = (await client.query('SELECT group_name, threads FROM floe_optimizer_groups')).rows;
    assert.deepEqual(optimizing.body.groups.map((g: { name: string; threads: number }) => ({ group_name: g.name, threads: g.threads })), sqlGroups);
    assert.ok(optimizing.body.history.some((h: { table: string; trigger: string }) => h.table === 'orders' && h.trigger === 'call'));
    assert.ok(Array.isArray(optimizing.body.processes));
    const sqlOptimizers = (await client.query('SELECT optimizer_id, group_names, state FROM floe_optimizers')).rows;
    assert.deepEqual(optimizing.body.optimizers.map((o: { id: string; groups: string[] | null; state: string }) => ({ optimizer_id: o.id, group_names: o.groups, state: o.state })), sqlOptimizers);
  });

  test('rates: per-second commits, rows, statements and errors over the sampled intervals', async () => {
    const r = await getJson('/api/v1/rates');
    assert.equal(r.status, 200);
    assert.equal(r.body.intervalSeconds, 10);
    const points = r.body.points as { at: number; seconds: number; commitsPerSecond: number; ingestRowsPerSecond: number; queriesPerSecond: number; errorsPerSecond: number }[];
    assert.ok(points.length >= 1);
    // The tests above committed 3 times (6 rows), ran statements and one error; every interval's rates sum back to those counts.
    const sum = (k: 'commitsPerSecond' | 'ingestRowsPerSecond' | 'errorsPerSecond') => Math.round(points.reduce((n, p) => n + p[k] * p.seconds, 0));
    assert.equal(sum('commitsPerSecond'), 3);
    assert.equal(sum('ingestRowsPerSecond'), 6);
    assert.equal(sum('errorsPerSecond'), 1);
    assert.ok(points.every((p, i) => i === 0 || p.at > points[i - 1]!.at));
  });

  test('pause, resume and optimize now, as the trusted loopback superuser', async () => {
    const enabled = async () => (await client.query("SELECT enabled FROM floe_optimizing WHERE table_name = 'orders'")).rows[0].enabled;
    assert.deepEqual((await post('/api/v1/tables/public/orders/pause')).body, { ...table, optimizingEnabled: false });
    assert.equal(await enabled(), false);
    assert.deepEqual((await post('/api/v1/tables/public/orders/resume')).body, { ...table, optimizingEnabled: true });
    assert.equal(await enabled(), true);
    const runs = Number((await client.query("SELECT count(*) AS n FROM floe_optimizing_history WHERE table_name = 'orders'")).rows[0].n);
    const now = await post('/api/v1/tables/public/orders/optimize', { kind: 'minor' });
    assert.equal(now.status, 200, JSON.stringify(now.body));
    assert.equal(now.body.kind, 'minor');
    assert.equal(Number((await client.query("SELECT count(*) AS n FROM floe_optimizing_history WHERE table_name = 'orders'")).rows[0].n), runs + 1);
    const bad = await post('/api/v1/tables/public/orders/optimize', { kind: 'sideways' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.sqlstate, '22023');
    const missing = await post('/api/v1/tables/public/nowhere/pause');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.sqlstate, '42P01');
  });

  test('sessions: who is connected and what runs; cancelling a running statement', async () => {
    const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    const listed = await getJson('/api/v1/sessions');
    const me = listed.body.sessions.find((s: { pid: number }) => s.pid === pid);
    assert.equal(me.user, 'floe');
    assert.equal(me.state, 'idle');
    assert.match(me.query, /pg_backend_pid/);
    assert.ok(!Number.isNaN(Date.parse(me.backendStart)));

    const sleeping = client.query('SELECT pg_sleep(60)');
    const outcome = sleeping.then(() => 'finished', (e: { code?: string }) => e.code);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const s = (await getJson('/api/v1/sessions')).body.sessions.find((x: { pid: number }) => x.pid === pid);
      if (s.state === 'active' && /pg_sleep/.test(s.query)) {
        assert.ok(!Number.isNaN(Date.parse(s.queryStart)));
        break;
      }
      assert.ok(Date.now() < deadline, 'the statement never showed as active');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual((await post(`/api/v1/sessions/${pid}/cancel`)).body, { pid, canceled: true });
    assert.equal(await outcome, '57014');
    const gone = await post('/api/v1/sessions/999999/cancel');
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.sqlstate, '42704');
  });

  test('the slow-query list: floe_stat_statements\' rows, slowest first by mean time', async () => {
    for (const s of [0.3, 0.2]) await client.query(`SELECT pg_sleep(${s})`);
    const { body } = await getJson('/api/v1/statements');
    const slept = body.statements.find((s: { query: string }) => /pg_sleep/.test(s.query));
    const sql = (await client.query("SELECT calls, mean_exec_time, max_exec_time, query FROM floe_stat_statements WHERE query LIKE '%pg_sleep%' AND query NOT LIKE '%floe_stat_statements%'")).rows[0];
    assert.deepEqual([slept.query, slept.calls], [sql.query, Number(sql.calls)]);
    assert.ok(slept.meanMs >= 250 && slept.maxMs >= 300, JSON.stringify(slept));
    const means = body.statements.map((s: { meanMs: number }) => s.meanMs);
    assert.deepEqual(means, [...means].sort((a: number, b: number) => b - a));
  });

  test('unknown endpoints and bad parameters are JSON errors with a SQLSTATE', async () => {
    const nowhere = await getJson('/api/v1/nowhere');
    assert.equal(nowhere.status, 404);
    assert.equal(nowhere.body.error.sqlstate, '42704');
    const badPid = await post('/api/v1/sessions/abc/cancel');
    assert.equal(badPid.status, 400);
    assert.equal(badPid.body.error.sqlstate, '22023');
    assert.deepEqual((await getJson('/api/v1/whoami')).body, { user: 'floe', superuser: true });
  });
});
