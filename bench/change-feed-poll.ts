/**
 * What one poll of a publication's change feed costs as the published table's history grows
 * (issue 27: the stream polls every 100 ms). Opens a warehouse through the lake API, creates
 * a keyed table (changelog-producer lookup, so a commit is read from its own rows) and a
 * second, unpublished one, and commits single-row upserts to the first. At each mark it
 * times `readCommittedTransactions` as the stream calls it:
 * - idle: nothing committed since the last poll;
 * - other table: one commit to the unpublished table since (the id range is not empty);
 * - one commit: one commit to the published table since, read and decoded.
 *
 * Prints the median and p99 wall time and the median CPU time of each, per mark.
 * Env: FLOE_FEED_POLL_N (default 5000), FLOE_FEED_POLL_REPS (default 100).
 * Usage: nice -n 19 node --import tsx bench/change-feed-poll.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitEndLsn, openWarehouse } from '../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../src/lake/index.js';
import { readCommittedTransactions } from '../src/service/replication/change-feed.js';

const N = Number(process.env['FLOE_FEED_POLL_N'] ?? 5_000);
const REPS = Number(process.env['FLOE_FEED_POLL_REPS'] ?? 100);
const MARKS = [...new Set([100, 1_000, N])].filter((m) => m <= N).sort((a, b) => a - b);

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

async function upsert(wh: Warehouse, t: TableMetadata, id: number): Promise<void> {
  const tx = await wh.begin();
  await tx.upsert(t, 'main', [[BigInt(id)], [`v${id}`]]);
  await tx.commit();
}

/** Wall and CPU milliseconds of `reps` polls, each after `before` ran (not timed). */
async function timePolls(wh: Warehouse, t: TableMetadata, reps: number, before: () => Promise<void>): Promise<{ wall: number[]; cpu: number[] }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < reps; r++) {
    const from = commitEndLsn(wh.replication.lastSnapshotId());
    await before();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await readCommittedTransactions(wh, [t], from, 64);
    wall.push(performance.now() - t0);
    const c1 = process.cpuUsage(c0);
    cpu.push((c1.user + c1.system) / 1000);
  }
  return { wall, cpu };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-feed-poll-'));
  const wh = await openWarehouse({ path: dir });
  try {
    const columns = [{ name: 'id', type: { kind: 'int8' as const }, nullable: false }, { name: 'v', type: { kind: 'text' as const }, nullable: true }];
    const t = await wh.createTable({ namespace: 'public', name: 'published', primaryKey: ['id'], columns, properties: { 'changelog-producer': 'lookup' } });
    const other = await wh.createTable({ namespace: 'public', name: 'other', primaryKey: ['id'], columns });
    let next = 0;
    let otherNext = 0;
    console.log(`| snapshots | poll | wall p50 ms | wall p99 ms | cpu p50 ms |`);
    console.log(`|---:|---|---:|---:|---:|`);
    for (const mark of MARKS) {
      while (next < mark) await upsert(wh, t, next++);
      const measures: [string, () => Promise<void>][] = [
        ['idle', async () => undefined],
        ['other table', () => upsert(wh, other, otherNext++)],
        ['one commit', () => upsert(wh, t, 1_000_000 + next++)],
      ];
      for (const [name, before] of measures) {
        const { wall, cpu } = await timePolls(wh, t, REPS, before);
        console.log(`| ${mark.toLocaleString('en-US')} | ${name} | ${quantile(wall, 0.5).toFixed(3)} | ${quantile(wall, 0.99).toFixed(3)} | ${quantile(cpu, 0.5).toFixed(3)} |`);
      }
    }
  } finally {
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
