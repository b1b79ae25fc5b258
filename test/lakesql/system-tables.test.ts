import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runPsql } from '../harness/run-psql.js';
import { startLakeSqlGateway } from './lake-sql-gateway.js';
import type { LakeSqlGateway } from './lake-sql-gateway.js';

describe('lakehouse system tables over the wire', () => {
  let g: LakeSqlGateway;
  before(async () => {
    g = await startLakeSqlGateway();
    // Each statement is one commit; the tests below check the system tables against this list.
    // Not tiered while the test runs: t$files is checked file by file.
    await g.run("CREATE TABLE t (id int PRIMARY KEY, v text) WITH ('log.tier-interval' = '1h')");
    await g.run("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
    await g.run("UPDATE t SET v = 'bb' WHERE id = 2");
    await g.run('DELETE FROM t WHERE id = 1');
    await g.run("INSERT INTO t VALUES (3, 'c')");
    await g.run('CREATE TABLE other (k int)');
  });
  after(async () => { await g?.stop(); });

  test('t$snapshots lists every commit with its parent, operation, summary and seq', async () => {
    const rows = await g.rows('SELECT snapshot_id, parent_id, operation, seq, branch, summary::text FROM t$snapshots ORDER BY snapshot_id');
    assert.equal(rows.length, 5, 'create + 4 writes');
    assert.equal(rows[0]![2], 'create');
    assert.equal(rows[0]![1], null);
    for (let i = 1; i < rows.length; i++) {
      assert.equal(rows[i]![1], rows[i - 1]![0], 'each parent is the previous snapshot');
      assert.equal(rows[i]![2], 'write');
      assert.equal(rows[i]![4], 'main');
      assert.ok(Number(rows[i]![3]) > (i > 1 ? Number(rows[i - 1]![3]) : 0), 'seq grows with each write');
      assert.equal(JSON.parse(rows[i]![5]!).seq, rows[i]![3]);
    }
    const cols = await g.client.query('SELECT * FROM t$snapshots LIMIT 0');
    assert.deepEqual(cols.fields.map((f) => f.name), ['snapshot_id', 'parent_id', 'committed_at', 'operation', 'summary', 'seq', 'branch']);
    const [[ordered]] = await g.rows('SELECT bool_and(committed_at IS NOT NULL) FROM t$snapshots');
    assert.equal(ordered, 't');
  });

  test('t$audit_log holds every change row with its type, seq and commit snapshot, in commit order', async () => {
    const rows = await g.rows('SELECT id, v, _change_type, _commit_snapshot_id FROM t$audit_log');
    const snaps = (await g.rows('SELECT snapshot_id FROM t$snapshots ORDER BY snapshot_id')).map((r) => r[0]);
    assert.deepEqual(rows.map((r) => r.slice(0, 3)), [
      ['1', 'a', 'INSERT'], ['2', 'b', 'INSERT'],
      ['2', 'b', 'UPDATE_BEFORE'], ['2', 'bb', 'UPDATE_AFTER'],
      ['1', null, 'DELETE'],
      ['3', 'c', 'INSERT'],
    ]);
    assert.deepEqual(rows.map((r) => r[3]), [snaps[1], snaps[1], snaps[2], snaps[2], snaps[3], snaps[4]]);
    const seqs = await g.rows('SELECT DISTINCT a._seq, s.seq FROM t$audit_log a JOIN t$snapshots s ON s.snapshot_id = a._commit_snapshot_id');
    for (const [a, s] of seqs) assert.equal(a, s, "a change row's _seq is its commit's seq");
    // Ordinary SQL over it: filters and aggregates.
    assert.deepEqual(await g.rows("SELECT _change_type, count(*) FROM t$audit_log GROUP BY 1 ORDER BY 1"),
      [['DELETE', '1'], ['INSERT', '3'], ['UPDATE_AFTER', '1'], ['UPDATE_BEFORE', '1']]);
  });

  test('t$files and t$buckets describe the live files and the node tree', async () => {
    const files = await g.rows("SELECT store, record_count, seq, added_snapshot_id, bucket_node, file_path LIKE '%.parquet' OR file_path LIKE 'log/%.wal#%+%', file_size_in_bytes > 0 FROM t$files ORDER BY seq");
    assert.equal(files.length, 4, 'one change file per write (a Parquet file, or a log file: a range of a log segment)');
    for (const f of files) {
      assert.equal(f[0], 'change');
      assert.equal(f[4], '0/0', 'one root node');
      assert.equal(f[5], 't');
      assert.equal(f[6], 't');
    }
    assert.deepEqual(files.map((f) => f[1]), ['2', '2', '1', '1']);
    const [[lo, hi]] = await g.rows("SELECT lower_bounds->>'id', upper_bounds->>'id' FROM t$files ORDER BY seq LIMIT 1");
    assert.deepEqual([lo, hi], ['1', '2']);
    const buckets = await g.rows('SELECT bucket_node, depth, is_frontier, pending_change_files, pending_change_rows, base_files FROM t$buckets');
    assert.deepEqual(buckets, [['0/0', '0', 't', '4', '6', '0']]);
  });

  test('a partitioned table: t$files and t$buckets name each partition by field', async () => {
    await g.run('CREATE TABLE pt (id int, r text, ts timestamptz, PRIMARY KEY (id, r, ts)) PARTITION BY (r, day(ts))');
    await g.run("INSERT INTO pt VALUES (1, 'eu', '2024-01-01 10:00+00'), (2, 'us', '2024-01-02 10:00+00'), (3, 'us', '2024-01-02 11:00+00')");
    assert.deepEqual(await g.rows("SELECT partition->>'r', partition->>'ts_day', record_count FROM pt$files ORDER BY 1"),
      [['eu', '19723', '1'], ['us', '19724', '2']]);
    assert.deepEqual(await g.rows("SELECT partition::text, pending_change_rows FROM pt$buckets ORDER BY 1"),
      [['{"r": "eu", "ts_day": 19723}', '1'], ['{"r": "us", "ts_day": 19724}', '2']]);
  });

  test('t$refs, t$branches and t$tags follow ALTER TABLE … CREATE/DROP BRANCH|TAG', async () => {
    const [[second]] = await g.rows('SELECT snapshot_id FROM t$snapshots ORDER BY snapshot_id OFFSET 1 LIMIT 1');
    await g.run(`ALTER TABLE t CREATE TAG v1 AS OF VERSION ${second} RETAIN 2 DAYS`);
    await g.run('ALTER TABLE t CREATE BRANCH dev');
    const [[head]] = await g.rows('SELECT max(snapshot_id) FROM t$snapshots');
    assert.deepEqual(await g.rows('SELECT name, type, snapshot_id, retain_ms FROM t$refs'), [
      ['dev', 'BRANCH', head, null], ['main', 'BRANCH', head, null], ['v1', 'TAG', second, String(2 * 86_400_000)],
    ]);
    assert.deepEqual(await g.rows('SELECT branch_name, snapshot_id FROM t$branches'), [['dev', head], ['main', head]]);
    assert.deepEqual(await g.rows('SELECT tag_name, snapshot_id, committed_at = (SELECT committed_at FROM t$snapshots WHERE snapshot_id = t$tags.snapshot_id) FROM t$tags'),
      [['v1', second, 't']]);
    await g.run('ALTER TABLE t DROP BRANCH dev');
    await g.run('ALTER TABLE t DROP TAG v1');
    assert.deepEqual(await g.rows('SELECT name FROM t$refs'), [['main']]);
  });

  test('t$branch_b$files, $buckets and $audit_log describe a branch', async () => {
    await g.run('ALTER TABLE t CREATE BRANCH side');
    await g.run("INSERT INTO t$branch_side VALUES (50, 'side')");
    const [[mainFiles]] = await g.rows('SELECT count(*) FROM t$files');
    const [[sideFiles]] = await g.rows('SELECT count(*) FROM t$branch_side$files');
    assert.equal(Number(sideFiles), Number(mainFiles) + 1);
    assert.deepEqual(await g.rows('SELECT id, v, _change_type FROM t$branch_side$audit_log ORDER BY _seq DESC LIMIT 1'), [['50', 'side', 'INSERT']]);
    assert.deepEqual(await g.rows("SELECT count(*) FROM t$audit_log WHERE v = 'side'"), [['0']]);
    assert.deepEqual(await g.rows('SELECT sum(pending_change_files) FROM t$branch_side$buckets'), [[sideFiles]]);
    const sideLine = await g.rows('SELECT snapshot_id FROM t$branch_side$snapshots ORDER BY 1');
    assert.deepEqual(sideLine.slice(0, -1), await g.rows('SELECT snapshot_id FROM t$snapshots WHERE branch = \'main\' ORDER BY 1'));
    assert.deepEqual(await g.rows('SELECT branch FROM t$branch_side$snapshots ORDER BY snapshot_id DESC LIMIT 1'), [['side']]);
    assert.equal((await g.failure('SELECT * FROM t$branch_nosuch$files')).code, '42704');
    await g.run('ALTER TABLE t DROP BRANCH side');
  });

  test('system tables of a table without commits are empty, and unknown ones are 42P01', async () => {
    assert.deepEqual(await g.rows('SELECT count(*) FROM other$audit_log'), [['0']]);
    assert.deepEqual(await g.rows('SELECT count(*) FROM other$files'), [['0']]);
    assert.deepEqual(await g.rows('SELECT operation FROM other$snapshots'), [['create']]);
    assert.equal((await g.failure('SELECT * FROM nosuch$snapshots')).code, '42P01');
    assert.equal((await g.failure('SELECT * FROM t$nonsense')).code, '42P01');
    assert.equal((await g.failure('SELECT * FROM pg_catalog.t$snapshots')).code, '42P01');
    assert.deepEqual(await g.rows("SELECT count(*) FROM public.t$snapshots WHERE branch = 'main'"), [['5']]);
  });

  test('system tables are kept out of pg_class and information_schema, so \\dt lists only tables', async () => {
    assert.deepEqual(await g.rows("SELECT count(*) FROM pg_class WHERE relname LIKE '%$%'"), [['0']]);
    assert.deepEqual(await g.rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1"), [['other'], ['pt'], ['t']]);
    const r = await runPsql(g.server, ['-A', '-t', '-c', '\\dt']);
    assert.equal(r.code, 0, r.stderr);
    // psql is shown a table with a partition spec as a partitioned table, so that \d prints its "Partition key:".
    assert.deepEqual(r.stdout.trim().split('\n'), ['public|other|table|floe', 'public|pt|partitioned table|floe', 'public|t|table|floe']);
    const s = await runPsql(g.server, ['-A', '-c', 'SELECT snapshot_id, operation FROM t$snapshots ORDER BY 1 LIMIT 1']);
    assert.equal(s.code, 0, s.stderr);
    assert.match(s.stdout, /^snapshot_id\|operation\n\d+\|create\n\(1 row\)/);
  });
});
