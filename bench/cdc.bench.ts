/**
 * `npm run bench:cdc` (node --import tsx bench/cdc.bench.ts): issue 27's benchmark — TPC-C on
 * PostgreSQL 15 with Floe subscribed to it, the CH queries on Floe, PostgreSQL as the peer.
 * Options: CDCBENCH_USAGE (--help).
 */
import { runCdcBenchCommand } from '../src/tools/cdcbench/cdc-command.js';

runCdcBenchCommand(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:cdc: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
