/**
 * Cost of one Iceberg metadata export of a keyed table (src/lake/iceberg): wall and CPU
 * time (process-wide) of a change-store export, with about `pending` rows over 25 change
 * files on a 100k-row optimized base, beside the cost of a look that defers it
 * (`metadata.iceberg.change-interval` not yet passed: what a change-only head cost before
 * the change store was exported). `node --import tsx bench/iceberg-export.bench.ts [pending ...]`
 * (default 100 1000 5000; each adds to the rows pending before it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../src/lake/index.js';

const dir = mkdtempSync(join(tmpdir(), 'floe-iceberg-export-bench-'));
const wh = await openWarehouse({ path: dir });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  const t = await wh.createTable({
    namespace: 'public', name: 'kv', primaryKey: ['id'], properties: { 'metadata.iceberg.change-interval': '1h' },
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }, { name: 'n', type: { kind: 'int8' }, nullable: true }],
  });
  const n = 100_000;
  const ids = Array.from({ length: n }, (_, i) => i);
  let tx = await wh.begin();
  await tx.upsert(t, 'main', [ids, ids.map((i) => `v${i}`), ids.map((i) => BigInt(i))]);
  await tx.commit();
  await wh.optimize(t, { kind: 'full' });
  console.log('pending rows | change files | export wall ms (median of 7) | export CPU ms | deferred look wall ms | deferred look CPU ms');
  const asked = process.argv.slice(2).map(Number).filter((x) => Number.isInteger(x) && x > 0);
  for (const pending of asked.length > 0 ? asked : [100, 1000, 5000]) {
    for (let c = 0; c < 25; c++) {
      const u = [...new Set(Array.from({ length: pending / 25 }, () => Math.floor(Math.random() * n)))];
      tx = await wh.begin();
      await tx.upsert(t, 'main', [u, u.map((i) => `w${i}`), u.map((i) => BigInt(i))]);
      await tx.commit();
    }
    const wall: number[] = []; const cpu: number[] = []; const dWall: number[] = []; const dCpu: number[] = [];
    for (let r = 0; r < 7; r++) {
      tx = await wh.begin();
      await tx.upsert(t, 'main', [[r], ['x'], [1n]]);
      await tx.commit();
      let c0 = process.cpuUsage(); let s = performance.now();
      await wh.exportIcebergMetadata(t);
      wall.push(performance.now() - s); let c1 = process.cpuUsage(c0); cpu.push((c1.user + c1.system) / 1000);
      tx = await wh.begin();
      await tx.upsert(t, 'main', [[r], ['y'], [2n]]);
      await tx.commit();
      c0 = process.cpuUsage(); s = performance.now();
      const d = await wh.exportIcebergMetadata(t, { deferChanges: true });
      if (d.kind !== 'deferred') throw new Error(`expected a deferred export, got ${d.kind}`);
      dWall.push(performance.now() - s); c1 = process.cpuUsage(c0); dCpu.push((c1.user + c1.system) / 1000);
    }
    const files = wh.listFiles(t).filter((f) => f.store === 'change').length;
    console.log(`${pending} | ${files} | ${median(wall).toFixed(1)} | ${median(cpu).toFixed(1)} | ${median(dWall).toFixed(1)} | ${median(dCpu).toFixed(1)}`);
    await wh.optimize(t, { kind: 'full' });
  }
} finally {
  await wh.close();
  rmSync(dir, { recursive: true, force: true });
}
