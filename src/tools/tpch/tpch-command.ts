import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { HelpRequest, UsageError, parseCommandLine } from '../command-line.js';
import { openWarehouse } from '../../lake/index.js';
import { copyText } from './copy-text.js';
import { createTpchTables, optimizeTpchTables, writeTpchBatches } from './floe-loader.js';
import { ParquetExport } from './parquet-export.js';
import { ProgressLine } from './progress-line.js';
import { TpchGenerator } from './tpch-generator.js';
import { tpchQueries } from './tpch-queries.js';
import { createTableSql, TPCH_TABLES } from './tpch-schema.js';

export const TPCH_USAGE = `usage:
  floe bench tpch [bench] --sf N [--dir WORKDIR [--reuse]] [--timeout SECONDS] [--runs 3] [--queries 1,3,6] [--upsert-fraction 0.1] [--storage local|s3] [--out results.md]
      generate TPC-H in-process, load it into a fresh warehouse through the lake's write path,
      write the same data as Parquet, and time the 22 queries in Floe (through the wire) and DuckDB,
      on the optimized tables and again after upserting a fraction of orders and lineitem.
      --dir WORKDIR (alias --keep) keeps the loaded warehouse and Parquet there (default: a temp
      dir removed at the end); with --reuse a later run queries what an earlier finished load left
      in WORKDIR at the same --sf instead of loading again (upserts always go to a fresh copy,
      WORKDIR/warehouse-upserted). A query past --timeout (default 300 s) is cancelled and shown
      as a timeout; the run goes on. Each query runs --runs times (default 3) per engine and
      the fastest run counts; the geomean of the first runs is shown too. --storage s3 also runs the
      optimized queries with the data copied to a local s3rver (floe serve --data s3://…), beside local disk.
  floe bench tpch load --sf N [--data ./floe-data] [--replace] [--no-optimize]
      load TPC-H into a warehouse (the gateway must not be running on it)
  floe bench tpch generate --sf N --out DIR [--format parquet|copy]
      write the data as Parquet files or PostgreSQL COPY text, plus schema.sql and the queries`;

function sfOf(v: string | undefined): number {
  const sf = Number(v ?? '1');
  if (!(sf > 0)) throw new Error(`--sf must be a positive number, got ${v}`);
  return sf;
}

function upsertFractionOf(v: string | undefined): number {
  const f = Number(v ?? '0.1');
  if (!(f >= 0 && f <= 1)) throw new Error(`--upsert-fraction must be between 0 and 1 (0: no upsert pass), got ${v}`);
  return f;
}

function runsOf(v: string | undefined): number {
  const runs = Number(v ?? '3');
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${v}`);
  return runs;
}

/** Entry point for `floe bench tpch …` (argv is what follows "tpch"). */
export async function runTpchCommand(argv: string[]): Promise<void> {
  const sub = argv[0] === undefined || argv[0].startsWith('-') ? 'bench' : argv[0];
  const rest = sub === argv[0] ? argv.slice(1) : argv;
  switch (sub) {
    case 'bench': return benchCommand(rest);
    case 'load': return loadCommand(rest);
    case 'generate': return generateCommand(rest);
    case 'help': case '--help': case '-h':
      throw new HelpRequest(TPCH_USAGE);
    default:
      throw new UsageError(`bench tpch: unknown command "${sub}"`, TPCH_USAGE);
  }
}

async function benchCommand(argv: string[]): Promise<void> {
  const parsed = parseCommandLine(TPCH_USAGE, argv, (args) => parseArgs({
    args,
    options: {
      sf: { type: 'string', default: '1' },
      dir: { type: 'string' },
      keep: { type: 'string' },
      reuse: { type: 'boolean', default: false },
      timeout: { type: 'string', default: '300' },
      runs: { type: 'string', default: '3' },
      queries: { type: 'string' },
      'upsert-fraction': { type: 'string', default: '0.1' },
      storage: { type: 'string', default: 'local' },
      out: { type: 'string' },
    },
  }));
  const { values } = parsed;
  if (values.storage !== 'local' && values.storage !== 's3') throw new UsageError(`--storage must be local or s3, not "${values.storage}"`, TPCH_USAGE);
  const dir = values.dir ?? values.keep;
  if (values.reuse === true && dir === undefined) throw new UsageError('--reuse needs --dir', TPCH_USAGE);
  // DuckDB is a dev dependency: load the benchmark only when asked for.
  const { formatTpchReport, runTpchBenchmark } = await import('./tpch-benchmark.js');
  const report = await runTpchBenchmark({
    sf: sfOf(values.sf),
    dir: dir === undefined ? undefined : resolve(dir),
    reuse: values.reuse,
    timeoutMs: Number(values.timeout) * 1000,
    runs: runsOf(values.runs),
    upsertFraction: upsertFractionOf(values['upsert-fraction']),
    storage: values.storage,
    queries: values.queries?.split(',').map(Number),
  });
  const text = formatTpchReport(report);
  process.stdout.write(`\n${text}\n`);
  if (values.out !== undefined) writeFileSync(values.out, `${text}\n`);
}

async function loadCommand(argv: string[]): Promise<void> {
  const parsed = parseCommandLine(TPCH_USAGE, argv, (args) => parseArgs({
    args,
    options: {
      sf: { type: 'string', default: '1' },
      data: { type: 'string', default: './floe-data' },
      replace: { type: 'boolean', default: false },
      'no-optimize': { type: 'boolean', default: false },
    },
  }));
  const { values } = parsed;
  const sf = sfOf(values.sf);
  const warehouse = await openWarehouse({ path: resolve(values.data!) });
  try {
    await createTpchTables(warehouse, { replace: values.replace });
    const progress = new ProgressLine(`loading TPC-H SF ${sf}`);
    await writeTpchBatches(warehouse, new TpchGenerator(sf).batches(), 'insert', { progress });
    progress.done();
    if (values['no-optimize'] !== true) {
      process.stderr.write('optimizing…\n');
      const t0 = performance.now();
      await optimizeTpchTables(warehouse, 'public', (l) => process.stderr.write(`${l}\n`));
      process.stderr.write(`optimized in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    }
  } finally {
    await warehouse.close();
  }
}

async function generateCommand(argv: string[]): Promise<void> {
  const parsed = parseCommandLine(TPCH_USAGE, argv, (args) => parseArgs({
    args,
    options: {
      sf: { type: 'string', default: '1' },
      out: { type: 'string' },
      format: { type: 'string', default: 'parquet' },
    },
  }));
  const { values } = parsed;
  if (values.out === undefined) throw new UsageError('--out is required', TPCH_USAGE);
  if (values.format !== 'parquet' && values.format !== 'copy') throw new Error('--format must be parquet or copy');
  const sf = sfOf(values.sf);
  const out = resolve(values.out);
  mkdirSync(join(out, 'queries'), { recursive: true });
  writeFileSync(join(out, 'schema.sql'), TPCH_TABLES.map((t) => `${createTableSql(t)};\n`).join(''));
  for (const q of tpchQueries(sf)) writeFileSync(join(out, 'queries', `${q.name}.sql`), `${q.sql};\n`);
  const parquet = new ParquetExport(out);
  const counters = new Map<string, number>();
  const progress = new ProgressLine(`generating TPC-H SF ${sf}`);
  for (const batch of new TpchGenerator(sf).batches()) {
    if (values.format === 'parquet') {
      parquet.write(batch);
    } else {
      const n = counters.get(batch.table) ?? 0;
      counters.set(batch.table, n + 1);
      mkdirSync(join(out, batch.table), { recursive: true });
      writeFileSync(join(out, batch.table, `part-${String(n).padStart(5, '0')}.copy`), copyText(batch));
    }
    progress.add(batch.rowCount, batch.table);
  }
  progress.done();
}
