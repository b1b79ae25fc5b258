/**
 * Planning cost after tiering swaps as a keyed table's history grows (issue 24, "flat with
 * history"): single-row commits, a tiering every 10 and a minor every 100, then the median
 * planScan time of the first plan after each of the last 30 swaps, and of a warm plan, at
 * 200, 1,000 and 3,000 snapshots. `node --import tsx bench/plan-after-swap.bench.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../src/lake/index.js';
const dir = mkdtempSync(join(tmpdir(), 'floe-plan-after-swap-'));
const wh = await openWarehouse({ path: dir });
const t = await wh.createTable({ namespace: 'public', name: 'kv', primaryKey: ['id'], properties: { 'self-optimizing.enabled': 'false', 'log.tier-interval': '24h' },
  columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }] });
const plan = async () => { const s = performance.now(); await wh.planScan({ table: t, projection: ['id', 'v'] }); return performance.now() - s; };
let n = 0;
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const target of [200, 1000, 3000]) {
  const afterSwap: number[] = []; const afterCommit: number[] = [];
  while (n < target) {
    const tx = await wh.begin(); await tx.upsert(t, 'main', [[n % 500], [`v${n}`]]); await tx.commit(); n++;
    await plan();
    afterCommit.push(await plan());
    if (n % 10 === 0) { await wh.tierLogFiles(t); afterSwap.push(await plan()); }
    if (n % 100 === 0) { await wh.optimize(t, { kind: 'minor' }); await plan(); }
  }
  console.log(`${n} snapshots: plan after a tiering swap, median of ${afterSwap.slice(-30).length}: ${med(afterSwap.slice(-30)).toFixed(2)} ms; warm plan ${med(afterCommit.slice(-30)).toFixed(2)} ms`);
}
await wh.close();
rmSync(dir, { recursive: true, force: true });
