/**
 * `npm run bench:commit`: issue 24's targets (small commits, freshness, point reads,
 * merge-on-read scans, crash replay), Floe beside PostgreSQL 15 with fsync on and DuckDB,
 * in the same run. Options: see COMMITBENCH_USAGE (`npm run bench:commit -- --help`).
 */
import { runCommitBenchCommand } from '../src/tools/commitbench/commitbench-command.js';

runCommitBenchCommand(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:commit: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
