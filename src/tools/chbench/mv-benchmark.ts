import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startGateway } from '../tpch/gateway-process.js';
import { machineDescription } from '../machine.js';
import { optimizeAfterLoad } from './chbench-benchmark.js';
import { chStreamBasics, runChStream } from './chbench-driver.js';
import type { ChStreamPacing, PeriodStats } from './chbench-driver.js';
import { loadChBenchmark } from './chbench-loader.js';
import { MvReaders } from './mv-readers.js';
import type { DashboardSample, LagSample, RefreshSample, RewriteCheck } from './mv-readers.js';
import { createMvSql, mvBenchViews } from './mv-views.js';
import type { MvBenchView } from './mv-views.js';
import { TpccGenerator, tpccScale } from './tpcc-generator.js';
import type { TpccScale } from './tpcc-generator.js';

export interface MvBenchOptions extends Omit<ChStreamPacing, 'queryTimeoutMs'> {
  readonly warehouses: number;
  /** The views' declared freshness, in seconds. */
  readonly freshnessSeconds: number;
  /** CH query numbers kept as views (default MV_BENCH_QUERIES). */
  readonly queries?: readonly number[];
  /** Length of the baseline period (stream and base-table queries, no views) and of the full-refresh phase. */
  readonly baselineMs: number;
  /** An unmeasured stream (and base-table dashboard) before the baseline. */
  readonly warmupMs: number;
  readonly fullPhaseMs: number;
  /** Full refreshes of each view in the full-refresh phase (the median counts). */
  readonly fullRefreshes: number;
  readonly lagEveryMs: number;
  readonly viewQueryEveryMs: number;
  readonly baseQueryEveryMs: number;
  /**
   * When the dashboard runs on the base tables: in the baseline only (the same dashboard
   * without views, as a user would run it before creating them), or beside the queries
   * through the views for the whole run (two dashboards on one gateway).
   */
  readonly baseQueries: 'baseline' | 'throughout';
  readonly optimizerThreads: number;
  /** The TPC-C tables' changelog-producer: with 'lookup' a refresh reads a table's changes alone. */
  readonly changelog: 'input' | 'lookup';
  readonly serveArgs?: readonly string[];
  readonly serveNodeArgs?: readonly string[];
  readonly serveEnv?: Readonly<Record<string, string>>;
  readonly scale?: Partial<Omit<TpccScale, 'warehouses'>>;
  readonly log?: (line: string) => void;
}

export interface FullRefreshSample {
  readonly view: string;
  readonly mode: string;
  /** As the CALL reports it (the refresh's own time), and as the client saw it. */
  readonly durationMs: number;
  readonly wallMs: number;
  readonly rowsChanged: number;
}

/** One stream phase: the driver's period stats and its length. */
export interface MvPhase {
  readonly name: string;
  readonly ms: number;
  readonly stats: PeriodStats;
}

export interface MvBenchReport {
  readonly options: Omit<MvBenchOptions, 'log'>;
  readonly scale: TpccScale;
  readonly views: readonly MvBenchView[];
  readonly loadSeconds: number;
  /** CREATE MATERIALIZED VIEW (the first population, with no stream running), per view. */
  readonly createMs: Readonly<Record<string, number>>;
  readonly phases: readonly MvPhase[];
  readonly lags: readonly LagSample[];
  readonly refreshes: readonly RefreshSample[];
  readonly dashboard: readonly DashboardSample[];
  readonly checks: readonly RewriteCheck[];
  readonly fullRefreshes: readonly FullRefreshSample[];
  readonly errors: Readonly<Record<string, number>>;
  readonly machine: string;
  readonly date: string;
  readonly commit: string;
  /** 1-minute load average at the start and at the end of the measured stream. */
  readonly loadAverage: readonly number[];
}

/** History keys of each stream phase start this far apart, so phases never collide on h_id. */
const HISTORY_STRIDE = 10_000_000;

/**
 * Issue 31's benchmark: the CH-benCHmark's TPC-C stream on a fresh warehouse, with four CH
 * queries as materialized views kept fresh by `floe serve`'s refresh service. A baseline
 * period (stream and base-table dashboard queries, no views), then the views are created and
 * `periods` measured periods follow (lag, refreshes, dashboard through the views and on the
 * base tables), then a phase with the stream still running in which each view is refreshed
 * in full `fullRefreshes` times.
 */
export async function runMvBenchmark(opts: MvBenchOptions): Promise<MvBenchReport> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const scale = tpccScale(opts.warehouses, opts.scale);
  const views = mvBenchViews(opts.queries);
  const serveArgs = [...(opts.serveArgs ?? []), '--optimizer-threads', String(opts.optimizerThreads)];
  const dir = mkdtempSync(join(tmpdir(), 'floe-mvbench-'));
  const loadAverage: number[] = [];
  log(`== bench:mv: W=${scale.warehouses}, ${opts.txRate} tx/s over ${opts.clients} clients; views ${views.map((v) => `Q${v.query}`).join(', ')} ` +
    `(freshness ${opts.freshnessSeconds} s); baseline ${opts.baselineMs / 60_000} min, ${opts.periods} × ${opts.periodMs / 60_000} min, full-refresh phase ${opts.fullPhaseMs / 60_000} min ==`);
  let gateway = await startGateway(dir, serveArgs);
  try {
    const gen = new TpccGenerator(scale, { loadTimeMs: Date.now() });
    const load = await loadChBenchmark(gateway.url, gen, { log, properties: { 'changelog-producer': opts.changelog } });
    log(`loaded in ${load.seconds.toFixed(1)} s`);
    await gateway.stop();
    await optimizeAfterLoad(dir, log);
    gateway = await startGateway(dir, serveArgs, { nodeArgs: opts.serveNodeArgs, env: opts.serveEnv });
    const gw = gateway;
    const basics = chStreamBasics(scale, [], { ...opts, queryTimeoutMs: 60_000 });
    const stream = (name: string, periods: number, periodMs: number, historyBase: number) => runChStream({
      url: gw.url,
      ...basics,
      periods,
      periodMs,
      firstHistoryId: basics.firstHistoryId + historyBase,
      seed: `mvbench.${name}`,
      gatewayUsage: () => gw.usage(),
      log,
    });
    const readers = new MvReaders({
      url: gw.url, views, lagEveryMs: opts.lagEveryMs, viewQueryEveryMs: opts.viewQueryEveryMs, baseQueryEveryMs: opts.baseQueryEveryMs, explainEvery: 8, log,
    });
    const phases: MvPhase[] = [];
    const createMs: Record<string, number> = {};
    const fullRefreshes: FullRefreshSample[] = [];
    try {
      // Warm-up, not measured: the restarted gateway's JIT, first reads and the service's first passes
      // would otherwise weigh on the baseline alone.
      log(`\nwarm-up: the stream and the dashboard queries on the base tables (${opts.warmupMs / 60_000} min, not measured)`);
      readers.phase = 'warm-up';
      await readers.startBase();
      await stream('warm-up', 1, opts.warmupMs, 3 * HISTORY_STRIDE);
      // Baseline: the stream and the base-table dashboard, no views: the gateway's CPU without them.
      log(`\nbaseline: the stream and the dashboard queries on the base tables, no views (${opts.baselineMs / 60_000} min)`);
      readers.phase = 'baseline';
      const baseline = await stream('baseline', 1, opts.baselineMs, 0);
      phases.push({ name: 'baseline', ms: opts.baselineMs, stats: baseline.periods[0]! });
      if (opts.baseQueries === 'baseline') await readers.stopBase();

      readers.phase = 'create';
      const admin = new pg.Client({ connectionString: gw.url });
      await admin.connect();
      try {
        for (const v of views) {
          const t0 = performance.now();
          await admin.query(createMvSql(v, opts.freshnessSeconds));
          createMs[v.name] = performance.now() - t0;
          log(`created ${v.name} in ${(createMs[v.name]! / 1000).toFixed(1)} s`);
        }
        const modes = await admin.query<{ name: string; refresh_mode: string; full_refresh_reason: string | null }>('SELECT name, refresh_mode, full_refresh_reason FROM floe_materialized_views');
        for (const r of modes.rows) log(`  ${r.name}: refresh_mode ${r.refresh_mode}${r.full_refresh_reason === null ? '' : ` (${r.full_refresh_reason})`}`);

        // Measured periods: the phase label follows the stream's own period clock.
        log(`\nmeasured: ${opts.periods} × ${opts.periodMs / 60_000} min with the views`);
        await readers.startViews();
        loadAverage.push(loadavg()[0]!);
        const t0 = performance.now();
        readers.phase = 'P1';
        const labels = (async () => {
          for (let p = 1; p < opts.periods; p++) {
            await new Promise((r) => setTimeout(r, Math.max(0, t0 + p * opts.periodMs - performance.now())));
            readers.phase = `P${p + 1}`;
          }
        })();
        const measured = await stream('measured', opts.periods, opts.periodMs, HISTORY_STRIDE);
        await labels;
        measured.periods.forEach((s, p) => phases.push({ name: `P${p + 1}`, ms: opts.periodMs, stats: s }));
        loadAverage.push(loadavg()[0]!);

        // Full refreshes, with the stream (and the refresh service, and the dashboards) still running.
        log(`\nfull-refresh phase: ${opts.fullRefreshes} full refreshes of each view, the stream still running (${opts.fullPhaseMs / 60_000} min)`);
        readers.phase = 'full';
        const fullStream = stream('full', 1, opts.fullPhaseMs, 2 * HISTORY_STRIDE);
        for (let round = 0; round < opts.fullRefreshes; round++) {
          for (const v of views) {
            const t1 = performance.now();
            const r = await admin.query<{ mode: string; duration_ms: string; rows_changed: string }>(`CALL refresh_materialized_view('${v.name}', 'full')`);
            const row = r.rows[0]!;
            fullRefreshes.push({ view: v.name, mode: row.mode, durationMs: Number(row.duration_ms), wallMs: performance.now() - t1, rowsChanged: Number(row.rows_changed) });
          }
        }
        log(`  full refreshes done; waiting for the phase's end`);
        const full = await fullStream;
        phases.push({ name: 'full', ms: opts.fullPhaseMs, stats: full.periods[0]! });
      } finally {
        await admin.end().catch(() => undefined);
      }
    } finally {
      await readers.stop();
    }
    return {
      options: { ...opts, log: undefined } as Omit<MvBenchOptions, 'log'>,
      scale,
      views,
      loadSeconds: load.seconds,
      createMs,
      phases,
      lags: readers.lags,
      refreshes: readers.refreshes,
      dashboard: readers.dashboard,
      checks: readers.checks,
      fullRefreshes,
      errors: Object.fromEntries(readers.errors),
      machine: machineDescription(),
      date: new Date().toISOString(),
      commit: gitCommit(),
      loadAverage,
    };
  } finally {
    await gateway.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown';
  }
}
