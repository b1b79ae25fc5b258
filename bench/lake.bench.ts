/**
 * `npm run bench:lake`: the table format's speed beside DuckDB doing the same work in
 * the same process (issue 2). Not a test: it prints a table and asserts nothing.
 *
 *  - upsert throughput, batches of 1k and of 100k rows, into a 1M-key table
 *    (one transaction per batch; keys drawn from the existing 1M, so every row replaces one)
 *    peer: INSERT OR REPLACE into a DuckDB table with a PRIMARY KEY (rows appended to a
 *    staging table first, timed too)
 *  - full merge-on-read scan, rows/s, with pending change files (after the upserts) and
 *    without (after optimize): every column decoded into Arrow batches
 *    peer, with pending: a scan of DuckDB's own table after the same upserts;
 *    peer, without: a scan of Floe's optimized base Parquet files through read_parquet.
 *    DuckDB aggregates over every column (so each is decoded) rather than
 *    materializing rows into JavaScript.
 *  - point read by full primary key, p50 and p99 (plan + execute, one key at a time)
 *    peer: a prepared SELECT … WHERE id = $1 on DuckDB's PRIMARY KEY table
 *
 *  - INSERT of 1M new keys into a 10M-row keyed table with the primary-key check
 *    (bench-checked-insert.ts), peer: INSERT into a DuckDB PRIMARY KEY table
 *
 * Both sides run on one thread (DuckDB `SET threads = 1`; Floe's scan tasks run
 * sequentially on the main thread). Env: FLOE_BENCH_KEYS (default 1000000);
 * FLOE_BENCH_PK_BASE / FLOE_BENCH_PK_NEW size the checked-insert section, and
 * FLOE_BENCH_PK_ONLY=1 runs that section alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, DuckDBTimestampTZValue } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { executeScanTask, openWarehouse } from '../src/lake/index.js';
import type { ScanRequest, TableMetadata, Warehouse } from '../src/lake/index.js';
import { benchCheckedInsert } from './bench-checked-insert.js';

const KEYS = Number(process.env['FLOE_BENCH_KEYS'] ?? 1_000_000);
const LOAD_BATCH = 100_000;
const SMALL = { batch: 1_000, batches: 50 };
const LARGE = { batch: 100_000, batches: 3 };
const POINT_READS = 200;

interface Rows { id: bigint[]; name: string[]; qty: number[]; price: number[]; ts: bigint[] }

/** Deterministic pseudo-random numbers, so both engines get the same rows. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    s = (s ^ (s >>> 12)) >>> 0;
    return s / 4294967296;
  };
}

function makeRows(ids: bigint[], version: number, rand: () => number): Rows {
  return {
    id: ids,
    name: ids.map((id) => `customer-${id}-v${version}`),
    qty: ids.map(() => Math.floor(rand() * 1000)),
    price: ids.map(() => Math.round(rand() * 1e6) / 100),
    ts: ids.map((id) => 1_700_000_000_000_000n + id * 1000n + BigInt(version)),
  };
}

const columnsOf = (r: Rows) => [r.id, r.name, r.qty, r.price, r.ts];

async function floeUpsert(wh: Warehouse, t: TableMetadata, rows: Rows): Promise<void> {
  const tx = await wh.begin();
  await tx.upsert(t, 'main', columnsOf(rows));
  await tx.commit();
}

async function floeScan(wh: Warehouse, req: ScanRequest): Promise<number> {
  const plan = await wh.planScan(req);
  let n = 0;
  for (const task of plan.tasks) for await (const b of executeScanTask(task)) n += b.numRows;
  return n;
}

/** A point read as the executor would do it: the scan, then the key filter wherever pushdown was not exact. */
async function floePointRead(wh: Warehouse, table: TableMetadata, key: bigint): Promise<number> {
  const plan = await wh.planScan({ table, filters: [{ column: 'id', op: '=', value: key }] });
  let n = 0;
  for (const task of plan.tasks) {
    for await (const b of executeScanTask(task)) {
      if (plan.pushdown[0] === 'exact') { n += b.numRows; continue; }
      const ids = b.getChild('id')!.data[0]!.values as BigInt64Array;
      for (let i = 0; i < b.numRows; i++) if (ids[i] === key) n++;
    }
  }
  return n;
}

async function duckAppend(conn: DuckDBConnection, table: string, rows: Rows): Promise<void> {
  const app = await conn.createAppender(table);
  for (let i = 0; i < rows.id.length; i++) {
    app.appendBigInt(rows.id[i]!);
    app.appendVarchar(rows.name[i]!);
    app.appendInteger(rows.qty[i]!);
    app.appendDouble(rows.price[i]!);
    app.appendTimestampTZ(new DuckDBTimestampTZValue(rows.ts[i]!));
    app.endRow();
  }
  app.closeSync();
}

async function duckUpsert(conn: DuckDBConnection, rows: Rows): Promise<void> {
  await conn.run('DELETE FROM staging');
  await duckAppend(conn, 'staging', rows);
  await conn.run('INSERT OR REPLACE INTO t SELECT * FROM staging');
}

const SCAN_ALL = (from: string) =>
  `SELECT count(*), min(id), max(name), sum(qty), sum(price), max(ts) FROM ${from}`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

interface Line { what: string; unit: string; ours: number; peer: number; higherIsBetter: boolean }
const lines: Line[] = [];

function report(): void {
  const fmt = (x: number) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(2));
  const rows = lines.map((l) => Number.isNaN(l.peer)
    ? [l.what, l.unit, fmt(l.ours), '—', '—']
    : [l.what, l.unit, fmt(l.ours), fmt(l.peer), `${(l.higherIsBetter ? l.ours / l.peer : l.peer / l.ours).toFixed(2)}×`]);
  const head = ['measure', 'unit', 'Floe', 'DuckDB', 'Floe/DuckDB (speed)'];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) => `| ${r.map((x, c) => (c >= 2 ? x.padStart(widths[c]!) : x.padEnd(widths[c]!))).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w, c) => (c >= 2 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

async function main(): Promise<void> {
  const log = (msg: string) => console.error(`[${new Date().toISOString()}] ${msg}`);
  if (process.env['FLOE_BENCH_PK_ONLY'] === '1') {
    lines.push(...await benchCheckedInsert(log));
    console.log(`\nFloe lake benchmark, checked insert — ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores — ${new Date().toISOString()}\n`);
    report();
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'floe-bench-'));
  const wh = await openWarehouse({ path: dir });
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    await duck.run('SET threads = 1');
    await duck.run('CREATE TABLE t (id BIGINT PRIMARY KEY, name VARCHAR, qty INTEGER, price DOUBLE, ts TIMESTAMPTZ)');
    await duck.run('CREATE TABLE staging (id BIGINT, name VARCHAR, qty INTEGER, price DOUBLE, ts TIMESTAMPTZ)');
    const t = await wh.createTable({
      namespace: 'public', name: 'bench', primaryKey: ['id'],
      columns: [
        { name: 'id', type: { kind: 'int8' }, nullable: false },
        { name: 'name', type: { kind: 'text' }, nullable: true },
        { name: 'qty', type: { kind: 'int4' }, nullable: true },
        { name: 'price', type: { kind: 'float8' }, nullable: true },
        { name: 'ts', type: { kind: 'timestamptz' }, nullable: true },
      ],
    });

    // --- load 1M keys into both, fold Floe's changes into base files ---
    const rand = rng(42);
    let loadMs = 0;
    for (let start = 0; start < KEYS; start += LOAD_BATCH) {
      const ids = Array.from({ length: Math.min(LOAD_BATCH, KEYS - start) }, (_, i) => BigInt(start + i));
      const rows = makeRows(ids, 0, rand);
      loadMs += (await timed(() => floeUpsert(wh, t, rows))).ms;
      await duckAppend(duck, 'staging', rows);
    }
    await duck.run('INSERT INTO t SELECT * FROM staging');
    log(`loaded ${KEYS} keys into Floe in ${loadMs.toFixed(0)} ms`);
    const opt0 = await timed(() => wh.optimize(t));
    log(`optimize (fold ${KEYS} rows into base) ${opt0.ms.toFixed(0)} ms: ${JSON.stringify(opt0.value, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
    // warm the Parquet decoder (WASM memory growth) before anything is timed
    await floeScan(wh, { table: t });

    // --- upserts ---
    for (const [label, cfg] of [['1k', SMALL], ['100k', LARGE]] as const) {
      const batches = Array.from({ length: cfg.batches }, (_, b) =>
        makeRows(Array.from({ length: cfg.batch }, () => BigInt(Math.floor(rand() * KEYS))), b + 1, rand));
      let ours = 0;
      let peer = 0;
      for (const rows of batches) {
        ours += (await timed(() => floeUpsert(wh, t, rows))).ms;
        peer += (await timed(() => duckUpsert(duck, rows))).ms;
      }
      const total = cfg.batch * cfg.batches;
      lines.push({ what: `upsert, ${label}-row batches (${cfg.batches} txns)`, unit: 'rows/s', ours: total / (ours / 1000), peer: total / (peer / 1000), higherIsBetter: true });
      log(`upsert ${label}: Floe ${ours.toFixed(0)} ms, DuckDB ${peer.toFixed(0)} ms`);
    }

    // --- scans with pending change files ---
    {
      const plan = await wh.planScan({ table: t });
      log(`pending: ${plan.stats.changeFiles} change files, ${plan.stats.baseFiles} base files, ${plan.tasks.length} tasks`);
      const ours = await bestOf(3, () => floeScan(wh, { table: t }));
      const peer = await bestOf(3, async () => Number((await duck.runAndReadAll(SCAN_ALL('t'))).getRows()[0]![0]));
      lines.push({ what: 'full scan, pending change files', unit: 'rows/s', ours: ours.rows / (ours.ms / 1000), peer: peer.rows / (peer.ms / 1000), higherIsBetter: true });
      log(`scan with pending: Floe ${ours.rows} rows ${ours.ms.toFixed(0)} ms, DuckDB ${peer.rows} rows ${peer.ms.toFixed(0)} ms`);
    }

    // --- point reads (pending changes present, as in steady streaming) ---
    {
      const keys = Array.from({ length: POINT_READS }, () => BigInt(Math.floor(rand() * KEYS)));
      const ours: number[] = [];
      // at most POINT_READS reads or about a minute, whichever comes first (at least 20)
      const deadline = performance.now() + 60_000;
      for (const k of keys) {
        if (ours.length >= 20 && performance.now() > deadline) break;
        const r = await timed(() => floePointRead(wh, t, k));
        if (r.value !== 1) throw new Error(`point read of ${k} returned ${r.value} rows`);
        ours.push(r.ms);
      }
      const stmt = await duck.prepare('SELECT * FROM t WHERE id = $1');
      const peer: number[] = [];
      for (const k of keys.slice(0, ours.length)) {
        stmt.bindBigInt(1, k);
        const r = await timed(async () => (await stmt.runAndReadAll()).getRows().length);
        if (r.value !== 1) throw new Error(`DuckDB point read of ${k} returned ${r.value} rows`);
        peer.push(r.ms);
      }
      const plan = await wh.planScan({ table: t, filters: [{ column: 'id', op: '=', value: keys[0]! }] });
      log(`point reads: ${ours.length} each`);
      log(`point read plan: pushdown ${plan.pushdown.join(',')}, ${plan.tasks.length} task(s), ${plan.stats.baseFiles} base + ${plan.stats.changeFiles} change files`);
      ours.sort((a, b) => a - b);
      peer.sort((a, b) => a - b);
      lines.push({ what: 'point read by key, p50', unit: 'ms', ours: percentile(ours, 0.5), peer: percentile(peer, 0.5), higherIsBetter: false });
      lines.push({ what: 'point read by key, p99', unit: 'ms', ours: percentile(ours, 0.99), peer: percentile(peer, 0.99), higherIsBetter: false });
    }

    // --- optimize, then scans without pending changes ---
    {
      const opt = await timed(() => wh.optimize(t));
      log(`optimize ${opt.ms.toFixed(0)} ms`);
      const plan = await wh.planScan({ table: t });
      log(`after optimize: ${plan.stats.changeFiles} change files, ${plan.stats.baseFiles} base files`);
      const files = wh.listFiles(t).filter((f) => f.store === 'base').map((f) => join(dir, f.path));
      const physical = (name: string) => `c${t.columns.find((c) => c.name === name)!.fieldId}`;
      const parquet = `(SELECT ${['id', 'name', 'qty', 'price', 'ts'].map((c) => `${physical(c)} AS ${c}`).join(', ')} FROM read_parquet([${files.map((f) => `'${f}'`).join(', ')}]))`;
      const ours = await bestOf(3, () => floeScan(wh, { table: t }));
      const peer = await bestOf(3, async () => Number((await duck.runAndReadAll(SCAN_ALL(parquet))).getRows()[0]![0]));
      lines.push({ what: 'full scan, no pending changes (Parquet)', unit: 'rows/s', ours: ours.rows / (ours.ms / 1000), peer: peer.rows / (peer.ms / 1000), higherIsBetter: true });
      log(`scan without pending: Floe ${ours.rows} rows ${ours.ms.toFixed(0)} ms, DuckDB ${peer.rows} rows ${peer.ms.toFixed(0)} ms`);
    }

    lines.push(...await benchCheckedInsert(log));

    console.log(`\nFloe lake benchmark — ${KEYS.toLocaleString('en-US')} keys — ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores — ${new Date().toISOString()}\n`);
    report();
  } finally {
    duck.closeSync();
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function bestOf(n: number, fn: () => Promise<number>): Promise<{ ms: number; rows: number }> {
  let best = { ms: Infinity, rows: 0 };
  for (let i = 0; i < n; i++) {
    const r = await timed(fn);
    if (r.ms < best.ms) best = { ms: r.ms, rows: r.value };
  }
  return best;
}

await main();
