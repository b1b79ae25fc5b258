import type { ChBenchReport, ChRunReport } from './chbench-benchmark.js';
import type { QuerySample } from './chbench-driver.js';
import type { OptimizerWork } from './optimizer-work.js';
import { TPCC_TX_KINDS } from './tpcc-transactions.js';
import { markdownTable } from '../markdown-table.js';

/** One query's latencies in one period (successful runs only). */
export interface QueryPeriodStats {
  readonly count: number;
  readonly errors: number;
  readonly meanMs?: number;
  readonly p95Ms?: number;
}

/** What a run's periods come to, and the issue's three targets. */
export interface ChRunSummary {
  readonly mode: ChRunReport['mode'];
  /** [query number][period] */
  readonly queries: ReadonlyMap<number, readonly QueryPeriodStats[]>;
  /** Geomean of the per-query means, over the queries that succeeded in every period (so periods compare). */
  readonly geomeanMs: readonly (number | undefined)[];
  readonly geomeanQueries: readonly number[];
  /** Committed transactions per minute (all kinds) and New-Orders per minute (tpmC), per period. */
  readonly tpm: readonly number[];
  readonly tpmC: readonly number[];
  readonly lastOverFirstGeomean?: number;
  /** (last − first) / first of tpm: negative is a fall. */
  readonly tpmChange?: number;
  /** Tables over their read-amplification target, with how many period ends they were over at. */
  readonly overReadAmplification: ReadonlyMap<string, number>;
}

export function summarizeRun(run: ChRunReport, periodMs: number): ChRunSummary {
  const periods = run.stream.periods.length;
  const byQuery = new Map<number, QuerySample[][]>();
  for (const s of run.stream.samples) {
    const per = byQuery.get(s.query) ?? Array.from({ length: periods }, () => []);
    per[s.period]!.push(s);
    byQuery.set(s.query, per);
  }
  const queries = new Map<number, QueryPeriodStats[]>();
  for (const [q, per] of [...byQuery].sort((a, b) => a[0] - b[0])) {
    queries.set(q, per.map((samples) => {
      const ok = samples.filter((s) => s.error === undefined).map((s) => s.ms).sort((a, b) => a - b);
      return {
        count: ok.length,
        errors: samples.length - ok.length,
        meanMs: ok.length === 0 ? undefined : ok.reduce((a, b) => a + b, 0) / ok.length,
        p95Ms: ok.length === 0 ? undefined : ok[Math.min(ok.length - 1, Math.ceil(ok.length * 0.95) - 1)],
      };
    }));
  }
  const geomeanQueries = [...queries].filter(([, per]) => per.every((p) => p.meanMs !== undefined)).map(([q]) => q);
  const geomeanMs = Array.from({ length: periods }, (_, p) => {
    if (geomeanQueries.length === 0) return undefined;
    const logs = geomeanQueries.map((q) => Math.log(queries.get(q)![p]!.meanMs!));
    return Math.exp(logs.reduce((a, b) => a + b, 0) / logs.length);
  });
  const minutes = periodMs / 60_000;
  const tpm = run.stream.periods.map((p) => TPCC_TX_KINDS.reduce((s, k) => s + p.committed[k], 0) / minutes);
  const tpmC = run.stream.periods.map((p) => p.committed['new-order'] / minutes);
  const over = new Map<string, number>();
  for (const p of run.stream.periods) {
    for (const f of p.files) if (f.readAmplification > f.readAmplificationMax) over.set(f.table, (over.get(f.table) ?? 0) + 1);
  }
  const first = geomeanMs[0];
  const last = geomeanMs[periods - 1];
  return {
    mode: run.mode,
    queries,
    geomeanMs,
    geomeanQueries,
    tpm,
    tpmC,
    lastOverFirstGeomean: first !== undefined && last !== undefined && periods > 1 ? last / first : undefined,
    tpmChange: periods > 1 && tpm[0]! > 0 ? (tpm[periods - 1]! - tpm[0]!) / tpm[0]! : undefined,
    overReadAmplification: over,
  };
}

const ms = (v: number | undefined) => (v === undefined ? '—' : v >= 100 ? v.toFixed(0) : v.toFixed(1));
const ratio = (v: number | undefined) => (v === undefined ? '—' : `${v.toFixed(2)}×`);
const pct = (v: number | undefined) => (v === undefined ? '—' : `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%`);

/** The readable report: per run, a table of query latencies per period (with the peer's column), transactions and files; then the targets. */
export function formatChReport(report: ChBenchReport): string {
  const o = report.options;
  const out: string[] = [];
  out.push(`CH-benCHmark on Floe: W=${report.scale.warehouses} (items ${report.scale.items}, customers/district ${report.scale.customersPerDistrict}), ` +
    `${o.txRate} tx/s over ${o.clients} clients, ${o.periods} periods × ${(o.periodMs / 60_000).toFixed(1)} min`);
  out.push(`${report.machine}; ${report.date}`);
  if (o.explainAnalyze === true) out.push('measured queries ran as EXPLAIN ANALYZE, plans in the JSON samples (a diagnostic run: latencies include the instrumentation)');
  for (const [q, why] of Object.entries(report.skipped)) out.push(`Q${q} skipped: ${why}`);
  const summaries = report.runs.map((r) => summarizeRun(r, o.periodMs));
  const peerMs = new Map((report.peer?.queries ?? []).map((p) => [p.query, p]));
  for (const [i, run] of report.runs.entries()) {
    const s = summaries[i]!;
    const periods = run.stream.periods.length;
    out.push('', `## ${run.mode}${run.serveArgs.length > 0 ? ` (floe serve ${run.serveArgs.join(' ')})` : ''}`);
    if (run.serveNodeArgs.length > 0) out.push(`gateway node flags: ${run.serveNodeArgs.join(' ')} (a diagnostic run, not the gateway as shipped)`);
    for (const n of run.notes) out.push(`note: ${n}`);
    const header = ['query', ...Array.from({ length: periods }, (_, p) => [`P${p + 1} mean ms`, `P${p + 1} p95`]).flat(), ...(report.peer === undefined ? [] : ['DuckDB ms'])];
    const rows = [...s.queries].map(([q, per]) => [
      `Q${q}`,
      ...per.flatMap((p) => [p.count === 0 && p.errors > 0 ? `err×${p.errors}` : ms(p.meanMs), ms(p.p95Ms)]),
      ...(report.peer === undefined ? [] : [peerMs.get(q)?.error !== undefined ? 'error' : ms(peerMs.get(q)?.ms)]),
    ]);
    const peerGeo = geomean(s.geomeanQueries.map((q) => peerMs.get(q)?.ms));
    rows.push(['geomean', ...s.geomeanMs.flatMap((g) => [ms(g), '']), ...(report.peer === undefined ? [] : [ms(peerGeo)])]);
    rows.push(['tpm (all)', ...s.tpm.flatMap((t) => [t.toFixed(0), '']), ...(report.peer === undefined ? [] : [''])]);
    rows.push(['tpmC (New-Order)', ...s.tpmC.flatMap((t) => [t.toFixed(0), '']), ...(report.peer === undefined ? [] : [''])]);
    if (run.stream.periods.some((p) => p.gateway !== undefined)) {
      rows.push(['gateway CPU s (main thread)', ...run.stream.periods.flatMap((p) => [p.gateway === undefined ? '—'
        : `${(p.gateway.cpuMs / 1000).toFixed(0)} (${(p.gateway.mainThreadCpuMs / 1000).toFixed(0)})`, '']), ...(report.peer === undefined ? [] : [''])]);
      rows.push(['gateway RSS at end (MB)', ...run.stream.periods.flatMap((p) => [p.gateway === undefined ? '—' : (p.gateway.rssBytes / 1e6).toFixed(0), '']), ...(report.peer === undefined ? [] : [''])]);
    }
    rows.push(['retried / failed / missed', ...run.stream.periods.flatMap((p) => [`${p.retried}/${p.failed}/${p.missed}`, '']), ...(report.peer === undefined ? [] : [''])]);
    out.push(markdownTable(header, rows));
    out.push(`geomean over ${s.geomeanQueries.length} queries that ran in every period`);
    const fileRows = (run.stream.periods[0]?.files ?? []).map((f, t) => [
      f.table,
      ...run.stream.periods.map((p) => {
        const x = p.files[t];
        if (x === undefined) return '—';
        const service = x.status === undefined ? '' : ` ${x.status}${x.healthScore === undefined ? '' : ` h${x.healthScore}`}`;
        const rows = x.pendingChangeRows === undefined ? '' : `, ${x.pendingChangeRows} rows`;
        return `${x.baseFiles}+${x.changeFiles} (ra ${x.readAmplification}/${x.readAmplificationMax}${service}${rows})`;
      }),
    ]);
    if (fileRows.length > 0) {
      const source = run.stream.periods.some((p) => p.files.some((f) => f.source === 'floe_optimizing')) ? 'floe_optimizing' : 't$buckets';
      out.push('', `files per table at each period end: base+change (read amplification / target, from ${source}${source === 'floe_optimizing' ? '; status, health score' : ''})`);
      out.push(markdownTable(['table', ...Array.from({ length: periods }, (_, p) => `P${p + 1}`)], fileRows));
    }
    const busyTables = [...new Set(run.stream.periods.flatMap((p) => (p.optimizer ?? []).map((w) => w.table)))].sort();
    if (busyTables.length > 0) {
      const cell = (w: OptimizerWork | undefined) => (w === undefined ? '—'
        : `${(w.busyMs / 1000).toFixed(1)} s ${w.folds}f/${w.compactions}c/${w.processes - w.folds - w.compactions - w.failed}n${w.failed > 0 ? `/${w.failed}✗` : ''} ${(w.bytesIn / 1e6).toFixed(0)} MB`);
      const workRows = busyTables.map((t) => [t, ...run.stream.periods.map((p) => cell((p.optimizer ?? []).find((w) => w.table === t)))]);
      workRows.push(['all', ...run.stream.periods.map((p) => `${((p.optimizer ?? []).reduce((n, w) => n + w.busyMs, 0) / 1000).toFixed(0)} s`)]);
      out.push('', 'optimizer work per period (floe_optimizing_history: thread time, folds f / compactions c / processes that did nothing n, bytes read)');
      out.push(markdownTable(['table', ...Array.from({ length: periods }, (_, p) => `P${p + 1}`)], workRows));
    }
    if (run.stream.errors.size > 0) {
      out.push('', 'errors:');
      for (const [m, n] of run.stream.errors) out.push(`  ${n}× ${m}`);
    }
  }
  if (report.peer !== undefined) {
    out.push('', `peer: DuckDB (in-process, in-memory) after replaying ${report.peer.transactionsApplied} committed transactions in ${report.peer.applySeconds.toFixed(1)} s` +
      `${report.peer.replayErrors > 0 ? ` (${report.peer.replayErrors} refused by DuckDB)` : ''}; each query's second run`);
  }
  out.push('', '## targets (issue 23), with the service on; the run without optimizing beside it');
  const on = summaries.find((s) => s.mode === 'optimizing');
  const off = summaries.find((s) => s.mode === 'no-optimizing');
  const verdict = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'met' : 'MISSED');
  const overText = (s: ChRunSummary | undefined) => (s === undefined ? '—' : s.overReadAmplification.size === 0 ? 'none' : [...s.overReadAmplification].map(([t, n]) => `${t} ${n}`).join(', '));
  out.push(markdownTable(['target', 'optimizing', 'no optimizing', 'verdict'], [
    ['last period geomean / first ≤ 1.05×', ratio(on?.lastOverFirstGeomean), ratio(off?.lastOverFirstGeomean), verdict(on?.lastOverFirstGeomean === undefined ? undefined : on.lastOverFirstGeomean <= 1.05)],
    ['tpm change, last vs first ≥ −5%', pct(on?.tpmChange), pct(off?.tpmChange), verdict(on?.tpmChange === undefined ? undefined : on.tpmChange >= -0.05)],
    ['tables over read-amp. target (periods)', overText(on), overText(off), verdict(on === undefined ? undefined : [...on.overReadAmplification.values()].every((n) => n <= 1))],
  ]));
  return out.join('\n');
}

function geomean(values: readonly (number | undefined)[]): number | undefined {
  const present = values.filter((v): v is number => v !== undefined && v > 0);
  if (values.length === 0 || present.length < values.length) return undefined;
  return Math.exp(present.reduce((sum, v) => sum + Math.log(v), 0) / present.length);
}

/** The report as JSON (maps as objects, the write log as its length), for recording. */
export function chReportJson(report: ChBenchReport): string {
  return JSON.stringify(report, (k, v: unknown) => {
    if (k === 'writeLog' && Array.isArray(v)) return { transactions: v.length };
    return v instanceof Map ? Object.fromEntries(v) : v;
  }, 2);
}
