import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { positiveOption } from '../command-line.js';
import type { MvBenchOptions } from './mv-benchmark.js';
import { MV_BENCH_QUERIES } from './mv-views.js';

export const MVBENCH_USAGE = `usage: npm run bench:mv -- [options]
  Issue 31's benchmark: the CH-benCHmark's TPC-C stream (bench:stream's driver) on a fresh
  warehouse with four CH queries (Q${MV_BENCH_QUERIES.join(', Q')}) as materialized views kept within their freshness by
  floe serve's refresh service. A baseline period without views (the dashboard queries on
  the base tables), the measured periods (view lag, refresh time, the dashboard queries
  through the views), then full refreshes of each view with the stream still running.
  --warehouses W          TPC-C warehouses (default 2)
  --tx-rate N             transactions started per second, paced (default 2)
  --clients N             transaction connections (default 4)
  --periods N             measured periods (default 3)
  --period-minutes M      length of a measured period (default 2)
  --baseline-minutes M    the baseline period, without views (default: a period)
  --warmup-minutes M      unmeasured stream before the baseline (default 0.5)
  --full-minutes M        the full-refresh phase (default 1.5)
  --full-refreshes N      full refreshes of each view in it; the median counts (default 5)
  --freshness S           the views' declared freshness in seconds (default 10)
  --queries 1,6,12,5      the CH queries kept as views
  --view-query-ms N       one dashboard query through the views every N ms (default 250)
  --base-query-ms N       one dashboard query on the base tables every N ms (default 2000)
  --base-queries WHEN     when the base-table dashboard runs: baseline (before the views exist,
                          default) or throughout (beside the dashboard through the views too)
  --optimizer-threads N   passed to floe serve (default 1)
  --changelog P           the TPC-C tables' changelog-producer, input or lookup (default input)
  --serve-arg ARG         an extra floe serve argument (repeatable)
  --serve-node-arg=ARG    a node flag for the measured gateway, for diagnosis, e.g. --serve-node-arg=--cpu-prof (repeatable)
  --serve-env K=V         an environment variable for the measured gateway, e.g. FLOE_TRACE_SPANS=… (repeatable)
  --quick                 smoke run (~3 min): W=1 scaled down (10,000 items, 1,000 customers and orders per district), 15 s warm-up, 30 s baseline, 2 × 30 s, 30 s full phase, 3 full refreshes
  --json FILE             also write the whole report (every sample) as JSON
  --out FILE              also write the readable report`;

/** Entry point of `npm run bench:mv` (argv: the options). */
export async function runMvBenchCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      warehouses: { type: 'string' },
      'tx-rate': { type: 'string', default: '2' },
      clients: { type: 'string', default: '4' },
      periods: { type: 'string' },
      'period-minutes': { type: 'string' },
      'baseline-minutes': { type: 'string' },
      'full-minutes': { type: 'string' },
      'warmup-minutes': { type: 'string' },
      'full-refreshes': { type: 'string' },
      freshness: { type: 'string', default: '10' },
      queries: { type: 'string' },
      'view-query-ms': { type: 'string', default: '250' },
      'base-query-ms': { type: 'string', default: '2000' },
      'base-queries': { type: 'string', default: 'baseline' },
      'optimizer-threads': { type: 'string', default: '1' },
      changelog: { type: 'string', default: 'input' },
      'serve-arg': { type: 'string', multiple: true },
      'serve-node-arg': { type: 'string', multiple: true },
      'serve-env': { type: 'string', multiple: true },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help === true) {
    process.stdout.write(`${MVBENCH_USAGE}\n`);
    return;
  }
  const quick = values.quick === true;
  const minutes = (flag: string, v: string | undefined, dflt: string) => positiveOption(flag, v ?? dflt, MVBENCH_USAGE, false) * 60_000;
  const periodMs = minutes('--period-minutes', values['period-minutes'], quick ? '0.5' : '2');
  const serveEnv = Object.fromEntries((values['serve-env'] ?? []).map((kv) => {
    const i = kv.indexOf('=');
    if (i <= 0) throw new Error(`--serve-env takes K=V, got ${kv}\n${MVBENCH_USAGE}`);
    return [kv.slice(0, i), kv.slice(i + 1)];
  }));
  const opts: MvBenchOptions = {
    warehouses: positiveOption('--warehouses', values.warehouses ?? (quick ? '1' : '2'), MVBENCH_USAGE, true),
    txRate: positiveOption('--tx-rate', values['tx-rate'], MVBENCH_USAGE, false),
    clients: positiveOption('--clients', values.clients, MVBENCH_USAGE, true),
    periods: positiveOption('--periods', values.periods ?? (quick ? '2' : '3'), MVBENCH_USAGE, true),
    periodMs,
    baselineMs: values['baseline-minutes'] === undefined ? periodMs : minutes('--baseline-minutes', values['baseline-minutes'], ''),
    warmupMs: minutes('--warmup-minutes', values['warmup-minutes'], quick ? '0.25' : '0.5'),
    fullPhaseMs: minutes('--full-minutes', values['full-minutes'], quick ? '0.5' : '1.5'),
    fullRefreshes: positiveOption('--full-refreshes', values['full-refreshes'] ?? (quick ? '3' : '5'), MVBENCH_USAGE, true),
    freshnessSeconds: positiveOption('--freshness', values.freshness, MVBENCH_USAGE, false),
    queries: values.queries?.split(',').map((q) => positiveOption('--queries', q.trim().replace(/^q/i, ''), MVBENCH_USAGE, true)),
    lagEveryMs: 250,
    viewQueryEveryMs: positiveOption('--view-query-ms', values['view-query-ms'], MVBENCH_USAGE, false),
    baseQueryEveryMs: positiveOption('--base-query-ms', values['base-query-ms'], MVBENCH_USAGE, false),
    baseQueries: baseQueriesOption(values['base-queries']!),
    optimizerThreads: positiveOption('--optimizer-threads', values['optimizer-threads'], MVBENCH_USAGE, true),
    changelog: changelogOption(values.changelog!),
    serveArgs: values['serve-arg'],
    serveNodeArgs: values['serve-node-arg'],
    serveEnv,
    scale: quick ? { items: 10_000, customersPerDistrict: 1_000, ordersPerDistrict: 1_000 } : undefined,
  };
  const { runMvBenchmark } = await import('./mv-benchmark.js');
  const { formatMvReport, mvReportJson } = await import('./mv-report.js');
  const report = await runMvBenchmark(opts);
  const text = formatMvReport(report);
  process.stdout.write(`\n${text}\n`);
  if (values.out !== undefined) writeFileSync(values.out, `${text}\n`);
  if (values.json !== undefined) writeFileSync(values.json, `${mvReportJson(report)}\n`);
}

function baseQueriesOption(v: string): 'baseline' | 'throughout' {
  if (v !== 'baseline' && v !== 'throughout') throw new Error(`--base-queries takes baseline or throughout, got ${v}\n${MVBENCH_USAGE}`);
  return v;
}

function changelogOption(v: string): 'input' | 'lookup' {
  if (v !== 'input' && v !== 'lookup') throw new Error(`--changelog takes input or lookup, got ${v}\n${MVBENCH_USAGE}`);
  return v;
}
