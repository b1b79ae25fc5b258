/**
 * Does a small commit or a point read cost more as the table's history grows (issue 24:
 * "flat with the table's file count, 10 → 10,000 commits")? Opens a warehouse through
 * the lake API, creates a keyed table, and runs N single-row autocommit commits
 * (alternating upsert and checked INSERT of a new key), each followed by a point read
 * of the key just written. Every FLOE_HISTORY_OPTIMIZE_EVERY commits the table is
 * optimized, as the self-optimizing service (or the log store's tiering) would: live
 * files stay few while history (snapshots, file rows, removals) grows, the shape a
 * streaming table has between two expiries.
 *
 * Prints the median and p99 commit and read times of each window ending at 10, 100,
 * 1,000 and 10,000 commits. Run under `node --cpu-prof` to see where
 * the time goes.
 *
 * Env: FLOE_HISTORY_N (default 10000), FLOE_HISTORY_OPTIMIZE_EVERY (default 200).
 * Usage: nice -n 19 node --import tsx bench/history-cost.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeScanTask, openWarehouse } from '../src/lake/index.js';

const N = Number(process.env['FLOE_HISTORY_N'] ?? 10_000);
const OPTIMIZE_EVERY = Number(process.env['FLOE_HISTORY_OPTIMIZE_EVERY'] ?? 200);
const MARKS = [...new Set([10, 100, 1_000, 10_000, 100_000, N])].filter((m) => m <= N).sort((a, b) => a - b);

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

const cpuMs = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage): number => (b.user - a.user + b.system - a.system) / 1000;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-history-'));
  const wh = await openWarehouse({ path: dir });
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'h', primaryKey: ['id'],
      columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
    });
    const commits: number[] = [];
    const reads: number[] = [];
    // CPU time of this process per operation: on a shared machine the steadier figure
    const commitCpu: number[] = [];
    const readCpu: number[] = [];
    for (let i = 1; i <= N; i++) {
      const id = BigInt(i);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const tx = await wh.begin();
      if (i % 2 === 0) await tx.upsert(t, 'main', [[id], [`v${i}`]]);
      else await tx.insert(t, 'main', [[id], [`v${i}`]]);
      await tx.commit();
      const t1 = performance.now();
      const cpu1 = process.cpuUsage();
      const plan = await wh.planScan({ table: t, filters: [{ column: 'id', op: '=', value: id }] });
      let rows = 0;
      for (const task of plan.tasks) for await (const b of executeScanTask(task)) rows += b.numRows;
      const t2 = performance.now();
      const cpu2 = process.cpuUsage();
      if (rows !== 1) throw new Error(`point read of ${id} found ${rows} rows`);
      commits.push(t1 - t0);
      reads.push(t2 - t1);
      commitCpu.push(cpuMs(cpu0, cpu1));
      readCpu.push(cpuMs(cpu1, cpu2));
      if (OPTIMIZE_EVERY > 0 && i % OPTIMIZE_EVERY === 0) await wh.optimize(t);
      if (MARKS.includes(i)) {
        // the last 200 commits before the mark (or since the previous mark): its own neighbourhood
        const from = Math.max(i - 200, MARKS.filter((m) => m < i).at(-1) ?? 0);
        const c = commits.slice(from);
        const r = reads.slice(from);
        console.log(`${String(i).padStart(6)} commits (${wh.listFiles(t).length} live files, window ${from + 1}..${i}): ` +
          `commit p50 ${quantile(c, 0.5).toFixed(2)} ms p99 ${quantile(c, 0.99).toFixed(2)} ms; ` +
          `point read p50 ${quantile(r, 0.5).toFixed(2)} ms p99 ${quantile(r, 0.99).toFixed(2)} ms; ` +
          `CPU p50 commit ${quantile(commitCpu.slice(from), 0.5).toFixed(2)} ms, read ${quantile(readCpu.slice(from), 0.5).toFixed(2)} ms`);
      }
    }
  } finally {
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
