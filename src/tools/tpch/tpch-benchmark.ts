import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openWarehouse } from '../../lake/index.js';
import { createTpchTables, optimizeTpchTables, writeTpchBatches } from './floe-loader.js';
import { startGateway } from './gateway-process.js';
import { ParquetExport } from './parquet-export.js';
import { ProgressLine } from './progress-line.js';
import { TpchGenerator } from './tpch-generator.js';
import { tpchQueries } from './tpch-queries.js';
import type { TpchQuery } from './tpch-queries.js';
import { TPCH_TABLES } from './tpch-schema.js';
import { tpchUpserts } from './tpch-upserts.js';
import { runTextQuery } from './wire-query.js';

export interface TpchBenchOptions {
  readonly sf: number;
  /** Work directory (warehouse and Parquet); a temp dir removed at the end when omitted. */
  readonly dir?: string;
  /** Per query and engine; Floe queries past it are cancelled and reported as timeouts. */
  readonly timeoutMs?: number;
  readonly upsertFraction?: number;
  /** Query numbers to run (default all 22). */
  readonly queries?: readonly number[];
  readonly batchRows?: number;
  readonly log?: (line: string) => void;
}

export interface QueryTiming {
  readonly query: number;
  readonly floeMs?: number;
  readonly floeError?: string;
  readonly floeRows?: number;
  readonly duckMs: number;
  readonly duckRows: number;
}

export interface TpchBenchReport {
  readonly sf: number;
  readonly load: { readonly rows: number; readonly generateS: number; readonly floeInsertS: number; readonly optimizeS: number; readonly parquetS: number };
  readonly upsert: { readonly rows: number; readonly floeS: number };
  readonly optimized: readonly QueryTiming[];
  readonly upserted: readonly QueryTiming[];
  readonly peakRssGateway?: number;
  readonly peakRssBench: number;
  readonly machine: string;
  readonly date: string;
}

const seconds = (t0: number) => (performance.now() - t0) / 1000;

/**
 * TPC-H in Floe (loaded through the lake's write path, queried through the wire) beside
 * DuckDB over the same data as Parquet, in one run: optimized tables first, then after
 * upserting a fraction of orders and lineitem rows without optimizing. DuckDB reads the
 * upserted tables as base Parquet merged with the changed rows' Parquet at query time
 * (anti join on the key plus the changed rows), the same merge-on-read work Floe does.
 */
export async function runTpchBenchmark(opts: TpchBenchOptions): Promise<TpchBenchReport> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const ownDir = opts.dir === undefined;
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'floe-tpch-bench-'));
  mkdirSync(dir, { recursive: true });
  const whDir = join(dir, 'warehouse');
  rmSync(whDir, { recursive: true, force: true });
  rmSync(join(dir, 'parquet'), { recursive: true, force: true });
  rmSync(join(dir, 'parquet-changes'), { recursive: true, force: true });
  const timeoutMs = opts.timeoutMs ?? 300_000;
  const fraction = opts.upsertFraction ?? 0.1;
  const batchRows = opts.batchRows ?? 100_000;
  const queries = tpchQueries(opts.sf).filter((q) => opts.queries === undefined || opts.queries.includes(q.number));
  const gen = new TpchGenerator(opts.sf);
  const base = new ParquetExport(join(dir, 'parquet'));
  const changes = new ParquetExport(join(dir, 'parquet-changes'));

  // Load: generate once, write each batch to Floe (the normal write path) and to Parquet.
  const warehouse = await openWarehouse({ path: whDir });
  let generateS = 0;
  let floeInsertS = 0;
  let parquetS = 0;
  let optimizeS = 0;
  let rows = 0;
  let upsertRows = 0;
  let upsertS = 0;
  try {
    await createTpchTables(warehouse);
    const progress = new ProgressLine(`loading TPC-H SF ${opts.sf} into Floe`);
    const it = gen.batches(batchRows);
    for (;;) {
      let t0 = performance.now();
      const next = it.next();
      generateS += seconds(t0);
      if (next.done === true) break;
      const batch = next.value;
      t0 = performance.now();
      base.write(batch);
      parquetS += seconds(t0);
      t0 = performance.now();
      rows += await writeTpchBatches(warehouse, [batch], 'insert');
      floeInsertS += seconds(t0);
      progress.add(batch.rowCount, batch.table);
    }
    progress.done();
    log('optimizing (folding change files into base files)…');
    const t0 = performance.now();
    await optimizeTpchTables(warehouse);
    optimizeS = seconds(t0);
    log(`optimized in ${optimizeS.toFixed(1)} s`);
  } finally {
    await warehouse.close();
  }

  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  await duck.run(`SET threads = ${cpus().length}`);
  for (const t of TPCH_TABLES) {
    await duck.run(`CREATE OR REPLACE VIEW ${t.name} AS SELECT * FROM read_parquet('${base.globOf(t.name)}')`);
  }

  let gateway = await startGateway(whDir);
  let optimized: QueryTiming[];
  let upserted: QueryTiming[];
  let peakRssGateway: number | undefined;
  try {
    log(`\nqueries on optimized tables (Floe ${gateway.url})`);
    optimized = await timeQueries(queries, gateway.url, duck, timeoutMs, log);
    peakRssGateway = gateway.peakRss();
    await gateway.stop();

    const w = await openWarehouse({ path: whDir });
    try {
      const progress = new ProgressLine(`upserting ${fraction * 100}% of orders and lineitem`);
      for (const batch of tpchUpserts(gen, fraction, batchRows, 2)) {
        changes.write(batch);
        const t0 = performance.now();
        upsertRows += await writeTpchBatches(w, [batch], 'upsert');
        upsertS += seconds(t0);
        progress.add(batch.rowCount, batch.table);
      }
      progress.done();
    } finally {
      await w.close();
    }
    await duck.run(mergedView('orders', ['o_orderkey'], base, changes));
    await duck.run(mergedView('lineitem', ['l_orderkey', 'l_linenumber'], base, changes));

    gateway = await startGateway(whDir);
    log('\nqueries after upserts, not optimized');
    upserted = await timeQueries(queries, gateway.url, duck, timeoutMs, log);
    peakRssGateway = Math.max(peakRssGateway ?? 0, gateway.peakRss() ?? 0) || undefined;
  } finally {
    await gateway.stop();
    duck.closeSync();
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  }
  return {
    sf: opts.sf,
    load: { rows, generateS, floeInsertS, optimizeS, parquetS },
    upsert: { rows: upsertRows, floeS: upsertS },
    optimized,
    upserted,
    peakRssGateway,
    peakRssBench: process.resourceUsage().maxRSS * 1024,
    machine: `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.versions.node}`,
    date: new Date().toISOString().slice(0, 10),
  };
}

function mergedView(table: string, key: readonly string[], base: ParquetExport, changes: ParquetExport): string {
  const b = `read_parquet('${base.globOf(table)}')`;
  const c = `read_parquet('${changes.globOf(table)}')`;
  const on = key.map((k) => `c.${k} = b.${k}`).join(' AND ');
  return `CREATE OR REPLACE VIEW ${table} AS SELECT b.* FROM ${b} b WHERE NOT EXISTS (SELECT 1 FROM ${c} c WHERE ${on}) UNION ALL SELECT * FROM ${c}`;
}

async function timeQueries(queries: readonly TpchQuery[], url: string, duck: DuckDBConnection, timeoutMs: number, log: (l: string) => void): Promise<QueryTiming[]> {
  const out: QueryTiming[] = [];
  for (const q of queries) {
    let t0 = performance.now();
    const reader = await duck.runAndReadAll(q.sql);
    const duckRows = reader.getRows().length;
    const duckMs = performance.now() - t0;
    t0 = performance.now();
    let timing: QueryTiming;
    try {
      const res = await runTextQuery(url, q.sql, timeoutMs);
      timing = { query: q.number, floeMs: performance.now() - t0, floeRows: res.rows.length, duckMs, duckRows };
    } catch (e) {
      const err = e as Error & { code?: string };
      timing = { query: q.number, floeError: `${err.code === undefined ? '' : `${err.code} `}${err.message}`, duckMs, duckRows };
    }
    out.push(timing);
    log(`  Q${q.number}: Floe ${timing.floeMs === undefined ? `failed (${timing.floeError})` : `${timing.floeMs.toFixed(0)} ms, ${timing.floeRows} rows`}; DuckDB ${duckMs.toFixed(0)} ms, ${duckRows} rows`);
  }
  return out;
}

/** Geometric mean of Floe/DuckDB time ratios over the queries both answered. */
export function geomeanRatio(timings: readonly QueryTiming[]): { ratio: number; floeMs: number; duckMs: number; n: number } | undefined {
  const ok = timings.filter((t) => t.floeMs !== undefined);
  if (ok.length === 0) return undefined;
  const g = (xs: number[]) => Math.exp(xs.reduce((s, x) => s + Math.log(Math.max(x, 0.01)), 0) / xs.length);
  const floeMs = g(ok.map((t) => t.floeMs!));
  const duckMs = g(ok.map((t) => t.duckMs));
  return { ratio: g(ok.map((t) => t.floeMs! / Math.max(t.duckMs, 0.01))), floeMs, duckMs, n: ok.length };
}

const fmtMs = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);

/** The report as Markdown tables (also what bench/tpch-results.md records). */
export function formatTpchReport(r: TpchBenchReport): string {
  const lines: string[] = [];
  const mb = (b: number | undefined) => (b === undefined ? 'n/a' : `${(b / 2 ** 20).toFixed(0)} MB`);
  lines.push(`TPC-H SF ${r.sf} — ${r.date} — ${r.machine}`, '');
  lines.push('| load | value |', '|---|---:|');
  lines.push(`| rows (8 tables) | ${r.load.rows.toLocaleString('en-US')} |`);
  lines.push(`| generate (in-process) | ${r.load.generateS.toFixed(1)} s |`);
  lines.push(`| Floe insert (lake write path) | ${r.load.floeInsertS.toFixed(1)} s (${Math.round(r.load.rows / r.load.floeInsertS).toLocaleString('en-US')} rows/s) |`);
  lines.push(`| Floe optimize | ${r.load.optimizeS.toFixed(1)} s |`);
  lines.push(`| Parquet for DuckDB (parquet-wasm) | ${r.load.parquetS.toFixed(1)} s |`);
  lines.push(`| upserted rows (orders + lineitem) | ${r.upsert.rows.toLocaleString('en-US')} in ${r.upsert.floeS.toFixed(1)} s |`);
  lines.push(`| peak RSS, Floe gateway | ${mb(r.peakRssGateway)} |`);
  lines.push(`| peak RSS, bench process (generator + DuckDB) | ${mb(r.peakRssBench)} |`, '');
  lines.push('| query | Floe optimized | DuckDB | ratio | Floe upserted | DuckDB merged | ratio |', '|---|---:|---:|---:|---:|---:|---:|');
  for (let i = 0; i < r.optimized.length; i++) {
    const a = r.optimized[i]!;
    const b = r.upserted[i];
    const cell = (t: QueryTiming | undefined) => {
      if (t === undefined) return ['', '', ''];
      const rowsNote = t.floeRows !== undefined && t.floeRows !== t.duckRows ? ` (${t.floeRows} vs ${t.duckRows} rows)` : '';
      return t.floeMs === undefined
        ? [`fails: ${(t.floeError ?? '').slice(0, 60)}`, fmtMs(t.duckMs), '—']
        : [`${fmtMs(t.floeMs)}${rowsNote}`, fmtMs(t.duckMs), `${(t.floeMs / Math.max(t.duckMs, 0.01)).toFixed(1)}×`];
    };
    lines.push(`| Q${a.query} | ${[...cell(a), ...cell(b)].join(' | ')} |`);
  }
  const ga = geomeanRatio(r.optimized);
  const gb = geomeanRatio(r.upserted);
  const gm = (g: ReturnType<typeof geomeanRatio>) => (g === undefined ? ['—', '—', '—'] : [fmtMs(g.floeMs), fmtMs(g.duckMs), `${g.ratio.toFixed(1)}× (${g.n} queries)`]);
  lines.push(`| geomean | ${[...gm(ga), ...gm(gb)].join(' | ')} |`);
  return lines.join('\n');
}
