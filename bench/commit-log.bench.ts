/**
 * The commit log alone (src/lake/log/segmented-commit-log.ts): append+sync latency of a
 * 200-byte record with one committer, group commit with 16 concurrent committers, and
 * replay speed. `node --import tsx bench/commit-log.bench.ts [dir]` (dir: where to put
 * the log, default the OS temp dir; it must be on the disk being measured).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCommitLog, recoverCommitLog } from '../src/lake/index.js';

const base = process.argv[2] ?? tmpdir();
const RECORD = new Uint8Array(200).fill(7);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

async function oneCommitter(n: number): Promise<void> {
  const root = mkdtempSync(join(base, 'floe-wal-bench-'));
  const log = await openCommitLog({ root, writerId: 'bench' });
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    log.append('commit', RECORD);
    await log.sync();
    times.push(performance.now() - t0);
  }
  await log.close();
  rmSync(root, { recursive: true, force: true });
  times.sort((a, b) => a - b);
  console.log(`1 committer, ${n} x 200 B: p50 ${percentile(times, 0.5).toFixed(3)} ms, p99 ${percentile(times, 0.99).toFixed(3)} ms`);
}

async function concurrentCommitters(committers: number, ms: number): Promise<void> {
  const root = mkdtempSync(join(base, 'floe-wal-bench-'));
  const log = await openCommitLog({ root, writerId: 'bench' });
  let records = 0;
  let stop = false;
  const times: number[] = [];
  const loop = async () => {
    while (!stop) {
      const t0 = performance.now();
      log.append('commit', RECORD);
      await log.sync();
      times.push(performance.now() - t0);
      records++;
    }
  };
  const syncs0 = log.syncsDone;
  const t0 = performance.now();
  setTimeout(() => { stop = true; }, ms);
  await Promise.all(Array.from({ length: committers }, loop));
  const seconds = (performance.now() - t0) / 1000;
  const syncs = log.syncsDone - syncs0;
  await log.close();
  rmSync(root, { recursive: true, force: true });
  times.sort((a, b) => a - b);
  console.log(`${committers} committers, ${seconds.toFixed(1)} s: ${Math.round(records / seconds)} records/s, `
    + `${Math.round(syncs / seconds)} syncs/s, ${(records / syncs).toFixed(1)} records/sync, `
    + `latency p50 ${percentile(times, 0.5).toFixed(3)} ms, p99 ${percentile(times, 0.99).toFixed(3)} ms`);
}

async function replay(records: number, size: number): Promise<void> {
  const root = mkdtempSync(join(base, 'floe-wal-bench-'));
  const log = await openCommitLog({ root, writerId: 'bench' });
  const payload = new Uint8Array(size).fill(3);
  for (let i = 0; i < records; i++) {
    log.append('commit', payload);
    if (i % 10_000 === 9_999) await log.sync();
  }
  await log.close();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let n = 0;
  let bytes = 0;
  for await (const r of recoverCommitLog(root, 'bench', 0n)) { n++; bytes += r.payload.byteLength; }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  rmSync(root, { recursive: true, force: true });
  console.log(`replay ${n} records of ${size} B (${(bytes / 2 ** 20).toFixed(0)} MiB): ${seconds.toFixed(2)} s `
    + `(CPU ${(cpu.user / 1e6).toFixed(2)} s user, ${(cpu.system / 1e6).toFixed(2)} s system), `
    + `${Math.round(n / seconds)} records/s, ${(bytes / 2 ** 20 / seconds).toFixed(0)} MiB/s`);
}

await oneCommitter(2000);
await concurrentCommitters(16, 3000);
await replay(1_000_000, 200);
await replay(2_000, 128 << 10);
