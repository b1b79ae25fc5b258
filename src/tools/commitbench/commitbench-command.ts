import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { positiveOption } from '../command-line.js';
import { COMMIT_MEASURES } from './commit-figure.js';
import type { CommitMeasure } from './commit-figure.js';
import type { CommitBenchOptions } from './commitbench-benchmark.js';

export const COMMITBENCH_USAGE = `usage: npm run bench:commit -- [options]
  Issue 24's targets: Floe (a fresh floe serve on a temp warehouse) beside PostgreSQL 15
  (a fresh cluster, fsync on) and DuckDB where it applies, in the same run.
  Measures (--only one of them): ${COMMIT_MEASURES.join(', ')}
  --commits N           1. single-row INSERTs of history, windows at 10/100/1,000/10,000 (default 10000)
  --clients N           2. connections committing at once (default 16); gateways: split over two gateways
  --seconds S           2. for how long (default 20); gateways: per run
  --rounds N            3. insert → read-from-another-session rounds (default 1000)
  --rows N              4, 5. rows of the keyed table (default 10000000)
  --reads N             4. point reads (default 2000)
  --upsert-batch N      4. rows per upsert commit (1% of the keys; default 100)
  --replay-rows N       6. rows committed before the crash (default 1000000)
  --replay-txn-rows N   6. rows per transaction (default 1000)
  --only MEASURE        one measure
  --no-postgres         no PostgreSQL peer
  --postgres-url URL    the PostgreSQL peer in a database of its own on this server instead of a fresh
                        cluster (its settings as they are; measure 6 then has no peer)
  --no-duckdb           no DuckDB peer
  --serve-arg ARG       an extra floe serve argument (repeatable)
  --serve-node-arg=ARG  a node flag for the measured gateway only, for diagnosis, e.g. --serve-node-arg=--cpu-prof (repeatable)
  --catalog-on-peer     Floe's catalog in a database of its own on the PostgreSQL peer (--catalog), not SQLite
  --data-on-s3rver      Floe's data in a bucket of s3rver (a real S3 API server on loopback), not local disk
  --quick               smoke run: 100 commits, 3 s, 100 rounds, 100,000 rows, 10,000 replayed rows
  --json FILE           also write every sample as JSON
  --out FILE            also write the readable report`;

/** Entry point of `npm run bench:commit` (argv: the options). */
export async function runCommitBenchCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      commits: { type: 'string' },
      clients: { type: 'string', default: '16' },
      seconds: { type: 'string' },
      rounds: { type: 'string' },
      rows: { type: 'string' },
      reads: { type: 'string' },
      'upsert-batch': { type: 'string', default: '100' },
      'replay-rows': { type: 'string' },
      'replay-txn-rows': { type: 'string' },
      only: { type: 'string' },
      'no-postgres': { type: 'boolean', default: false },
      'postgres-url': { type: 'string' },
      'no-duckdb': { type: 'boolean', default: false },
      'serve-arg': { type: 'string', multiple: true },
      'serve-node-arg': { type: 'string', multiple: true },
      'catalog-on-peer': { type: 'boolean', default: false },
      'data-on-s3rver': { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help === true) {
    process.stdout.write(`${COMMITBENCH_USAGE}\n`);
    return;
  }
  const quick = values.quick === true;
  const pick = (v: string | undefined, full: number, small: number) => v ?? String(quick ? small : full);
  if (values.only !== undefined && !COMMIT_MEASURES.includes(values.only as CommitMeasure)) throw new Error(`--only must be one of ${COMMIT_MEASURES.join(', ')}\n${COMMITBENCH_USAGE}`);
  const opts: CommitBenchOptions = {
    commits: positiveOption('--commits', pick(values.commits, 10_000, 100), COMMITBENCH_USAGE, true),
    clients: positiveOption('--clients', values.clients!, COMMITBENCH_USAGE, true),
    seconds: positiveOption('--seconds', pick(values.seconds, 20, 3), COMMITBENCH_USAGE, false),
    rounds: positiveOption('--rounds', pick(values.rounds, 1_000, 100), COMMITBENCH_USAGE, true),
    rows: positiveOption('--rows', pick(values.rows, 10_000_000, 100_000), COMMITBENCH_USAGE, true),
    reads: positiveOption('--reads', pick(values.reads, 2_000, 200), COMMITBENCH_USAGE, true),
    upsertBatch: positiveOption('--upsert-batch', values['upsert-batch']!, COMMITBENCH_USAGE, true),
    replayRows: positiveOption('--replay-rows', pick(values['replay-rows'], 1_000_000, 10_000), COMMITBENCH_USAGE, true),
    replayTxnRows: positiveOption('--replay-txn-rows', pick(values['replay-txn-rows'], 1_000, 100), COMMITBENCH_USAGE, true),
    only: values.only === undefined ? undefined : [values.only as CommitMeasure],
    postgres: values['no-postgres'] !== true,
    postgresUrl: values['postgres-url'],
    duckdb: values['no-duckdb'] !== true,
    serveArgs: values['serve-arg'],
    serveNodeArgs: values['serve-node-arg'],
    catalogOnPeer: values['catalog-on-peer'] === true,
    dataOnS3rver: values['data-on-s3rver'] === true,
  };
  // DuckDB is a dev dependency: load the benchmark only when asked for.
  const { runCommitBenchmark } = await import('./commitbench-benchmark.js');
  const { commitReportJson, formatCommitReport } = await import('./commitbench-report.js');
  const report = await runCommitBenchmark(opts);
  const text = formatCommitReport(report);
  process.stdout.write(`\n${text}\n`);
  if (values.out !== undefined) writeFileSync(values.out, `${text}\n`);
  if (values.json !== undefined) writeFileSync(values.json, `${commitReportJson(report)}\n`);
}
