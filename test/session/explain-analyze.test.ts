import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../../src/lake/index.js';
import type { Warehouse } from '../../src/lake/index.js';
import { createFloeSession } from '../../src/session/index.js';
import { loadSqlParser } from '../../src/sql/index.js';
import { createSystemCatalog, registerCatalogFunctions } from '../../src/sql/system-catalog/index.js';
import type { SessionHandler } from '../../src/wire/session-handler.js';
import type { ScanPool } from '../../src/exec/index.js';

let warehouse: Warehouse;
let s: SessionHandler;

before(async () => {
  await loadSqlParser();
  registerCatalogFunctions();
  warehouse = await openWarehouse({ path: mkdtempSync(join(tmpdir(), 'floe-explain-')) });
  s = createFloeSession({
    warehouse, catalog: createSystemCatalog(),
    startup: { user: 'floe', database: 'floe', parameters: {}, remoteAddress: '127.0.0.1', processId: 7 },
  });
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await run('CREATE TABLE ev (id integer, region text, v integer) PARTITION BY (region)');
  // Three partitions, one file each: a predicate on region keeps one.
  for (const region of ['eu', 'us', 'ap']) {
    await run(`INSERT INTO ev SELECT g, '${region}', g % 10 FROM generate_series(1, 100) g`);
  }
  await run('CREATE TABLE dim (id integer PRIMARY KEY, name text)');
  await run("INSERT INTO dim SELECT g, 'n' || g FROM generate_series(1, 20) g");
});

/** A session whose scans run on `pool`, and a runner of its queries' first columns as text lines. */
async function pooledSession(pool: ScanPool, processId: number): Promise<(sql: string) => Promise<string>> {
  const pooled = createFloeSession({
    warehouse, catalog: createSystemCatalog(), scanPool: pool,
    startup: { user: 'floe', database: 'floe', parameters: {}, remoteAddress: '127.0.0.1', processId },
  });
  await pooled.start({ parameterStatus: () => undefined, notice: () => undefined });
  return async (sql) => {
    const out: string[] = [];
    for await (const r of pooled.simpleQuery(sql, new AbortController().signal)) {
      if (r.kind === 'rows') for await (const b of r.batches) for (let i = 0; i < b.numRows; i++) out.push(String(b.columns[0]!.get(i)));
    }
    return out.join('\n');
  };
}

async function run(sql: string): Promise<string[]> {
  const out: string[] = [];
  for await (const r of s.simpleQuery(sql, new AbortController().signal)) {
    if (r.kind === 'rows') for await (const b of r.batches) for (let i = 0; i < b.numRows; i++) out.push(String(b.columns[0]!.get(i)));
  }
  return out;
}

/** The node lines of an EXPLAIN ANALYZE, with their actual-rows numbers. */
function nodes(lines: readonly string[]): { name: string; rows: number; time: number | undefined }[] {
  const out: { name: string; rows: number; time: number | undefined }[] = [];
  for (const l of lines) {
    const m = /^\s*(?:->\s+)?(.*?) \(actual (?:time=(\d+\.\d+)(?:\.\.(\d+\.\d+))? ms )?rows=(\d+) loops=(\d+)\)$/.exec(l);
    if (m) out.push({ name: m[1]!, rows: Number(m[4]), time: m[3] !== undefined ? Number(m[3]) : m[2] !== undefined ? Number(m[2]) : undefined });
  }
  return out;
}

test('EXPLAIN ANALYZE prints every operator with its true row count and a non-negative inclusive time', async () => {
  const lines = await run("EXPLAIN ANALYZE SELECT region, count(*) FROM ev WHERE v < 3 AND id > 50 GROUP BY region ORDER BY region");
  const text = lines.join('\n');
  const ns = nodes(lines);
  // Every plan node line carries actuals.
  assert.equal(ns.length, lines.filter((l) => /^\s*(->\s+)?[A-Z][A-Za-z ]+( on | \(|$)/.test(l) && !/^\s*(Output|Sort Key|Group Key|Aggregates|Columns|Filter|Pushed|Scan|Files|Row|Partitions|Bucket|Actual|Execution|Groups|Rows)/.test(l.trim())).length, text);
  const scan = ns.find((n) => n.name.startsWith('Lake Scan on public.ev'));
  assert.ok(scan, text);
  // ids 51..100 per region, v = id % 10 < 3: 15 rows per region.
  assert.equal(scan.rows, 45, text);
  const agg = ns.find((n) => n.name.startsWith('Hash Aggregate'));
  assert.equal(agg?.rows, 3, text);
  assert.equal(ns[0]!.rows, 3, text);
  for (const n of ns) assert.ok(n.time !== undefined && n.time >= 0, text);
  // Inclusive: a parent never reports less time than its child.
  assert.ok(ns[0]!.time! >= scan.time!, text);
  assert.match(text, /Rows Scanned: \d+/);
  assert.match(text, /Actual Rows: 3/);
  assert.match(text, /Execution Time: [\d.]+ ms/);
});

test('EXPLAIN ANALYZE shows files skipped by a partition predicate and rows removed by the residual filter', async () => {
  const text = (await run("EXPLAIN ANALYZE SELECT id FROM ev WHERE region = 'eu' AND id::text LIKE '%7'")).join('\n');
  assert.match(text, /Files: 1 scanned, 2 skipped \(of 3; partitions skipped 2/, text);
  assert.match(text, /Lake Scan on public\.ev \(actual time=[\d.]+ ms rows=10 loops=1\)/, text);
  assert.match(text, /Rows Removed by Filter: 90/, text);
});

test('EXPLAIN ANALYZE of a join reports both inputs and the build rows; plain EXPLAIN stays without actuals', async () => {
  const text = (await run('EXPLAIN ANALYZE SELECT d.name, e.v FROM ev e JOIN dim d ON d.id = e.id')).join('\n');
  const ns = nodes(text.split('\n'));
  const join = ns.find((n) => n.name.startsWith('Hash Join'));
  assert.equal(join?.rows, 60, text);
  assert.ok(ns.some((n) => n.name.startsWith('Lake Scan on public.dim') && n.rows === 20), text);
  // dim (20 keys) builds; its keys filter the ev scan in the workers, so 60 of ev's 300 rows come out.
  assert.ok(ns.some((n) => n.name.startsWith('Lake Scan on public.ev') && n.rows === 60), text);
  assert.match(text, /Runtime Filter: id IN \(20 keys from Hash Join\), rows removed 240/, text);
  assert.match(text, /Build Rows: 20/);
  const off = (await run('SET floe.runtime_filters = off; EXPLAIN ANALYZE SELECT d.name, e.v FROM ev e JOIN dim d ON d.id = e.id')).join('\n');
  assert.ok(nodes(off.split('\n')).some((n) => n.name.startsWith('Lake Scan on public.ev') && n.rows === 300), off);
  // The plan still names the scans the join could filter (Runtime Filters: ev.id); none is applied to them.
  assert.doesNotMatch(off, /Runtime Filter: /);
  await run('RESET floe.runtime_filters');
  const plain = (await run('EXPLAIN SELECT d.name FROM ev e JOIN dim d ON d.id = e.id')).join('\n');
  assert.doesNotMatch(plain, /actual|Execution Time/);
  assert.match(plain, /Hash Join/);
});

test('EXPLAIN (ANALYZE, COSTS OFF, BUFFERS) as psql and pgAdmin send it; a point read shows row groups', async () => {
  const text = (await run('EXPLAIN (ANALYZE, COSTS OFF, BUFFERS) SELECT * FROM dim WHERE id = 3')).join('\n');
  assert.match(text, /Lake Scan on public\.dim \(actual time=[\d.]+ ms rows=1 loops=1\)/, text);
  assert.match(text, /Row Groups: /, text);
});

test('EXPLAIN options as PostgreSQL checks them: TIMING OFF keeps rows only, SUMMARY OFF drops the totals, bad options fail', async () => {
  const untimed = await run('EXPLAIN (ANALYZE, TIMING OFF, COSTS false, BUFFERS) SELECT id FROM ev WHERE v = 1');
  const ns = nodes(untimed);
  assert.ok(ns.length >= 1, untimed.join('\n'));
  assert.ok(ns.every((n) => n.time === undefined), untimed.join('\n'));
  assert.ok(untimed.some((l) => l.startsWith('Execution Time:')));
  const quiet = await run('EXPLAIN (ANALYZE 1, SUMMARY off) SELECT id FROM ev WHERE v = 1');
  assert.ok(!quiet.some((l) => l.startsWith('Execution Time:')), quiet.join('\n'));
  assert.ok(nodes(quiet).every((n) => n.time !== undefined));
  const plain = await run('EXPLAIN (ANALYZE 0, VERBOSE) SELECT id FROM ev');
  assert.equal(nodes(plain).length, 0, plain.join('\n'));
  const fails = async (sql: string, code: string) => {
    await assert.rejects(run(sql), (e: unknown) => (e as { sqlstate?: string }).sqlstate === code, sql);
  };
  await fails('EXPLAIN (TIMING) SELECT 1', '22023');
  await fails('EXPLAIN (ANALYZE maybe) SELECT 1', '22023');
  await fails('EXPLAIN (FORMAT YAML) SELECT 1', '0A000');
  await fails('EXPLAIN (COLOUR) SELECT 1', '42601');
});

test('EXPLAIN ANALYZE counts row groups skipped by min/max, in this thread and in pool workers', async () => {
  const { createScanPool } = await import('../../src/exec/index.js');
  await run('CREATE TABLE rg (g integer, label text)');
  // 300k sorted rows in one file: three row groups of at most 131072 rows.
  await run(`INSERT INTO rg SELECT g, 'x' || g FROM generate_series(1, 300000) g`);
  const query = 'EXPLAIN ANALYZE SELECT g, label FROM rg WHERE g > 290000';
  const here = (await run(query)).join('\n');
  assert.match(here, /Row Groups: 1 read, 2 skipped \(min\/max 2, key hash 0\)/, here);
  const pool = createScanPool({ threads: 2 });
  try {
    const lines = await pooledSession(pool, 8);
    const there = await lines(query);
    assert.match(there, /Row Groups: 1 read, 2 skipped \(min\/max 2, key hash 0\)/, there);
    assert.match(there, /Actual Rows: 10000/, there);
    const agg = await lines('EXPLAIN ANALYZE SELECT count(*), max(label) FROM rg WHERE g > 290000');
    assert.match(agg, /Partial Aggregate: in scan workers \(1 tasks/, agg);
    assert.match(agg, /Row Groups: 1 read, 2 skipped \(min\/max 2, key hash 0\)/, agg);
  } finally {
    await pool.close();
  }
});

test('EXPLAIN shows a merge cut into key-hash pieces and kept positions; EXPLAIN ANALYZE counts the merges that took them', async () => {
  const { createScanPool } = await import('../../src/exec/index.js');
  await run("CREATE TABLE kv (id integer PRIMARY KEY, v integer) WITH ('self-optimizing.enabled' = 'false')");
  // 300k keys: a hash-ordered base of ten row groups once optimized, so the node's merge is cut in four
  await run('INSERT INTO kv SELECT g, g FROM generate_series(1, 300000) g');
  await run("CALL optimize('kv')");
  await run('UPDATE kv SET v = -v WHERE id % 10 = 0');
  const pool = createScanPool({ threads: 2 });
  try {
    const lines = await pooledSession(pool, 9);
    const planned = await lines('EXPLAIN SELECT sum(v) FROM kv');
    assert.match(planned, /Bucket Nodes: 1 scanned, 0 pruned, 1 merged in key-hash pieces/, planned);
    assert.match(planned, /Merges: 4 tasks merge change rows, 0 with kept positions/, planned);
    const first = await lines('EXPLAIN ANALYZE SELECT sum(v) FROM kv');
    assert.match(first, /Merges: 4 tasks merged change rows, 0 of them by kept positions/, first);
    // the workers' positions reach the planner's thread a moment later
    let again = '';
    for (let i = 0; i < 50 && !/Merges: 4 tasks merged change rows, 4 of them/.test(again); i++) {
      await new Promise((r) => setTimeout(r, 20));
      again = await lines('EXPLAIN ANALYZE SELECT sum(v) FROM kv');
    }
    assert.match(again, /Merges: 4 tasks merged change rows, 4 of them by kept positions/, again);
    const want = String(300000 * 300001 / 2 - 2 * (30000 * 30001 / 2) * 10);
    assert.deepEqual(await lines('SELECT sum(v) FROM kv'), want);
  } finally {
    await pool.close();
  }
});

test('a WITH query read twice runs once for both readers (random() included); read once, it folds into its reader', async () => {
  assert.deepEqual(await run('WITH r AS (SELECT random() AS x) SELECT (a.x = b.x)::text FROM r a, r b'), ['true']);
  assert.deepEqual(await run('WITH r AS (SELECT id FROM dim WHERE id <= 5) SELECT (SELECT count(*) FROM r)::text || \',\' || count(*) FROM r'), ['5,5']);
  const twice = await run('EXPLAIN WITH r AS (SELECT id, name FROM dim WHERE id <= 5) SELECT a.name FROM r a JOIN r b ON a.id = b.id');
  assert.equal(twice.filter((l) => /CTE Scan on r$/.test(l)).length, 2);
  assert.equal(twice.filter((l) => /^\s+CTE r$/.test(l)).length, 1, 'the WITH query\'s plan prints once');
  assert.equal(twice.filter((l) => /Lake Scan on public.dim/.test(l)).length, 1);
  // Its scan ran once: the shared plan's rows are counted once, not per reader.
  const analyzed = nodes(await run('EXPLAIN ANALYZE WITH r AS (SELECT id, name FROM dim WHERE id <= 5) SELECT a.name FROM r a JOIN r b ON a.id = b.id'));
  assert.deepEqual(analyzed.filter((n) => n.name.startsWith('Lake Scan on public.dim')).map((n) => n.rows), [5]);
  assert.deepEqual(analyzed.filter((n) => n.name === 'CTE Scan on r').map((n) => n.rows), [5, 5]);
  // Read once, NOT MATERIALIZED, or MATERIALIZED: as PostgreSQL decides.
  const once = (await run('EXPLAIN WITH r AS (SELECT id FROM dim) SELECT id FROM r WHERE id = 3')).join('\n');
  assert.doesNotMatch(once, /CTE Scan/);
  assert.match(once, /Lake Scan on public.dim\n\s+Columns: id\n\s+Pushed Filters: id = 3/);
  assert.doesNotMatch((await run('EXPLAIN WITH r AS NOT MATERIALIZED (SELECT id FROM dim) SELECT a.id FROM r a, r b')).join('\n'), /CTE Scan/);
  assert.match((await run('EXPLAIN WITH r AS MATERIALIZED (SELECT id FROM dim) SELECT id FROM r')).join('\n'), /CTE Scan on r/);
});

test('a column that a grouped primary key determines may be read ungrouped, as in PostgreSQL; others still fail with 42803', async () => {
  assert.deepEqual(await run("SELECT name || ':' || count(*) FROM dim WHERE id <= 3 GROUP BY id ORDER BY name"), ['n1:1', 'n2:1', 'n3:1']);
  assert.deepEqual(await run("SELECT d.name FROM ev JOIN dim d ON d.id = ev.v GROUP BY d.id HAVING d.name LIKE 'n%' ORDER BY d.name DESC LIMIT 2"), ['n9', 'n8']);
  for (const sql of [
    'SELECT id, count(*) FROM dim GROUP BY name',
    'SELECT region, count(*) FROM ev GROUP BY id',
    'SELECT b.name FROM dim a JOIN dim b ON a.id = b.id GROUP BY a.id',
    'SELECT name FROM dim GROUP BY ROLLUP (id)',
  ]) {
    await assert.rejects(run(sql), (e: unknown) => (e as { sqlstate?: string }).sqlstate === '42803', sql);
  }
});
