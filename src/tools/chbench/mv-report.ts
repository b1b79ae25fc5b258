import { markdownTable } from '../markdown-table.js';
import type { MvBenchReport } from './mv-benchmark.js';
import { TPCC_TX_KINDS } from './tpcc-transactions.js';

/** Nearest-rank percentile of ascending values. */
function percentile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))];
}

const asc = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);
const mean = (xs: readonly number[]) => (xs.length === 0 ? undefined : xs.reduce((a, b) => a + b, 0) / xs.length);

export interface MvViewSummary {
  readonly view: string;
  readonly query: number;
  readonly lagP50Ms?: number;
  readonly lagP99Ms?: number;
  readonly lagSamples: number;
  readonly incrementalRefreshes: number;
  /** Refreshes the service ran in full (it chooses full when full has been measured cheaper). */
  readonly serviceFullRefreshes: number;
  /** Sum of the refreshes' durations per minute of the phases, in seconds. */
  readonly refreshSecondsPerMinute: number;
  readonly incrementalMeanMs?: number;
  readonly incrementalRowsMean?: number;
  readonly viewP50Ms?: number;
  readonly viewP99Ms?: number;
  readonly viewCount: number;
  readonly baseP50Ms?: number;
  readonly baseP99Ms?: number;
  readonly baseCount: number;
  readonly errors: number;
  /** EXPLAINs of the dashboard query on the rewriting connection: answered from the view / all. */
  readonly fromView: number;
  readonly checks: number;
}

/** Per view, over the given phases; the base-table dashboard's figures from `basePhases`. */
export function summarizeViews(r: MvBenchReport, phases: readonly string[], basePhases: readonly string[] = phases): MvViewSummary[] {
  const inPhases = new Set(phases);
  const inBasePhases = new Set(basePhases);
  const minutes = r.phases.filter((p) => inPhases.has(p.name)).reduce((s, p) => s + p.ms, 0) / 60_000;
  return r.views.map((v) => {
    const lags = asc(r.lags.filter((s) => s.view === v.name && inPhases.has(s.phase) && s.lagMs !== undefined).map((s) => s.lagMs!));
    const refreshes = r.refreshes.filter((s) => s.view === v.name && inPhases.has(s.phase));
    const incremental = refreshes.filter((s) => s.mode === 'incremental');
    const dash = r.dashboard.filter((s) => s.view === v.name && (s.via === 'view' ? inPhases : inBasePhases).has(s.phase));
    const ok = (via: 'view' | 'base') => asc(dash.filter((s) => s.via === via && s.error === undefined).map((s) => s.ms));
    const viaView = ok('view');
    const base = ok('base');
    const checks = r.checks.filter((c) => c.view === v.name && inPhases.has(c.phase));
    return {
      view: v.name,
      query: v.query,
      lagP50Ms: percentile(lags, 0.5),
      lagP99Ms: percentile(lags, 0.99),
      lagSamples: lags.length,
      incrementalRefreshes: incremental.length,
      serviceFullRefreshes: refreshes.length - incremental.length,
      refreshSecondsPerMinute: minutes === 0 ? 0 : refreshes.reduce((s, x) => s + x.durationMs, 0) / 1000 / minutes,
      incrementalMeanMs: mean(incremental.map((s) => s.durationMs)),
      incrementalRowsMean: mean(incremental.map((s) => s.rowsChanged)),
      viewP50Ms: percentile(viaView, 0.5),
      viewP99Ms: percentile(viaView, 0.99),
      viewCount: viaView.length,
      baseP50Ms: percentile(base, 0.5),
      baseP99Ms: percentile(base, 0.99),
      baseCount: base.length,
      errors: dash.filter((s) => s.error !== undefined).length,
      fromView: checks.filter((c) => c.fromView).length,
      checks: checks.length,
    };
  });
}

/** The median full refresh of each view (the CALL's own duration), from the full-refresh phase. */
export function fullRefreshMedians(r: MvBenchReport): Map<string, { readonly medianMs: number; readonly count: number; readonly rowsChanged: number }> {
  const out = new Map<string, { medianMs: number; count: number; rowsChanged: number }>();
  for (const v of r.views) {
    const xs = r.fullRefreshes.filter((f) => f.view === v.name);
    if (xs.length === 0) continue;
    const d = asc(xs.map((f) => f.durationMs));
    out.set(v.name, { medianMs: d[Math.floor((d.length - 1) / 2)]!, count: xs.length, rowsChanged: mean(xs.map((f) => f.rowsChanged))! });
  }
  return out;
}

const ms = (v: number | undefined) => (v === undefined ? '—' : v >= 100 ? v.toFixed(0) : v.toFixed(1));
const sec = (v: number | undefined) => (v === undefined ? '—' : (v / 1000).toFixed(1));
const times = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '—' : v >= 10 ? `${v.toFixed(0)}×` : `${v.toFixed(1)}×`);
const pct = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '—' : `${(v * 100).toFixed(1)}%`);

export function formatMvReport(r: MvBenchReport): string {
  const o = r.options;
  const measured = r.phases.filter((p) => /^P\d+$/.test(p.name)).map((p) => p.name);
  // Runs recorded before the option had the base-table dashboard running throughout.
  const baseInBaseline = o.baseQueries === 'baseline';
  const basePhases = (phases: readonly string[]) => (baseInBaseline ? ['baseline'] : phases);
  const out: string[] = [];
  out.push(`bench:mv (issue 31): W=${r.scale.warehouses} (items ${r.scale.items}, customers/district ${r.scale.customersPerDistrict}), ${o.txRate} tx/s over ${o.clients} clients; ` +
    `views ${r.views.map((v) => `Q${v.query}`).join(', ')}, freshness ${o.freshnessSeconds} s, changelog-producer ${o.changelog}; ${measured.length} × ${(o.periodMs / 60_000).toFixed(1)} min measured`);
  out.push(`${r.machine}; ${r.date}; commit ${r.commit}; load average (1 min) at start/end of the measured periods: ${r.loadAverage.map((l) => l.toFixed(2)).join(' / ')}`);
  out.push(`load ${r.loadSeconds.toFixed(0)} s; CREATE MATERIALIZED VIEW (first population, no stream): ${r.views.map((v) => `${v.name} ${sec(r.createMs[v.name])} s`).join(', ')}`);
  if ((o.serveNodeArgs?.length ?? 0) > 0 || Object.keys(o.serveEnv ?? {}).length > 0) {
    out.push(`gateway run with ${[...(o.serveNodeArgs ?? []), ...Object.entries(o.serveEnv ?? {}).map(([k, v]) => `${k}=${v}`)].join(' ')} (a diagnostic run)`);
  }
  out.push(`dashboard: through the views one query every ${o.viewQueryEveryMs} ms, on the base tables (floe.mv_rewrite = off) one every ${o.baseQueryEveryMs} ms` +
    `${baseInBaseline ? ' in the baseline only (before the views; its figures stand beside every period)' : ' for the whole run, beside the queries through the views'}, ` +
    `round-robin, each on one held connection; lag sampled every ${o.lagEveryMs} ms from floe_materialized_views`);

  out.push('', '## per period: lag, refresh wall time, dashboard latency (ours: through the view; peer: the same query on the base tables)');
  const rows: string[][] = [];
  for (const p of measured) {
    for (const s of summarizeViews(r, [p], basePhases([p]))) {
      rows.push([p, `Q${s.query}`, sec(s.lagP50Ms), sec(s.lagP99Ms), `${s.incrementalRefreshes}${s.serviceFullRefreshes > 0 ? `+${s.serviceFullRefreshes}f` : ''}`,
        s.refreshSecondsPerMinute.toFixed(2), ms(s.viewP50Ms), ms(s.viewP99Ms), ms(s.baseP50Ms), ms(s.baseP99Ms),
        times(s.baseP99Ms !== undefined && s.viewP99Ms !== undefined ? s.baseP99Ms / s.viewP99Ms : undefined), `${s.fromView}/${s.checks}`]);
    }
  }
  out.push(markdownTable(['period', 'view', 'lag p50 s', 'lag p99 s', 'refreshes', 'refresh s/min', 'view p50 ms', 'view p99 ms', 'base p50 ms', 'base p99 ms', 'base÷view p99', 'from view'], rows, 2));
  out.push('refreshes: incremental (+ full ones the service chose); refresh s/min: sum of the refreshes\' durations (floe_materialized_views.last_refresh_duration) per minute; ' +
    'from view: EXPLAINs of the dashboard query showing the view\'s scan / EXPLAINs (a view staler than its freshness is not offered)');

  out.push('', '## the stream and the gateway, per phase');
  const cpuPerMin = (p: (typeof r.phases)[number]) => (p.stats.gateway === undefined ? undefined : p.stats.gateway.cpuMs / 1000 / (p.ms / 60_000));
  const baseline = r.phases.find((p) => p.name === 'baseline');
  const baseCpu = baseline === undefined ? undefined : cpuPerMin(baseline);
  out.push(markdownTable(['phase', 'tpm (all)', 'retried/failed/missed', 'gateway CPU s/min', 'main thread s/min', 'vs baseline', 'refresh s/min (all views)'], r.phases.map((p) => {
    const cpu = cpuPerMin(p);
    const refresh = r.refreshes.filter((x) => x.phase === p.name).reduce((s, x) => s + x.durationMs, 0) / 1000 / (p.ms / 60_000);
    return [p.name, (TPCC_TX_KINDS.reduce((s, k) => s + p.stats.committed[k], 0) / (p.ms / 60_000)).toFixed(0), `${p.stats.retried}/${p.stats.failed}/${p.stats.missed}`,
      cpu === undefined ? '—' : cpu.toFixed(1), p.stats.gateway === undefined ? '—' : (p.stats.gateway.mainThreadCpuMs / 1000 / (p.ms / 60_000)).toFixed(1),
      cpu === undefined || baseCpu === undefined || p.name === 'baseline' ? '—' : `${cpu - baseCpu >= 0 ? '+' : ''}${(cpu - baseCpu).toFixed(1)}`, p.name === 'baseline' ? '—' : refresh.toFixed(2)];
  })));
  out.push(baseInBaseline
    ? 'baseline: the stream and the base-table dashboard queries, no views; later phases: the stream, the views, the refresh service and the dashboard through the views ' +
      '(vs baseline: the CPU of a dashboard through kept views against the same dashboard on the base tables); full: the full-refresh phase (the bench\'s full refreshes on top)'
    : 'baseline: the stream and the base-table dashboard queries, no views; later phases add the views, the refresh service and the dashboard through the views ' +
      '(vs baseline: the CPU they add, refreshes and view queries together); full: the full-refresh phase (the bench\'s full refreshes on top)');

  out.push('', `## over the ${measured.length} measured periods, and incremental against full refresh (full: ${o.fullRefreshes} × CALL refresh_materialized_view(v, 'full') per view, stream running)`);
  const all = summarizeViews(r, measured, basePhases(measured));
  const full = fullRefreshMedians(r);
  out.push(markdownTable(['view', 'lag p50 s', 'lag p99 s', 'view p50 ms', 'view p99 ms', 'base p50 ms', 'base p99 ms', 'base÷view p99', 'incr. mean ms (n)', 'rows/incr.', 'full median ms', 'incr÷full', 'refresh s/min', 'full s/min at this cadence'],
    all.map((s) => {
      const f = full.get(s.view);
      const perMin = s.incrementalRefreshes / (measured.length * o.periodMs / 60_000);
      return [`Q${s.query} (${s.view})`, sec(s.lagP50Ms), sec(s.lagP99Ms), ms(s.viewP50Ms), ms(s.viewP99Ms), ms(s.baseP50Ms), ms(s.baseP99Ms),
        times(s.baseP99Ms !== undefined && s.viewP99Ms !== undefined ? s.baseP99Ms / s.viewP99Ms : undefined),
        `${ms(s.incrementalMeanMs)} (${s.incrementalRefreshes})`, s.incrementalRowsMean === undefined ? '—' : s.incrementalRowsMean.toFixed(0), ms(f?.medianMs),
        pct(f === undefined || s.incrementalMeanMs === undefined ? undefined : s.incrementalMeanMs / f.medianMs), s.refreshSecondsPerMinute.toFixed(2),
        f === undefined ? '—' : (f.medianMs / 1000 * perMin).toFixed(2)];
    }), 1));
  out.push('full s/min at this cadence: the median full refresh × the incremental refreshes per minute the service ran (what holding the freshness by full recomputation would cost)');

  out.push('', `## targets (issue 31), worst view over the measured periods`);
  const worst = (xs: readonly (number | undefined)[]) => (xs.some((x) => x === undefined) ? undefined : Math.max(...(xs as number[])));
  const dashP99 = worst(all.map((s) => s.viewP99Ms));
  const lagP99 = worst(all.map((s) => s.lagP99Ms));
  const ratioWorst = worst(all.map((s) => {
    const f = full.get(s.view);
    return f === undefined || s.incrementalMeanMs === undefined ? undefined : s.incrementalMeanMs / f.medianMs;
  }));
  const verdict = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'met' : 'MISSED');
  out.push(markdownTable(['target', 'measured', 'verdict'], [
    ['dashboard query through the view, p99 ≤ 20 ms', `${ms(dashP99)} ms`, verdict(dashP99 === undefined ? undefined : dashP99 <= 20)],
    [`lag p99 ≤ freshness (${o.freshnessSeconds} s)`, `${sec(lagP99)} s`, verdict(lagP99 === undefined ? undefined : lagP99 <= o.freshnessSeconds * 1000)],
    ['incremental refresh ≤ 10% of a full one', pct(ratioWorst), verdict(ratioWorst === undefined ? undefined : ratioWorst <= 0.1)],
  ]));
  const errors = Object.entries(r.errors);
  if (errors.length > 0) {
    out.push('', 'reader errors:');
    for (const [m, n] of errors) out.push(`  ${n}× ${m}`);
  }
  return out.join('\n');
}

/** The report as JSON (every sample), for recording. */
export function mvReportJson(r: MvBenchReport): string {
  return JSON.stringify(r, null, 2);
}
