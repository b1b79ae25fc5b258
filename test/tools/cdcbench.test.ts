import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { TPCC_TX_KINDS } from '../../src/tools/chbench/tpcc-transactions.js';
import type { CdcBenchReport } from '../../src/tools/cdcbench/cdc-benchmark.js';
import { formatCdcReport, summarizeCdcPeriods } from '../../src/tools/cdcbench/cdc-report.js';
import { CREATE_STAMP_TABLE, FreshnessTracker, readCommitTimes, STAMP_TABLE } from '../../src/tools/cdcbench/commit-stamps.js';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';

describe('bench:cdc freshness tracker', () => {
  it('times a stamp from its COMMIT acknowledgement to the first poll that returned it', () => {
    const t = new FreshnessTracker();
    const a = t.next();
    assert.equal(a.sql, `INSERT INTO ${STAMP_TABLE} (id, stamped_at) VALUES (${a.id}, clock_timestamp())`);
    t.settled(a.id, 1_000);
    assert.equal(t.pending, 1);
    t.seen([a.id], 1_040);
    t.seen([a.id], 1_090); // a later poll returns it again: not a second sample
    assert.deepEqual(t.samples, [{ ackAtMs: 1_000, ms: 40 }]);
    assert.equal(t.pending, 0);
  });

  it('counts a stamp seen before its acknowledgement reached the client as 0 ms', () => {
    const t = new FreshnessTracker();
    const a = t.next();
    t.seen([a.id], 500);
    assert.deepEqual(t.samples, []);
    t.settled(a.id, 510);
    assert.deepEqual(t.samples, [{ ackAtMs: 510, ms: 0 }]);
    assert.equal(t.pending, 0);
  });

  it('asks polls for the lowest stamp still in flight or unseen, and drops failed transactions', () => {
    const t = new FreshnessTracker();
    assert.equal(t.floor(), 1, 'nothing stamped yet: the next id');
    const a = t.next();
    const b = t.next();
    const c = t.next();
    assert.equal(t.floor(), a.id);
    t.settled(a.id, undefined); // its COMMIT failed: never expected on the replica
    assert.equal(t.floor(), b.id);
    t.settled(c.id, 100);
    t.seen([c.id], 130);
    assert.equal(t.floor(), b.id, 'b is still in flight');
    t.settled(b.id, 140);
    assert.equal(t.pending, 1);
    t.seen([b.id, c.id], 160);
    assert.equal(t.floor(), 4);
    assert.deepEqual(t.samples, [{ ackAtMs: 100, ms: 30 }, { ackAtMs: 140, ms: 20 }]);
  });
});

describe('bench:cdc commit times', () => {
  let floe: FloeServer;
  let client: pg.Client;
  before(async () => {
    floe = await startFloe();
    client = new pg.Client({ connectionString: floe.url });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await floe?.stop();
  });

  it("times each stamp from its time on the source to the commit of the Floe snapshot that added it", async () => {
    await client.query(CREATE_STAMP_TABLE);
    // As a replicated row arrives: stamped on the source a while before Floe commits it.
    await client.query(`INSERT INTO ${STAMP_TABLE} VALUES (1, clock_timestamp() - interval '3 seconds')`);
    await client.query(`INSERT INTO ${STAMP_TABLE} VALUES (2, clock_timestamp())`);
    await client.query(`UPDATE ${STAMP_TABLE} SET stamped_at = stamped_at WHERE id = 2`); // not a new stamp
    const before = Date.now();
    const got = await readCommitTimes(client);
    assert.equal(got.length, 2);
    const [early, late] = [...got].sort((a, b) => a.stampedAtMs - b.stampedAtMs);
    assert.ok(early!.ms >= 3_000 && early!.ms < 3_000 + 10_000, `stamped 3 s before its commit: ${early!.ms} ms`);
    assert.ok(late!.ms >= 0 && late!.ms < 10_000, `${late!.ms} ms`);
    assert.ok(late!.stampedAtMs <= before && late!.stampedAtMs > before - 60_000);
  });
});

describe('bench:cdc report', () => {
  const period = (p: number) => ({
    period: p, committed: Object.fromEntries(TPCC_TX_KINDS.map((k) => [k, 10])), retried: 0, failed: 0, missed: 0, files: [], optimizer: [],
  });
  const report = {
    options: { warehouses: 1, txRate: 2, clients: 1, periods: 2, periodMs: 60_000, queryTimeoutMs: 1000, pollMs: 50, optimizerThreads: 1, queries: [1] },
    scale: { warehouses: 1, items: 10, customersPerDistrict: 10, ordersPerDistrict: 10 },
    machine: 'test box', date: '2026-12-04T00:00:00.000Z', source: 'test', sourceLoadSeconds: 1,
    copy: { rows: 100_000, seconds: 1 },
    stream: { startedAt: '2026-12-04T00:00:00.000Z', samples: [{ query: 1, period: 0, at: 0, ms: 10 }, { query: 1, period: 1, at: 70_000, ms: 12 }], periods: [period(0), period(1)], errors: {} },
    // P1 commits within 100 ms, P2's slowest takes 1.5 s; the poller saw them all later still.
    committed: [{ stampedAtMs: 1_000, ms: 50 }, { stampedAtMs: 2_000, ms: 100 }, { stampedAtMs: 61_000, ms: 80 }, { stampedAtMs: 62_000, ms: 1_500 }],
    freshness: [{ ackAtMs: 1_000, ms: 900 }, { ackAtMs: 61_000, ms: 2_000 }],
    unseen: 0, catchUpSeconds: 0, sourceSamples: [], peer: [{ query: 1, ms: 20 }],
    counts: [{ table: STAMP_TABLE, source: 4, floe: 4 }],
  } as unknown as CdcBenchReport;

  it("judges freshness on the Floe commits, per the commit's period, and shows the poller's figure beside it", () => {
    const [p1, p2] = summarizeCdcPeriods(report);
    assert.deepEqual(p1!.committed, { n: 2, p50: 50, p99: 100, max: 100 });
    assert.deepEqual(p2!.committed, { n: 2, p50: 80, p99: 1_500, max: 1_500 });
    assert.equal(p1!.seen.p99, 900);
    assert.equal(p2!.seen.p99, 2_000);
    const text = formatCdcReport(report);
    assert.match(text, /freshness p99 ≤ 1000 ms in every period +\| +1500 ms \(worst period\) +\| +MISSED/);
    const fast = { ...report, committed: report.committed.filter((c) => c.ms < 1_000) } as CdcBenchReport;
    assert.match(formatCdcReport(fast), /freshness p99 ≤ 1000 ms in every period +\| +100 ms \(worst period\) +\| +met/);
  });
});
