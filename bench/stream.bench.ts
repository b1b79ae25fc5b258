/**
 * `npm run bench:stream` (node --import tsx bench/stream.bench.ts): the CH-benCHmark of
 * issue 23 — TPC-C transactions streaming through the wire while the CH queries run, with
 * the self-optimizing service on and off, beside DuckDB. Options: CHBENCH_USAGE (--help).
 */
import { runChBenchCommand } from '../src/tools/chbench/chbench-command.js';

runChBenchCommand(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:stream: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
