import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../../src/lake/index.js';
import type { ScanTask, ScanTaskCounters } from '../../src/lake/index.js';
import { clearMergePositionMemo, mergeMemoKey, rememberedMergePositions } from '../../src/lake/scan/merge-position-memo.js';
import { createScanPool } from '../../src/exec/index.js';

/*
 * Merge positions found by one scan worker reach the planner's thread
 * (merge-position-memo.ts broadcasts them): after one task merged on one worker, the
 * planner gives them to the next task for the same files, which takes them on either
 * worker, and the workers' counters say so.
 */
test('merge positions one worker found are taken by the others', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-memo-pool-'));
  const wh = await openWarehouse({ path: dir });
  const pool = createScanPool({ threads: 2 });
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 't', primaryKey: ['id'], properties: { 'self-optimizing.enabled': 'false' },
      columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'v', type: { kind: 'int8' }, nullable: true }],
    });
    const ids = Array.from({ length: 20_000 }, (_, i) => BigInt(i));
    const load = await wh.begin();
    await load.upsert(t, 'main', [ids, ids]);
    await load.commit();
    await wh.optimize(t);
    const change = await wh.begin();
    await change.upsert(t, 'main', [[1n, 2n, 3n], [-1n, -2n, -3n]]);
    await change.deleteKeys(t, 'main', [[4n]]);
    await change.commit();
    clearMergePositionMemo();
    const [once, ...rest] = (await wh.planScan({ table: t, projection: ['v'] })).tasks;
    assert.equal(rest.length, 0);
    assert.equal(once!.keepMergePositions, undefined, 'planned once: merged as ever');
    // planned again: the worker keeps the positions of its merge
    const [task] = (await wh.planScan({ table: t, projection: ['v'] })).tasks;
    assert.ok(task!.keepMergePositions === true && task!.mergePositions === undefined);
    const key = mergeMemoKey(task!)!;
    assert.ok(key !== undefined);
    const run = async (t: ScanTask): Promise<{ counters: ScanTaskCounters; sum: bigint; rows: number }> => {
      const counters: ScanTaskCounters = { rowGroupsRead: 0, rowGroupsSkippedByStats: 0 };
      let sum = 0n;
      let rows = 0;
      for await (const b of pool.run(t, undefined, undefined, counters)) {
        const v = b.getChild('v')!;
        for (let i = 0; i < b.numRows; i++) sum += v.get(i) as bigint;
        rows += b.numRows;
      }
      return { counters, sum, rows };
    };
    const want = { rows: 19_999, sum: ids.reduce((a, b) => a + b, 0n) - 1n - 2n - 3n - 4n - 1n - 2n - 3n };
    const first = await run(task!);
    assert.deepEqual({ rows: first.rows, sum: first.sum }, want);
    assert.equal(first.counters.merges, 1);
    assert.equal(first.counters.mergesKept ?? 0, 0, 'the first run merges');
    // the worker's broadcast reaches this thread, where the planner gives the positions to the next task
    for (let i = 0; i < 100 && rememberedMergePositions(key) === undefined; i++) await new Promise((r) => setTimeout(r, 20));
    const [again] = (await wh.planScan({ table: t, projection: ['v'] })).tasks;
    assert.ok(again!.mergePositions !== undefined, 'the planner found the positions');

    // both workers at once: each takes the positions it was given
    const runs = await Promise.all(Array.from({ length: 6 }, () => run(again!)));
    for (const r of runs) assert.deepEqual({ rows: r.rows, sum: r.sum }, want);
    assert.equal(runs.reduce((n, r) => n + (r.counters.mergesKept ?? 0), 0), 6, 'every run took kept positions');
  } finally {
    await pool.close();
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
