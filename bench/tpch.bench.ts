/**
 * `npm run bench:tpch` (node --import tsx bench/tpch.bench.ts --sf 1): TPC-H generated
 * in-process, loaded into Floe through the lake's write path and queried through the
 * wire, beside DuckDB over the same data as Parquet; then again after upserting 10% of
 * orders and lineitem without optimizing. Options: see TPCH_USAGE (`bench` subcommand).
 */
import { HelpRequest } from '../src/tools/command-line.js';
import { runTpchCommand } from '../src/tools/tpch/tpch-command.js';

runTpchCommand(['bench', ...process.argv.slice(2)]).then(
  () => process.exit(0),
  (err: unknown) => {
    if (err instanceof HelpRequest) {
      process.stdout.write(`${err.usage}\n`);
      process.exit(0);
    }
    process.stderr.write(`bench:tpch: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
