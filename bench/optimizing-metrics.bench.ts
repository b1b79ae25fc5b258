/**
 * Cost of Warehouse.optimizingMetrics (the scheduler calls it about once a second per
 * table) and of one optimize per kind, on a keyed table split into 16 nodes with
 * `commits` small upserts pending over them (each commit writes one change file per node
 * it touches). `node --import tsx bench/optimizing-metrics.bench.ts [commits]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../src/lake/index.js';

const commits = Number(process.argv[2] ?? 1000);
const dir = mkdtempSync(join(tmpdir(), 'floe-optmetrics-bench-'));
const w = await openWarehouse({ path: dir });
try {
  let t = await w.createTable({
    namespace: 'public', name: 'kv', primaryKey: ['id'], properties: { 'self-optimizing.target-size': '1' },
    columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
  const n = 100_000;
  let txn = await w.begin();
  await txn.upsert(t, 'main', [Array.from({ length: n }, (_, i) => BigInt(i)), Array.from({ length: n }, (_, i) => `v${i}`)]);
  await txn.commit();
  for (let d = 0; d < 4; d++) await w.optimize(t);
  t = await w.alterTable('public', 'kv', { kind: 'setProperties', properties: { 'self-optimizing.target-size': '128MB' } });
  let t0 = performance.now();
  for (let c = 0; c < commits; c++) {
    txn = await w.begin();
    const ids = Array.from({ length: 4 }, (_, i) => BigInt((c * 7919 + i * 104729) % n));
    await txn.upsert(t, 'main', [ids, ids.map((id) => `u${c}:${id}`)]);
    await txn.commit();
  }
  const load = performance.now() - t0;
  const files = w.listFiles(t).length;
  const times: number[] = [];
  let m = w.optimizingMetrics(t);
  for (let i = 0; i < 20; i++) {
    t0 = performance.now();
    m = w.optimizingMetrics(t);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`${commits} commits in ${(load / 1000).toFixed(1)} s; ${files} visible files, ${m.nodes.length} nodes, read amplification ${m.readAmplification}`);
  console.log(`optimizingMetrics: median ${times[10]!.toFixed(1)} ms, min ${times[0]!.toFixed(1)} ms, max ${times[19]!.toFixed(1)} ms (20 calls)`);
  for (const kind of ['minor', 'major', 'full'] as const) {
    t0 = performance.now();
    const r = await w.optimize(t, { kind });
    console.log(`${kind}: ${(performance.now() - t0).toFixed(0)} ms; nodes ${r.nodesOptimized}, merged ${r.nodesMerged}, files in ${r.filesIn} (${r.rowsIn} rows), out ${r.filesOut} (${r.rowsOut} rows)`);
  }
} finally {
  await w.close();
  rmSync(dir, { recursive: true, force: true });
}
