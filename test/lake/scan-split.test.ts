import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rowGroupRanges } from '../../src/lake/scan/plan-scan.js';
import { columnsOf, readRows, tempWarehouse, type Row } from './helpers/read-table.js';

const byId = (a: Row, b: Row): number => (a.id as number) - (b.id as number);

test('rowGroupRanges covers every row group once, in contiguous ranges', () => {
  assert.deepEqual(rowGroupRanges(3), [[0, 1, 2]]);
  assert.deepEqual(rowGroupRanges(4), [[0, 1], [2, 3]]);
  assert.deepEqual(rowGroupRanges(5), [[0, 1], [2, 3, 4]]);
  assert.deepEqual(rowGroupRanges(8), [[0, 1], [2, 3], [4, 5], [6, 7]]);
  for (const n of [1, 9, 10, 17, 40]) {
    const parts = rowGroupRanges(n);
    assert.deepEqual(parts.flat(), Array.from({ length: n }, (_, i) => i));
    assert.ok(parts.length <= 4 && parts.every((p) => p.length > 0));
  }
});

test('a base-only scan split into row-group ranges returns exactly the rows; with change files it is split by key hash', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({ namespace: 'public', name: 'big', primaryKey: ['id'], columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'int4' }, nullable: true }] });
    const n = 300_000;
    const tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, Array.from({ length: n }, (_, i) => ({ id: i, v: i * 2 }))));
    await tx.commit();
    await wh.optimize(t);

    const plan = await wh.planScan({ table: t });
    assert.ok(plan.tasks.length >= 2, `tasks ${plan.tasks.length}`);
    const groups = plan.tasks.map((task) => task.baseFiles[0]!.rowGroups!);
    assert.deepEqual(groups.flat(), Array.from({ length: groups.flat().length }, (_, i) => i), 'every row group in exactly one task');
    const rows = (await readRows(wh, { table: t })).sort(byId);
    assert.equal(rows.length, n);
    assert.ok(rows.every((r, i) => r.id === i && r.v === i * 2));
    // Filters still apply within each piece.
    const some = await readRows(wh, { table: t, filters: [{ column: 'v', op: '<', value: 20 }] });
    assert.deepEqual(some.sort(byId), Array.from({ length: 10 }, (_, i) => ({ id: i, v: i * 2 })));

    // Pending changes: every key's base row and its changes must meet in one task, so the
    // node is cut by key hash (split-merge-task.ts): each piece keeps its hashes' rows of every file.
    const tx2 = await wh.begin();
    await tx2.upsert(t, 'main', columnsOf(t, Array.from({ length: 1000 }, (_, i) => ({ id: i * 300, v: -1 }))));
    await tx2.deleteKeys(t, 'main', [[1, 299_999]]);
    await tx2.commit();
    const merged = await wh.planScan({ table: t });
    assert.ok(merged.tasks.length >= 2);
    assert.ok(merged.tasks.every((task) => task.node.mask > 0 && task.changeFiles.length > 0 && [...task.baseFiles, ...task.changeFiles].every((f) => f.filterByHash)));
    const after = (await readRows(wh, { table: t })).sort(byId);
    assert.equal(after.length, n - 2);
    const want = Array.from({ length: n }, (_, i) => ({ id: i, v: i % 300 === 0 ? -1 : i * 2 })).filter((r) => r.id !== 1 && r.id !== 299_999);
    assert.deepEqual(after, want);
  } finally { await cleanup(); }
});
