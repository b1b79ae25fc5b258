import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { KeyedTable } from '../../src/tools/commitbench/keyed-table.js';
import { percentile } from '../../src/tools/commitbench/latency-stats.js';
import { historyWindows } from '../../src/tools/commitbench/single-row-commits.js';
import { waitForQuietProcess } from '../../src/tools/commitbench/wait-for-quiet-process.js';
import { spawn } from 'node:child_process';
import { runCommitBenchmark } from '../../src/tools/commitbench/commitbench-benchmark.js';
import { formatCommitReport } from '../../src/tools/commitbench/commitbench-report.js';
import { COMMIT_MEASURES } from '../../src/tools/commitbench/commit-figure.js';
import { startPostgresCluster } from '../../src/tools/pg/postgres-cluster.js';

describe('commit benchmark pieces', () => {
  it('cuts history into windows ending at 10, 100, 1,000, 10,000 commits and at the last', () => {
    assert.deepEqual(historyWindows(20), [10, 20]);
    assert.deepEqual(historyWindows(100), [10, 100]);
    assert.deepEqual(historyWindows(2_000), [10, 100, 1_000, 2_000]);
    assert.deepEqual(historyWindows(5), [5]);
  });

  it('takes percentiles by nearest rank', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
    assert.equal(percentile(samples, 0.5), 50);
    assert.equal(percentile(samples, 0.99), 99);
    assert.equal(percentile([7], 0.99), 7);
    assert.ok(Number.isNaN(percentile([], 0.5)));
  });

  it('waits for a process to go quiet: a sleeping child is; a pid that does not exist is not waited for', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const idle = await waitForQuietProcess(child.pid!, { windowMs: 200, maxMs: 20_000 });
      assert.equal(idle.quiet, true);
    } finally {
      child.kill('SIGKILL');
    }
    assert.deepEqual(await waitForQuietProcess(2 ** 30), { ms: 0, quiet: false });
  });

  it('knows what the keyed table should read after upserts and updates', () => {
    const t = new KeyedTable(1_000, { engine: 'floe', url: '' }, undefined, undefined);
    assert.deepEqual(t.expected(5), { id: 5, v: 15, s: 'r5' });
    t.markUpserted((id) => id % 100 === 1);
    t.markBumped((id) => id % 100 >= 91);
    assert.deepEqual(t.expected(101), { id: 101, v: -101, s: 'u101' });
    assert.deepEqual(t.expected(95), { id: 95, v: 286, s: 'r95' });
    let sum = 0n;
    for (let id = 0; id < 1_000; id++) sum += BigInt(t.expected(id).v);
    assert.deepEqual(t.expectedCountAndSum(), { count: 1_000, sum });
  });
});

describe('a PostgreSQL cluster of the bench\'s own (fsync on)', () => {
  it('keeps a committed row through an immediate stop and restart', async () => {
    const cluster = await startPostgresCluster({ durable: true });
    try {
      const query = async (sql: string) => {
        const c = new pg.Client({ connectionString: cluster.adminUrl });
        await c.connect();
        try {
          return (await c.query(sql)).rows;
        } finally {
          await c.end();
        }
      };
      assert.deepEqual(await query('SHOW fsync'), [{ fsync: 'on' }]);
      assert.deepEqual(await query('SHOW synchronous_commit'), [{ synchronous_commit: 'on' }]);
      await query('CREATE TABLE k (id int PRIMARY KEY)');
      await query('INSERT INTO k VALUES (42)');
      await cluster.crash();
      await cluster.start();
      assert.deepEqual(await query('SELECT id FROM k'), [{ id: 42 }]);
    } finally {
      await cluster.stop();
    }
  });
});

describe('npm run bench:commit at tiny sizes', () => {
  it('runs every measure on Floe and its peers, with numbers and the same answers', async () => {
    const lines: string[] = [];
    const report = await runCommitBenchmark({
      commits: 20, clients: 2, seconds: 1, rounds: 10,
      rows: 1_000, reads: 20, upsertBatch: 5,
      replayRows: 200, replayTxnRows: 50,
      postgresUrl: process.env.FLOE_TEST_PG_URL || undefined,
      log: (l) => lines.push(l),
    });
    assert.deepEqual(report.mismatches, [], 'every engine reads what was written');
    assert.deepEqual([...new Set(report.figures.map((f) => f.measure))], [...COMMIT_MEASURES]);
    for (const f of report.figures) assert.ok(f.floe !== undefined && Number.isFinite(f.floe) && f.floe >= 0, `${f.what}: ${f.floe}`);
    const of = (measure: string) => report.figures.filter((f) => f.measure === measure);
    // PostgreSQL beside every wire measure; DuckDB beside the point reads and scans.
    for (const m of ['insert', 'concurrent', 'gateways', 'visibility', 'point-read']) {
      assert.ok(of(m).some((f) => f.postgres !== undefined && f.postgres > 0), `${m} has a PostgreSQL figure`);
    }
    for (const m of ['point-read', 'scan']) assert.ok(of(m).some((f) => f.duckdb !== undefined && f.duckdb > 0), `${m} has a DuckDB figure`);
    if (process.env.FLOE_TEST_PG_URL === undefined || process.env.FLOE_TEST_PG_URL === '') {
      assert.ok(of('replay')[0]!.postgres! > 0, 'PostgreSQL crash recovery timed on the bench\'s own cluster');
    }
    // Measure 1: two windows (1–10, 11–20), each with Floe's file and snapshot counts.
    assert.deepEqual(of('insert').filter((f) => f.unit === 'snapshots').map((f) => f.floe! >= 10), [true, true]);
    assert.equal(report.samples.filter((s) => s.measure === 'insert' && s.engine === 'floe').reduce((n, s) => n + s.values.length, 0), 20);
    assert.ok(report.notes.some((n) => /point-read: Floe's table before the reads: \d+ base \+ [1-9]\d* change files/.test(n)), 'the point reads ran with change files pending');
    // Measure 2 on Linux: the gateway's main-thread CPU a commit, Floe's alone (PostgreSQL has no one thread to read).
    if (process.platform === 'linux') {
      const cpu = of('concurrent').find((f) => /main-thread CPU a commit/.test(f.what));
      assert.ok(cpu !== undefined && cpu.unit === 'µs' && cpu.floe! > 0 && cpu.postgres === undefined, JSON.stringify(cpu));
    }
    // Two gateways on one warehouse: its own figures, and every acknowledged commit there (the mismatches above).
    assert.ok(of('gateways').some((f) => /two gateways, 1 client each/.test(f.what) && f.floe! > 0));
    const text = formatCommitReport(report);
    assert.match(text, /\| measure +\| unit +\| +Floe \| PostgreSQL \| +DuckDB \|/);
    assert.match(text, /Answers: every engine read what was written/);
  });
});
