import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { positiveOption } from '../command-line.js';
import type { CdcBenchOptions } from './cdc-benchmark.js';

export const CDCBENCH_USAGE = `usage: npm run bench:cdc -- [options]
  Issue 27's benchmark: TPC-C runs on PostgreSQL 15 (the source) while Floe subscribes to it
  (CREATE SUBSCRIPTION, initial copy, then streaming), and the CH queries run on Floe; then
  the same queries run on the source as the peer. Reports the initial copy's rows/s, each
  source commit's time until a Floe snapshot holds it (p50/p99 per period) and until a
  polling reader sees it, the slot's lag, and row counts on both sides at the end.
  --source URL          an existing PostgreSQL 15 with wal_level = logical (a database is made in it
                        and dropped after); default: a throwaway cluster, fsync on. Freshness
                        compares its clock with this machine's: on another machine, their skew counts
  --warehouses W        TPC-C warehouses (default 4)
  --tx-rate N           source transactions started per second, paced (default 2)
  --clients N           source connections (default 4)
  --periods N           measured periods (default 4)
  --period-minutes M    length of a period (default 5)
  --query-timeout S     a CH query past S seconds is cancelled (default 300)
  --queries 1,3,6       only these CH queries (default all)
  --poll-ms N           how often the freshness poller reads Floe (default 50)
  --optimizer-threads N passed to floe serve (default 1)
  --quick               smoke run: W=1 scaled down (10,000 items, 1,000 customers and orders per district), 2 periods of 30 s
  --json FILE           also write the whole report as JSON
  --out FILE            also write the readable report`;

/** Entry point of `npm run bench:cdc` (argv: the options). */
export async function runCdcBenchCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      source: { type: 'string' },
      warehouses: { type: 'string' },
      'tx-rate': { type: 'string', default: '2' },
      clients: { type: 'string', default: '4' },
      periods: { type: 'string' },
      'period-minutes': { type: 'string' },
      'query-timeout': { type: 'string', default: '300' },
      queries: { type: 'string' },
      'poll-ms': { type: 'string', default: '50' },
      'optimizer-threads': { type: 'string', default: '1' },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help === true) {
    process.stdout.write(`${CDCBENCH_USAGE}\n`);
    return;
  }
  const quick = values.quick === true;
  const opts: CdcBenchOptions = {
    ...(values.source === undefined ? {} : { sourceUrl: values.source }),
    warehouses: positiveOption('--warehouses', values.warehouses ?? (quick ? '1' : '4'), CDCBENCH_USAGE, true),
    txRate: positiveOption('--tx-rate', values['tx-rate'], CDCBENCH_USAGE, false),
    clients: positiveOption('--clients', values.clients, CDCBENCH_USAGE, true),
    periods: positiveOption('--periods', values.periods ?? (quick ? '2' : '4'), CDCBENCH_USAGE, true),
    periodMs: positiveOption('--period-minutes', values['period-minutes'] ?? (quick ? '0.5' : '5'), CDCBENCH_USAGE, false) * 60_000,
    queryTimeoutMs: positiveOption('--query-timeout', values['query-timeout'], CDCBENCH_USAGE, false) * 1000,
    ...(values.queries === undefined ? {} : { queries: values.queries.split(',').map((q) => positiveOption('--queries', q.trim().replace(/^q/i, ''), CDCBENCH_USAGE, true)) }),
    pollMs: positiveOption('--poll-ms', values['poll-ms'], CDCBENCH_USAGE, true),
    optimizerThreads: positiveOption('--optimizer-threads', values['optimizer-threads'], CDCBENCH_USAGE, true),
    ...(quick ? { scale: { items: 10_000, customersPerDistrict: 1_000, ordersPerDistrict: 1_000 } } : {}),
  };
  const { runCdcBenchmark } = await import('./cdc-benchmark.js');
  const { formatCdcReport } = await import('./cdc-report.js');
  const report = await runCdcBenchmark(opts);
  const text = formatCdcReport(report);
  process.stdout.write(`\n${text}\n`);
  if (values.out !== undefined) writeFileSync(values.out, `${text}\n`);
  if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify(report, null, 1)}\n`);
}
