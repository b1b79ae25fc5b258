/**
 * `npm run bench:mv` (node --import tsx bench/mv.bench.ts): issue 31's benchmark — four CH
 * queries as materialized views (freshness 10 s) kept fresh by floe serve's refresh service
 * while the CH-benCHmark's TPC-C stream writes. Options: MVBENCH_USAGE (--help).
 */
import { runMvBenchCommand } from '../src/tools/chbench/mv-command.js';

runMvBenchCommand(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:mv: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
