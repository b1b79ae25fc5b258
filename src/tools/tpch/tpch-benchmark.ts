import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openWarehouse } from '../../lake/index.js';
import { createTpchTables, optimizeTpchTables, writeTpchBatches } from './floe-loader.js';
import { startGateway } from './gateway-process.js';
import type { GatewayProcess } from './gateway-process.js';
import { ParquetExport } from './parquet-export.js';
import { exportTpchParquetInWorker } from './parquet-export-worker.js';
import { ProgressLine } from './progress-line.js';
import { copyWarehouseToS3rver } from './s3rver-copy.js';
import { TpchGenerator } from './tpch-generator.js';
import { tpchQueries } from './tpch-queries.js';
import type { TpchQuery } from './tpch-queries.js';
import { TPCH_TABLES } from './tpch-schema.js';
import { tpchUpserts } from './tpch-upserts.js';
import { QueryTimeoutError, runTextQuery } from './wire-query.js';
import { machineDescription } from '../machine.js';

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
  /**
   * Query the warehouse and Parquet a previous run left in `dir` (same --sf) instead of
   * generating and loading again; loads as usual when there is none. Implies keeping `dir`.
   */
  readonly reuse?: boolean;
  /**
   * Runs of each query per engine (default 3). The table shows each engine's fastest
   * run, as ClickBench-style "hot" figures do; the first (cold) run's geomean is
   * reported beside it, since it carries JIT and WASM warm-up that a serving
   * gateway pays once.
   */
  readonly runs?: number;
  /**
   * 's3': also query the optimized warehouse with its data on S3 (a copy on a local s3rver,
   * through `floe serve --data s3://…`), beside local disk, in the same run.
   */
  readonly storage?: 'local' | 's3';
  readonly log?: (line: string) => void;
}

/** What a finished load leaves in the work directory, so `reuse` can skip it. */
interface LoadRecord {
  readonly sf: number;
  readonly rows: number;
  readonly generateS: number;
  readonly floeInsertS: number;
  readonly optimizeS: number;
  readonly parquetS: number;
}

const LOAD_RECORD = 'tpch-load.json';

export interface QueryTiming {
  readonly query: number;
  readonly floeMs?: number;
  readonly floeError?: string;
  /** True when floeError is the cancellation after the timeout. */
  readonly floeTimedOut?: boolean;
  readonly floeRows?: number;
  readonly duckMs: number;
  /** First runs (equal to the best when only one run was made). */
  readonly floeColdMs?: number;
  readonly duckColdMs: number;
  readonly duckRows: number;
  readonly duckError?: string;
}

export interface TpchBenchReport {
  readonly sf: number;
  readonly load: { readonly rows: number; readonly generateS: number; readonly floeInsertS: number; readonly optimizeS: number; readonly parquetS: number; readonly reused?: boolean };
  readonly timeoutMs?: number;
  readonly runs: number;
  readonly upsert: { readonly rows: number; readonly floeS: number };
  readonly optimized: readonly QueryTiming[];
  readonly upserted: readonly QueryTiming[];
  /** The optimized queries again with the data on s3rver (`storage: 's3'`). */
  readonly s3?: { readonly timings: readonly QueryTiming[]; readonly files: number; readonly bytes: number; readonly uploadS: number };
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
  if (opts.reuse === true && opts.dir === undefined) throw new Error('--reuse needs --dir');
  const ownDir = opts.dir === undefined;
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'floe-tpch-bench-'));
  mkdirSync(dir, { recursive: true });
  const whDir = join(dir, 'warehouse');
  const upsertDir = join(dir, 'warehouse-upserted');
  const timeoutMs = opts.timeoutMs ?? 300_000;
  const runs = Math.max(1, Math.floor(opts.runs ?? 3));
  const fraction = opts.upsertFraction ?? 0.1;
  const batchRows = opts.batchRows ?? 100_000;
  const queries = tpchQueries(opts.sf).filter((q) => opts.queries === undefined || opts.queries.includes(q.number));
  const gen = new TpchGenerator(opts.sf);
  const base = new ParquetExport(join(dir, 'parquet'));
  const changes = new ParquetExport(join(dir, 'parquet-changes'));

  let load = opts.reuse === true ? previousLoad(dir, opts.sf, log) : undefined;
  const reused = load !== undefined;
  if (load === undefined) {
    rmSync(join(dir, LOAD_RECORD), { force: true });
    load = await loadAll(opts.sf, gen, whDir, base, batchRows, log);
    // written last: a crashed or interrupted load is never reused
    writeFileSync(join(dir, LOAD_RECORD), `${JSON.stringify(load)}\n`);
  }

  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  await duck.run(`SET threads = ${cpus().length}`);
  for (const t of TPCH_TABLES) {
    await duck.run(`CREATE OR REPLACE VIEW ${t.name} AS SELECT * FROM read_parquet('${base.globOf(t.name)}')`);
  }

  let upsertRows = 0;
  let upsertS = 0;
  const gateway = new GatewayHolder(whDir, log);
  let optimized: QueryTiming[];
  let upserted: QueryTiming[];
  let s3: TpchBenchReport['s3'];
  let peakRssGateway: number | undefined;
  try {
    log(`\nqueries on optimized tables (Floe ${(await gateway.get()).url})`);
    optimized = await timeQueries(queries, gateway, duck, timeoutMs, runs, log);
    peakRssGateway = await gateway.stop();

    if (opts.storage === 's3') {
      const copy = await copyWarehouseToS3rver(whDir, dir, log);
      const s3Gateway = new GatewayHolder(whDir, log, copy.serveArgs, copy.env);
      try {
        log(`\nqueries on optimized tables with the data on s3rver (Floe ${(await s3Gateway.get()).url})`);
        s3 = { timings: await timeQueries(queries, s3Gateway, duck, timeoutMs, runs, log), files: copy.files, bytes: copy.bytes, uploadS: copy.uploadS };
      } finally {
        peakRssGateway = Math.max(peakRssGateway ?? 0, (await s3Gateway.stop()) ?? 0) || undefined;
        await copy.stop();
      }
    }

    if (fraction > 0) {
      // The upserts go to a copy, so the optimized warehouse stays reusable.
      log('copying the warehouse for the upsert pass…');
      rmSync(upsertDir, { recursive: true, force: true });
      rmSync(join(dir, 'parquet-changes'), { recursive: true, force: true });
      cpSync(whDir, upsertDir, { recursive: true });
      const w = await openWarehouse({ path: upsertDir });
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

      const upGateway = new GatewayHolder(upsertDir, log);
      try {
        log(`\nqueries after upserts, not optimized (Floe ${(await upGateway.get()).url})`);
        upserted = await timeQueries(queries, upGateway, duck, timeoutMs, runs, log);
      } finally {
        peakRssGateway = Math.max(peakRssGateway ?? 0, (await upGateway.stop()) ?? 0) || undefined;
      }
    } else {
      // No upserts: the pass (and DuckDB's merged views, which would read no change files) is skipped.
      log('\n--upsert-fraction 0: no upsert pass');
      upserted = [];
    }
  } finally {
    await gateway.stop();
    duck.closeSync();
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  }
  return {
    sf: opts.sf,
    load: { ...load, reused },
    timeoutMs,
    runs,
    upsert: { rows: upsertRows, floeS: upsertS },
    optimized,
    upserted,
    ...(s3 === undefined ? {} : { s3 }),
    peakRssGateway,
    peakRssBench: process.resourceUsage().maxRSS * 1024,
    machine: machineDescription(),
    date: new Date().toISOString().slice(0, 10),
  };
}

/** The load record of a finished load at this scale factor in `dir`, if any. */
function previousLoad(dir: string, sf: number, log: (l: string) => void): LoadRecord | undefined {
  const path = join(dir, LOAD_RECORD);
  if (!existsSync(path) || !existsSync(join(dir, 'warehouse')) || !existsSync(join(dir, 'parquet'))) {
    log(`no finished load in ${dir}: loading`);
    return undefined;
  }
  const rec = JSON.parse(readFileSync(path, 'utf8')) as LoadRecord;
  if (rec.sf !== sf) {
    log(`${dir} holds SF ${rec.sf}, not ${sf}: loading again`);
    return undefined;
  }
  log(`reusing the SF ${sf} warehouse and Parquet in ${dir} (${rec.rows.toLocaleString('en-US')} rows)`);
  return rec;
}

/**
 * Loads Floe (the normal write path, one transaction per batch) while a worker thread
 * writes the same batches as Parquet from its own deterministic generator, on the other
 * core; then optimizes every table. parquetS is the worker's own elapsed time.
 */
async function loadAll(sf: number, gen: TpchGenerator, whDir: string, base: ParquetExport, batchRows: number, log: (l: string) => void): Promise<LoadRecord> {
  rmSync(whDir, { recursive: true, force: true });
  rmSync(base.dir, { recursive: true, force: true });
  let parquetRows = 0;
  const exportDone = exportTpchParquetInWorker(sf, batchRows, base.dir, (p) => { parquetRows = p.rows; });
  // a failed export surfaces where it is awaited; keep it from being reported as unhandled meanwhile
  exportDone.catch(() => undefined);
  const warehouse = await openWarehouse({ path: whDir });
  let generateS = 0;
  let floeInsertS = 0;
  let optimizeS = 0;
  let rows = 0;
  let parquetS = 0;
  try {
    await createTpchTables(warehouse);
    const progress = new ProgressLine(`loading TPC-H SF ${sf} into Floe (Parquet in a worker)`);
    const it = gen.batches(batchRows);
    for (;;) {
      let t0 = performance.now();
      const next = it.next();
      generateS += seconds(t0);
      if (next.done === true) break;
      const batch = next.value;
      t0 = performance.now();
      rows += await writeTpchBatches(warehouse, [batch], 'insert');
      floeInsertS += seconds(t0);
      progress.add(batch.rowCount, `${batch.table}; Floe insert ${rate(rows, floeInsertS)} rows/s; Parquet ${parquetRows.toLocaleString('en-US')} rows written`);
    }
    progress.done();
    log(`generate ${generateS.toFixed(1)} s, Floe insert ${floeInsertS.toFixed(1)} s`);
    const t0 = performance.now();
    await optimizeTpchTables(warehouse, 'public', log);
    optimizeS = seconds(t0);
    log(`optimized in ${optimizeS.toFixed(1)} s (${rate(rows, optimizeS)} rows/s)`);
    const exported = await exportDone;
    parquetS = exported.seconds;
    if (exported.rows !== rows) throw new Error(`the Parquet export wrote ${exported.rows} rows, Floe got ${rows}`);
    log(`Parquet for DuckDB: ${exported.rows.toLocaleString('en-US')} rows in ${parquetS.toFixed(1)} s (${rate(exported.rows, parquetS)} rows/s, worker thread)`);
  } finally {
    await warehouse.close();
  }
  return { sf, rows, generateS, floeInsertS, optimizeS, parquetS };
}

const rate = (rows: number, s: number) => (s > 0 ? Math.round(rows / s) : 0).toLocaleString('en-US');

/** A gateway that is started on first use and again after it died (a crash fails one query, not the run). */
class GatewayHolder {
  private current: GatewayProcess | undefined;
  private peak: number | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly log: (l: string) => void,
    private readonly args: readonly string[] = [],
    private readonly env: Readonly<Record<string, string>> = {},
  ) {}

  async get(): Promise<GatewayProcess> {
    if (this.current !== undefined && !this.current.exited()) return this.current;
    if (this.current !== undefined) {
      this.log('  (the Floe gateway exited; starting a new one)');
      this.peak = Math.max(this.peak ?? 0, this.current.peakRss() ?? 0) || undefined;
    }
    this.current = await startGateway(this.dataDir, this.args, { env: this.env });
    return this.current;
  }

  /** Stops it and returns the highest peak RSS seen. */
  async stop(): Promise<number | undefined> {
    if (this.current !== undefined) {
      this.peak = Math.max(this.peak ?? 0, this.current.peakRss() ?? 0) || undefined;
      await this.current.stop();
      this.current = undefined;
    }
    return this.peak;
  }
}

function mergedView(table: string, key: readonly string[], base: ParquetExport, changes: ParquetExport): string {
  const b = `read_parquet('${base.globOf(table)}')`;
  const c = `read_parquet('${changes.globOf(table)}')`;
  const on = key.map((k) => `c.${k} = b.${k}`).join(' AND ');
  return `CREATE OR REPLACE VIEW ${table} AS SELECT b.* FROM ${b} b WHERE NOT EXISTS (SELECT 1 FROM ${c} c WHERE ${on}) UNION ALL SELECT * FROM ${c}`;
}

async function timeQueries(
  queries: readonly TpchQuery[], gateway: GatewayHolder, duck: DuckDBConnection, timeoutMs: number, runs: number, log: (l: string) => void,
): Promise<QueryTiming[]> {
  const out: QueryTiming[] = [];
  for (const q of queries) {
    const duckTimes: number[] = [];
    let duckRows = 0;
    let duckError: string | undefined;
    for (let r = 0; r < runs && duckError === undefined; r++) {
      const t0 = performance.now();
      try {
        const reader = await duck.runAndReadAll(q.sql);
        duckRows = reader.getRows().length;
      } catch (e) {
        duckError = (e as Error).message;
      }
      duckTimes.push(performance.now() - t0);
    }
    const duckMs = Math.min(...duckTimes);
    const duckColdMs = duckTimes[0]!;
    let timing: QueryTiming;
    const floeTimes: number[] = [];
    try {
      let floeRows = 0;
      // A failed or timed-out run ends the query: it is reported as such, not retried.
      for (let r = 0; r < runs; r++) {
        const url = (await gateway.get()).url;
        const t0 = performance.now();
        const res = await runTextQuery(url, q.sql, timeoutMs);
        floeTimes.push(performance.now() - t0);
        floeRows = res.rows.length;
      }
      timing = { query: q.number, floeMs: Math.min(...floeTimes), floeColdMs: floeTimes[0]!, floeRows, duckMs, duckColdMs, duckRows, duckError };
    } catch (e) {
      const err = e as Error & { code?: string };
      const timedOut = e instanceof QueryTimeoutError;
      timing = { query: q.number, floeError: `${err.code === undefined ? '' : `${err.code} `}${err.message}`, floeTimedOut: timedOut, duckMs, duckColdMs, duckRows, duckError };
    }
    out.push(timing);
    const floe = timing.floeMs !== undefined ? `${timing.floeMs.toFixed(0)} ms (first run ${timing.floeColdMs!.toFixed(0)} ms), ${timing.floeRows} rows`
      : timing.floeTimedOut === true ? `timeout after ${(timeoutMs / 1000).toFixed(0)} s` : `failed (${timing.floeError})`;
    log(`  Q${q.number}: Floe ${floe}; DuckDB ${duckError === undefined ? `${duckMs.toFixed(0)} ms (first run ${duckColdMs.toFixed(0)} ms), ${duckRows} rows` : `failed (${duckError})`}`);
  }
  return out;
}

/** Geometric mean of Floe/DuckDB time ratios over the queries both answered: best runs, or first runs with `cold`. */
export function geomeanRatio(timings: readonly QueryTiming[], cold = false): { ratio: number; floeMs: number; duckMs: number; n: number } | undefined {
  const ok = timings.filter((t) => t.floeMs !== undefined && t.duckError === undefined);
  if (ok.length === 0) return undefined;
  const g = (xs: number[]) => Math.exp(xs.reduce((s, x) => s + Math.log(Math.max(x, 0.01)), 0) / xs.length);
  const floe = ok.map((t) => (cold ? t.floeColdMs ?? t.floeMs! : t.floeMs!));
  const duck = ok.map((t) => (cold ? t.duckColdMs ?? t.duckMs : t.duckMs));
  return { ratio: g(floe.map((f, i) => f / Math.max(duck[i]!, 0.01))), floeMs: g(floe), duckMs: g(duck), n: ok.length };
}

const fmtMs = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);

/** Optimized queries with the data on local disk and on s3rver, side by side. */
function formatS3Table(local: readonly QueryTiming[], s3: NonNullable<TpchBenchReport['s3']>): string[] {
  const lines = [
    `Data on S3 (s3rver on loopback; ${s3.files} files, ${(s3.bytes / 2 ** 20).toFixed(0)} MB uploaded in ${s3.uploadS.toFixed(1)} s):`, '',
    '| query | Floe, local disk | Floe, data on S3 | S3 / local | DuckDB |', '|---|---:|---:|---:|---:|',
  ];
  const cell = (t: QueryTiming | undefined) => (t?.floeMs !== undefined ? fmtMs(t.floeMs) : t?.floeTimedOut === true ? 'timeout' : `fails: ${(t?.floeError ?? '').slice(0, 60)}`);
  for (let i = 0; i < local.length; i++) {
    const a = local[i]!;
    const b = s3.timings[i];
    const ratio = a.floeMs !== undefined && b?.floeMs !== undefined ? `${(b.floeMs / Math.max(a.floeMs, 0.01)).toFixed(2)}×` : '—';
    lines.push(`| Q${a.query} | ${cell(a)} | ${cell(b)} | ${ratio} | ${a.duckError === undefined ? fmtMs(a.duckMs) : 'fails'} |`);
  }
  const ga = geomeanRatio(local);
  const gb = geomeanRatio(s3.timings);
  if (ga !== undefined && gb !== undefined) {
    lines.push(`| geomean | ${fmtMs(ga.floeMs)} | ${fmtMs(gb.floeMs)} | ${(gb.floeMs / ga.floeMs).toFixed(2)}× | ${fmtMs(ga.duckMs)} |`);
  }
  return lines;
}

/** The report as Markdown tables (also what bench/tpch-results.md records). */
export function formatTpchReport(r: TpchBenchReport): string {
  const lines: string[] = [];
  const mb = (b: number | undefined) => (b === undefined ? 'n/a' : `${(b / 2 ** 20).toFixed(0)} MB`);
  lines.push(`TPC-H SF ${r.sf} — ${r.date} — ${r.machine}`, '');
  lines.push('| load | value |', '|---|---:|');
  lines.push(`| rows (8 tables) | ${r.load.rows.toLocaleString('en-US')}${r.load.reused === true ? ' (load reused from an earlier run)' : ''} |`);
  lines.push(`| generate (in-process) | ${r.load.generateS.toFixed(1)} s |`);
  lines.push(`| Floe insert (lake write path) | ${r.load.floeInsertS.toFixed(1)} s (${Math.round(r.load.rows / r.load.floeInsertS).toLocaleString('en-US')} rows/s) |`);
  lines.push(`| Floe optimize | ${r.load.optimizeS.toFixed(1)} s |`);
  lines.push(`| Parquet for DuckDB (parquet-wasm, worker thread alongside the Floe insert) | ${r.load.parquetS.toFixed(1)} s |`);
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
      const duck = t.duckError === undefined ? fmtMs(t.duckMs) : `fails: ${t.duckError.slice(0, 40)}`;
      if (t.floeMs === undefined) {
        const floe = t.floeTimedOut === true ? `timeout (> ${fmtMs(r.timeoutMs ?? 0)})` : `fails: ${(t.floeError ?? '').slice(0, 60)}`;
        return [floe, duck, '—'];
      }
      return [`${fmtMs(t.floeMs)}${rowsNote}`, duck, t.duckError === undefined ? `${(t.floeMs / Math.max(t.duckMs, 0.01)).toFixed(1)}×` : '—'];
    };
    lines.push(`| Q${a.query} | ${[...cell(a), ...cell(b)].join(' | ')} |`);
  }
  const ga = geomeanRatio(r.optimized);
  const gb = geomeanRatio(r.upserted);
  const gm = (g: ReturnType<typeof geomeanRatio>) => (g === undefined ? ['—', '—', '—'] : [fmtMs(g.floeMs), fmtMs(g.duckMs), `${g.ratio.toFixed(1)}× (${g.n} queries)`]);
  lines.push(`| geomean | ${[...gm(ga), ...gm(gb)].join(' | ')} |`);
  if (r.runs > 1) {
    lines.push(`| geomean, first runs | ${[...gm(geomeanRatio(r.optimized, true)), ...gm(geomeanRatio(r.upserted, true))].join(' | ')} |`);
    lines.push('', `Each query ran ${r.runs} times per engine, one after another; the table shows each engine's fastest run, and the last line the geomean of the first runs.`);
  }
  if (r.s3 !== undefined) lines.push('', ...formatS3Table(r.optimized, r.s3));
  return lines.join('\n');
}
