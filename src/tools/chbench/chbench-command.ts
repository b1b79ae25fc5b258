import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { positiveOption } from '../command-line.js';
import type { ChBenchOptions, ChRunMode } from './chbench-benchmark.js';

export const CHBENCH_USAGE = `usage: npm run bench:stream -- [options]
  The CH-benCHmark (issue 23): TPC-C transactions through the wire at a steady rate while
  the 22 CH queries run in rounds, on a fresh warehouse with the self-optimizing service on,
  then again with 'self-optimizing.enabled' = 'false' on every table, then the queries on DuckDB
  after the first run's committed transactions were replayed into it.
  --warehouses W        TPC-C warehouses (default 4)
  --tx-rate N           transactions started per second, paced (default 2: a rate a 2-core gateway keeps while the queries run)
  --clients N           transaction connections (default 4)
  --periods N           measured periods (default 4)
  --period-minutes M    length of a period (default 5)
  --query-timeout S     a CH query past S seconds is cancelled and counted as an error (default 300)
  --queries 1,3,6       only these CH queries (default all but Q15)
  --only optimizing|no-optimizing   one run instead of both
  --no-peer             skip the DuckDB peer
  --optimizer-threads N passed to floe serve (default 1)
  --serve-arg ARG       an extra floe serve argument (repeatable)
  --serve-node-arg=ARG  a node flag for the measured gateway only, for diagnosis, e.g. --serve-node-arg=--cpu-prof (repeatable)
  --explain-analyze     run each measured query as EXPLAIN ANALYZE and keep its plan in the JSON samples, for diagnosis
  --quick               smoke run: W=1 scaled down (10,000 items, 1,000 customers and orders per district), 4 periods of 30 s, 2 tx/s
  --json FILE           also write the whole report as JSON
  --out FILE            also write the readable report`;

/** Entry point of `npm run bench:stream` (argv: the options). */
export async function runChBenchCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      warehouses: { type: 'string' },
      'tx-rate': { type: 'string' },
      clients: { type: 'string', default: '4' },
      periods: { type: 'string', default: '4' },
      'period-minutes': { type: 'string' },
      'query-timeout': { type: 'string', default: '300' },
      queries: { type: 'string' },
      only: { type: 'string' },
      'no-peer': { type: 'boolean', default: false },
      'optimizer-threads': { type: 'string', default: '1' },
      'serve-arg': { type: 'string', multiple: true },
      'serve-node-arg': { type: 'string', multiple: true },
      'explain-analyze': { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help === true) {
    process.stdout.write(`${CHBENCH_USAGE}\n`);
    return;
  }
  const quick = values.quick === true;
  if (values.only !== undefined && values.only !== 'optimizing' && values.only !== 'no-optimizing') throw new Error(`--only must be optimizing or no-optimizing\n${CHBENCH_USAGE}`);
  const opts: ChBenchOptions = {
    warehouses: positiveOption('--warehouses', values.warehouses ?? (quick ? '1' : '4'), CHBENCH_USAGE, true),
    txRate: positiveOption('--tx-rate', values['tx-rate'] ?? '2', CHBENCH_USAGE, false),
    clients: positiveOption('--clients', values.clients, CHBENCH_USAGE, true),
    periods: positiveOption('--periods', values.periods, CHBENCH_USAGE, true),
    periodMs: positiveOption('--period-minutes', values['period-minutes'] ?? (quick ? '0.5' : '5'), CHBENCH_USAGE, false) * 60_000,
    queryTimeoutMs: positiveOption('--query-timeout', values['query-timeout'], CHBENCH_USAGE, false) * 1000,
    queries: values.queries?.split(',').map((q) => positiveOption('--queries', q.trim().replace(/^q/i, ''), CHBENCH_USAGE, true)),
    modes: values.only === undefined ? undefined : [values.only as ChRunMode],
    peer: values['no-peer'] !== true,
    optimizerThreads: positiveOption('--optimizer-threads', values['optimizer-threads'], CHBENCH_USAGE, true),
    serveArgs: values['serve-arg'],
    serveNodeArgs: values['serve-node-arg'],
    explainAnalyze: values['explain-analyze'] === true,
    scale: quick ? { items: 10_000, customersPerDistrict: 1_000, ordersPerDistrict: 1_000 } : undefined,
  };
  // DuckDB is a dev dependency: load the benchmark only when asked for.
  const { runChBenchmark } = await import('./chbench-benchmark.js');
  const { chReportJson, formatChReport } = await import('./chbench-report.js');
  const report = await runChBenchmark(opts);
  const text = formatChReport(report);
  process.stdout.write(`\n${text}\n`);
  if (values.out !== undefined) writeFileSync(values.out, `${text}\n`);
  if (values.json !== undefined) writeFileSync(values.json, `${chReportJson(report)}\n`);
}
