import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { chQueries, CH_QUERIES } from '../../src/tools/chbench/ch-queries.js';
import { loadChBenchmark } from '../../src/tools/chbench/chbench-loader.js';
import { DuckDbPeer } from '../../src/tools/chbench/duckdb-peer.js';
import { TpccGenerator, tpccScale } from '../../src/tools/chbench/tpcc-generator.js';
import type { ChValue } from '../../src/tools/chbench/tpcc-generator.js';
import { lastName, TpccRandom } from '../../src/tools/chbench/tpcc-random.js';
import { chTable } from '../../src/tools/chbench/tpcc-schema.js';
import type { ChTableName } from '../../src/tools/chbench/tpcc-schema.js';
import { runTpccTransaction, TPCC_TX_KINDS } from '../../src/tools/chbench/tpcc-transactions.js';
import type { TxOutcome } from '../../src/tools/chbench/tpcc-transactions.js';
import { readTableFiles } from '../../src/tools/chbench/table-files.js';
import { runChStream } from '../../src/tools/chbench/chbench-driver.js';
import { runTextQuery } from '../../src/tools/tpch/wire-query.js';
import { CREATE_STAMP_TABLE, FreshnessTracker, pollStamps, STAMP_TABLE } from '../../src/tools/cdcbench/commit-stamps.js';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';

const TINY = tpccScale(1, { items: 1_000, customersPerDistrict: 100, ordersPerDistrict: 100 });
const LOAD_TIME = Date.UTC(2026, 0, 15, 12, 0, 0);

function tablesOf(gen: TpccGenerator): Map<ChTableName, ChValue[][]> {
  const out = new Map<ChTableName, ChValue[][]>();
  for (const b of gen.batches(500)) {
    const rows = out.get(b.table) ?? [];
    rows.push(...b.rows.map((r) => [...r]));
    out.set(b.table, rows);
  }
  return out;
}

const col = (table: ChTableName, name: string) => chTable(table).columns.findIndex((c) => c.name === name);

describe('CH-benCHmark generator (W=1, scaled down)', () => {
  const tables = tablesOf(new TpccGenerator(TINY, { loadTimeMs: LOAD_TIME }));

  it('produces TPC-C cardinalities for the scale, and TPC-H nation, region and supplier', () => {
    const counts = Object.fromEntries([...tables].map(([t, rows]) => [t, rows.length]));
    const lines = tables.get('orders')!.reduce((s, o) => s + Number(o[col('orders', 'o_ol_cnt')]), 0);
    assert.deepEqual(counts, {
      region: 5, nation: 25, supplier: 10_000, item: 1_000, warehouse: 1, district: 10, customer: 1_000, history: 1_000,
      orders: 1_000, new_order: 300, order_line: lines, stock: 1_000,
    });
    for (const [t, rows] of tables) for (const r of rows) assert.equal(r.length, chTable(t).columns.length, t);
  });

  it('keeps every primary key unique', () => {
    for (const [t, rows] of tables) {
      const key = chTable(t).primaryKey.map((k) => col(t, k));
      const seen = new Set(rows.map((r) => key.map((k) => r[k]).join('/')));
      assert.equal(seen.size, rows.length, t);
    }
  });

  it("follows TPC-C's distributions", () => {
    assert.equal(lastName(0), 'BARBARBAR');
    assert.equal(lastName(371), 'PRICALLYOUGHT'); // the specification's example (clause 4.3.2.3)
    const customers = tables.get('customer')!;
    const district1 = customers.filter((c) => c[col('customer', 'c_d_id')] === 1);
    assert.equal(new Set(district1.map((c) => c[col('customer', 'c_last')])).size, 100, 'the first customers take distinct generated names');
    const bad = customers.filter((c) => c[col('customer', 'c_credit')] === 'BC').length / customers.length;
    assert.ok(bad > 0.05 && bad < 0.15, `10% bad credit, got ${bad}`);
    const original = tables.get('item')!.filter((i) => String(i[col('item', 'i_data')]).includes('ORIGINAL')).length / 1_000;
    assert.ok(original > 0.05 && original < 0.15, `10% ORIGINAL, got ${original}`);
    const delivered = tables.get('orders')!.filter((o) => o[col('orders', 'o_carrier_id')] !== null).length;
    assert.equal(delivered, 700, 'the first 70% of each district\'s orders are delivered');
    for (const o of tables.get('orders')!) {
      const n = Number(o[col('orders', 'o_ol_cnt')]);
      assert.ok(n >= 5 && n <= 15);
    }
    // NURand(1023, 1, 300) is skewed: its most frequent id is drawn far more often than uniform's 1/300.
    const r = new TpccRandom('test');
    const hits = new Map<number, number>();
    for (let i = 0; i < 30_000; i++) {
      const c = r.customerId(300);
      assert.ok(c >= 1 && c <= 300);
      hits.set(c, (hits.get(c) ?? 0) + 1);
    }
    assert.ok(Math.max(...hits.values()) > 3 * 100, 'NURand is non-uniform');
  });
});

/** Text rows in a canonical order, numbers rounded and char(n) padding trimmed, so engines compare. */
function canonical(rows: readonly (readonly (string | null)[])[]): string[] {
  return rows.map((r) => r.map((v) => {
    if (v === null) return 'NULL';
    const t = v.trim();
    const n = Number(t);
    return t !== '' && Number.isFinite(n) ? n.toPrecision(9) : t;
  }).join('|')).sort();
}

describe('CH-benCHmark on Floe and DuckDB (tiny load)', () => {
  let floe: FloeServer;
  let peer: DuckDbPeer;

  before(async () => {
    floe = await startFloe();
    peer = await DuckDbPeer.create();
    await loadChBenchmark(floe.url, new TpccGenerator(TINY, { loadTimeMs: LOAD_TIME }), { onBatch: (b) => peer.load(b) });
  });

  after(async () => {
    peer?.close();
    await floe?.stop();
  });

  it('runs every CH query (Q15 through the view revenue0) on both, with the same answers', async () => {
    assert.deepEqual(CH_QUERIES.filter((q) => q.sql === undefined).map((q) => q.number), []);
    const queries = chQueries();
    assert.equal(queries.length, 22);
    const differ: string[] = [];
    for (const q of queries) {
      const f = await runTextQuery(floe.url, q.sql!, 120_000);
      const d = await peer.query(q.sql!);
      if (JSON.stringify(canonical(f.rows)) !== JSON.stringify(canonical(d.rows))) {
        differ.push(`${q.name}: Floe ${f.rows.length} rows ${JSON.stringify(canonical(f.rows).slice(0, 3))}, DuckDB ${d.rows.length} rows ${JSON.stringify(canonical(d.rows).slice(0, 3))}`);
      }
    }
    assert.deepEqual(differ, []);
  });

  it('commits one of each TPC-C transaction, and the peer replays their writes', async () => {
    const client = new pg.Client({ connectionString: floe.url });
    await client.connect();
    try {
      let history = 1_000_000;
      const ctx = { scale: TINY, random: new TpccRandom('tx-test'), nextHistoryId: () => ++history, now: () => LOAD_TIME + 60_000 };
      const count = async (sql: string) => Number((await client.query(sql)).rows[0].n);
      const ordersBefore = await count('SELECT count(*) AS n FROM orders');
      const outcomes: TxOutcome[] = [];
      for (const kind of TPCC_TX_KINDS) {
        let out = await runTpccTransaction(kind, client, ctx);
        while (out.rolledBack) out = await runTpccTransaction(kind, client, ctx); // New-Order's 1% by design
        outcomes.push(out);
        await peer.apply(out.writes);
      }
      const writes = Object.fromEntries(outcomes.map((o) => [o.kind, o.writes.length]));
      assert.ok(writes['new-order']! >= 4 && writes.payment! === 4 && writes.delivery! >= 10, JSON.stringify(writes));
      assert.equal(writes['order-status'], 0);
      assert.equal(writes['stock-level'], 0);
      assert.equal(await count('SELECT count(*) AS n FROM orders'), ordersBefore + 1);
      assert.equal(await count('SELECT count(*) AS n FROM history'), 1_001);
      assert.equal(await count('SELECT count(*) AS n FROM new_order'), 300 + 1 - 10, 'New-Order added one, Delivery took one per district');
      // Both engines hold the same state after the same transactions.
      for (const sql of ['SELECT d_id, d_next_o_id, d_ytd FROM district', 'SELECT count(*), sum(ol_amount), count(ol_delivery_d) FROM order_line', 'SELECT sum(c_balance), sum(c_payment_cnt), sum(c_delivery_cnt) FROM customer', 'SELECT sum(s_quantity), sum(s_ytd), sum(s_order_cnt) FROM stock']) {
        assert.deepEqual(canonical((await runTextQuery(floe.url, sql, 60_000)).rows), canonical((await peer.query(sql)).rows), sql);
      }
    } finally {
      await client.end();
    }
  });

  it("reads every table's files and read amplification", async () => {
    const files = await readTableFiles(floe.url);
    assert.equal(files.length, 12);
    for (const f of files) {
      assert.ok(f.baseFiles + f.changeFiles >= 1, `${f.table} has files`);
      assert.ok(f.readAmplification >= 0 && f.readAmplification <= f.baseFiles + f.changeFiles, `${f.table}: ${JSON.stringify(f)}`);
      assert.ok(f.readAmplificationMax > 0);
    }
    const district = files.find((f) => f.table === 'district')!;
    if (district.source === 't$buckets') assert.ok(district.readAmplification >= 2, 'the load and the transactions each left a change file');
  });

  it('stamps each committed writing transaction, and a poller times when it becomes visible (bench:cdc)', async () => {
    await runTextQuery(floe.url, CREATE_STAMP_TABLE, 60_000);
    const tracker = new FreshnessTracker();
    const poller = pollStamps(floe.url, tracker, 20);
    let stream;
    try {
      // The transactions and the poller use the same server here; bench:cdc points txUrl at the PostgreSQL source.
      stream = await runChStream({
        url: floe.url, txUrl: floe.url, stamps: tracker, scale: TINY, txRate: 6, clients: 2, periods: 1, periodMs: 3_000, queries: chQueries([6]),
        queryTimeoutMs: 60_000, firstHistoryId: 3_000_000, seed: 'stamp-test',
      });
      const deadline = Date.now() + 10_000;
      while (tracker.pending > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await poller.stop();
    }
    const c = stream.periods[0]!.committed;
    assert.ok(c['new-order'] + c.payment + c.delivery >= 1, JSON.stringify(c));
    const stamped = Number((await runTextQuery(floe.url, `SELECT count(*) FROM ${STAMP_TABLE}`, 60_000)).rows[0]![0]);
    // Only writing transactions stamp (not Order-Status, Stock-Level or New-Order's rollbacks); each was seen once.
    assert.equal(stamped, stream.writeLog.length);
    assert.equal(tracker.samples.length, stamped);
    assert.equal(tracker.pending, 0);
    for (const s of tracker.samples) assert.ok(s.ms >= 0 && s.ms < 10_000, JSON.stringify(s));
  });

  it('keeps each measured query\'s EXPLAIN ANALYZE plan when asked, with what its scans read', async () => {
    const stream = await runChStream({
      url: floe.url, scale: TINY, txRate: 2, clients: 1, periods: 1, periodMs: 1_500, queries: chQueries([6]),
      queryTimeoutMs: 60_000, firstHistoryId: 2_000_000, seed: 'explain-test', explainAnalyze: true,
    });
    const ok = stream.samples.filter((s) => s.error === undefined);
    assert.ok(ok.length >= 1, JSON.stringify(stream.samples));
    for (const s of ok) {
      assert.match(s.plan ?? '', /Lake Scan .*order_line/, s.plan);
      assert.match(s.plan ?? '', /actual time=/);
      assert.match(s.plan ?? '', /Row Groups: \d+ read/);
    }
  });
});
