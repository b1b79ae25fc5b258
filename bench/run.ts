/**
 * `npm run bench`: every benchmark, one after another, each in its own process so
 * one's memory and warm-up never colour another's figures. Each prints its own
 * table (Floe, the DuckDB peer in the same run, the ratio).
 *   FLOE_BENCH_KEYS   lake table size (default 1,000,000)
 *   FLOE_BENCH_SF     TPC-H scale factor (default 0.1; SF 1 takes about an hour here)
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const benches: { name: string; file: string; args: string[] }[] = [
  { name: 'lake', file: 'lake.bench.ts', args: [] },
  { name: 'tpch', file: 'tpch.bench.ts', args: ['--sf', process.env.FLOE_BENCH_SF ?? '0.1'] },
];

let failed = 0;
for (const b of benches) {
  process.stdout.write(`\n=== bench:${b.name} ===\n`);
  const file = fileURLToPath(new URL(`./${b.file}`, import.meta.url));
  const r = spawnSync(process.execPath, ['--import', 'tsx', file, ...b.args], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    process.stderr.write(`bench:${b.name} failed (${r.signal ?? `exit ${r.status}`})\n`);
  }
}
process.exit(failed === 0 ? 0 : 1);
