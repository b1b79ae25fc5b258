import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executeScanTask, optimizingSettings } from '../../src/lake/index.js';
import type { ScanFilter, ScanRequest, ScanTaskCounters, TableMetadata, Warehouse } from '../../src/lake/index.js';
import { clearMergePositionMemo, mergeMemoKey } from '../../src/lake/scan/merge-position-memo.js';
import { kvTable } from './helpers/keyed-table.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

/*
 * A merge-on-read task's merge decisions are kept by position (merge-position-memo.ts) and a
 * scan of the same files takes them instead of merging; a big node's merge is cut into
 * key-hash pieces (split-merge-task.ts). Every read must still be the model's, whether the
 * positions were just found, taken from the memo, or made stale by a new commit.
 */

type Model = Map<number, number>;

async function write<V>(wh: Warehouse, t: TableMetadata, m: Map<number, V>, upserts: readonly [number, V][], deletes: readonly number[]): Promise<void> {
  const tx = await wh.begin();
  if (upserts.length > 0) await tx.upsert(t, 'main', columnsOf(t, upserts.map(([id, v]) => ({ id, v }))));
  if (deletes.length > 0) await tx.deleteKeys(t, 'main', [[...deletes]]);
  await tx.commit();
  for (const [id, v] of upserts) m.set(id, v);
  for (const id of deletes) m.delete(id);
}

/**
 * The (id, v) rows of a read, by id; a key read twice fails. (readRows's sorted objects cost
 * seconds at 300,000 rows a read.)
 */
async function readPairs(wh: Warehouse, req: ScanRequest, counters?: ScanTaskCounters): Promise<Map<number, number | null>> {
  const out = new Map<number, number | null>();
  for (const task of (await wh.planScan(req)).tasks) {
    for await (const b of executeScanTask(task, counters)) {
      const ids = b.getChild('id');
      const vs = b.getChild('v');
      for (let i = 0; i < b.numRows; i++) {
        const id = ids === null ? i : (ids.get(i) as number);
        assert.ok(!out.has(id) || ids === null, `id ${id} read twice`);
        out.set(ids === null ? out.size : id, vs === null ? null : (vs.get(i) as number | null));
      }
    }
  }
  return out;
}

function assertSameRows(got: Map<number, number | null>, want: Map<number, number | null>, label: string): void {
  assert.equal(got.size, want.size, `${label}: rows`);
  for (const [id, v] of want) assert.equal(got.get(id), v, `${label}: id ${id}`);
}

/**
 * The reads every state is checked with: whole, one column, and filtered on a key and a
 * value column. Returns the tasks' merge counters.
 */
async function assertReads(wh: Warehouse, t: TableMetadata, m: Model, label: string): Promise<ScanTaskCounters> {
  const counters: ScanTaskCounters = { rowGroupsRead: 0, rowGroupsSkippedByStats: 0 };
  assertSameRows(await readPairs(wh, { table: t }, counters), m, `${label}: whole`);
  // v alone: the values, as a multiset
  const vs = [...(await readPairs(wh, { table: t, projection: ['v'] }, counters)).values()].sort((a, b) => a! - b!);
  assert.deepEqual(vs, [...m.values()].sort((a, b) => a - b), `${label}: v only`);
  const filters: ScanFilter[] = [{ column: 'id', op: '<', value: 50_000 }, { column: 'v', op: '>=', value: 0 }];
  assertSameRows(await readPairs(wh, { table: t, filters }, counters), new Map([...m].filter(([id, v]) => id < 50_000 && v >= 0)), `${label}: filtered`);
  return counters;
}

async function intTable(wh: Warehouse, properties: Record<string, string> = {}): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name: 'big', primaryKey: ['id'], properties,
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'int4' }, nullable: true }],
  });
}

test('a big node merges in key-hash pieces, and a scan of the same files takes the kept positions', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    clearMergePositionMemo();
    const t = await intTable(wh, { 'self-optimizing.enabled': 'false' });
    const m: Model = new Map();
    const n = 300_000;
    await write(wh, t, m, Array.from({ length: n }, (_, i): [number, number] => [i, i * 2]), []);
    await wh.optimize(t);
    // overrides, deletes, a key deleted then back, and new keys, over two commits
    await write(wh, t, m, Array.from({ length: n / 7 }, (_, i): [number, number] => [i * 7, -(i + 1)]), Array.from({ length: n / 11 }, (_, i) => i * 11 + 1));
    await write(wh, t, m, [[12, 5], [n + 1, 1], [n + 2, -2]], [7 * 3, n - 1]);

    const plan = await wh.planScan({ table: t });
    assert.equal(plan.stats.nodesSplit, 1);
    assert.equal(plan.tasks.length, 4, 'the node cut in four pieces');
    assert.ok(plan.tasks.every((task) => task.memoizeMerge === true && task.node.mask === 3 && task.changeFiles.length === 2));
    assert.ok(plan.tasks.every((task) => [...task.baseFiles, ...task.changeFiles].every((f) => f.filterByHash)));
    // each piece reads the base row groups of its hash range: about a quarter of them, none missed
    const groups = plan.tasks.map((task) => task.baseFiles[0]!.rowGroups!);
    const all = new Set(groups.flat());
    assert.equal(Math.max(...all) + 1, all.size, 'every row group read by some piece');
    assert.ok(groups.every((g) => g.length < all.size / 2), `row groups per piece: ${groups.map((g) => g.length)}`);

    assert.equal(plan.stats.merges, 4);
    assert.equal(plan.stats.mergesKept, 0, 'nothing kept yet');
    assert.ok(plan.tasks.every((task) => task.keepMergePositions === undefined), 'met once: merged as ever');
    // reads of different columns share each piece's positions: the second time the files
    // are planned (the first read; `plan` above was the first) they are found, then the
    // planner gives them out. The filtered read is one task, merged as ever: a filtered
    // scan is neither cut in pieces nor finds positions.
    const first = await assertReads(wh, t, m, 'first reads');
    assert.deepEqual([first.merges, first.mergesKept], [9, 4]);
    assert.equal((await wh.planScan({ table: t, projection: ['v'] })).stats.mergesKept, 4);
    const again = await assertReads(wh, t, m, 'again');
    assert.deepEqual([again.merges, again.mergesKept], [9, 8]);

    // a new commit makes a new change set: new keys, the positions found again
    await write(wh, t, m, [[0, 77], [n + 1, 9]], [2]);
    const next = await wh.planScan({ table: t });
    assert.notEqual(mergeMemoKey(next.tasks[0]!), mergeMemoKey(plan.tasks[0]!));
    assert.equal(next.stats.mergesKept, 0);
    assert.ok(next.tasks.every((task) => task.keepMergePositions === undefined));
    const after = await assertReads(wh, t, m, 'after a commit');
    assert.deepEqual([after.merges, after.mergesKept], [9, 4], 'planned once above: found at the first read');

    // a read at the earlier snapshot is the earlier change set: its positions are still kept
    const snapshots = wh.listSnapshots(t);
    const earlier = snapshots.at(-2)!.id;
    const old = await wh.planScan({ table: t, at: { kind: 'snapshot', id: earlier } });
    assert.deepEqual(old.tasks.map(mergeMemoKey), plan.tasks.map(mergeMemoKey));
    assert.equal(old.stats.mergesKept, 4);
  } finally { await cleanup(); }
});

test('kept positions never stand for a merge they do not describe: _seq reads, limits and merge engines merge as before', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await intTable(wh, { 'self-optimizing.enabled': 'false' });
    const m: Model = new Map();
    await write(wh, t, m, Array.from({ length: 1000 }, (_, i): [number, number] => [i, i]), []);
    await wh.optimize(t);
    await write(wh, t, m, [[1, -1]], [2]);
    const seq = await wh.planScan({ table: t, projection: ['id', '_seq'] });
    assert.ok(seq.tasks.every((task) => task.memoizeMerge === undefined), 'a _seq read');
    const limited = await wh.planScan({ table: t, limit: 5 });
    assert.ok(limited.tasks.every((task) => task.memoizeMerge === undefined), 'a limit');
    const point = await wh.planScan({ table: t, filters: [{ column: 'id', op: '=', value: 1 }] });
    assert.ok(point.tasks.every((task) => task.memoizeMerge === undefined), 'a point read');
    const whole = await wh.planScan({ table: t });
    assert.ok(whole.tasks.length === 1 && whole.tasks[0]!.memoizeMerge === true, 'a small whole read: one task, kept');

    const summed = await wh.createTable({
      namespace: 'public', name: 'summed', primaryKey: ['id'], properties: { 'merge-engine': 'aggregation', 'fields.v.aggregate-function': 'sum', 'self-optimizing.enabled': 'false' },
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'int4' }, nullable: true }],
    });
    const tx = await wh.begin();
    await tx.upsert(summed, 'main', columnsOf(summed, [{ id: 1, v: 2 }]));
    await tx.commit();
    const tx2 = await wh.begin();
    await tx2.upsert(summed, 'main', columnsOf(summed, [{ id: 1, v: 3 }]));
    await tx2.commit();
    assert.ok((await wh.planScan({ table: summed })).tasks.every((task) => task.memoizeMerge === undefined), 'a merge engine');
    assert.deepEqual(await readRows(wh, { table: summed }), [{ id: 1, v: 5 }]);
  } finally { await cleanup(); }
});

test('a node with deletion vectors and pending changes reads the same from kept positions', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kvTable(wh, 't', { 'self-optimizing.target-size': String(1024 * 1024), 'self-optimizing.enabled': 'false' });
    const m = new Map<number, string>();
    const put = (upserts: readonly [number, string][], deletes: readonly number[]) => write(wh, t, m, upserts, deletes);
    await put(Array.from({ length: 20_000 }, (_, i): [number, string] => [i, `v${(i * 2654435761) % 1000003}`]), []);
    await wh.optimize(t);
    await put([[10, 'ten'], [20_001, 'new']], [11, 12]);
    // the interval trigger due at once: the node delta-folds, leaving a deletion vector on its large file
    await wh.optimize(t, { triggers: { ...optimizingSettings(t), minorFileCount: 1000, minorIntervalMs: 0 } });
    assert.ok(wh.listFiles(t).some((f) => f.store === 'base' && (f.deletedRows ?? 0) > 0), 'a deletion vector');
    await put([[13, 'thirteen'], [12, 'back'], [15, 'fifteen']], [16, 10]);
    const want = [...m].map(([id, v]) => ({ id, v })).sort((a, b) => (JSON.stringify([a.id, a.v]) < JSON.stringify([b.id, b.v]) ? -1 : 1));
    clearMergePositionMemo();
    const task = (await wh.planScan({ table: t })).tasks[0]!;
    assert.ok(task.memoizeMerge === true && task.baseFiles.some((f) => (f.deletedPositions?.length ?? 0) > 0));
    assert.deepEqual(await readRows(wh, { table: t }), want, 'merged');
    assert.deepEqual(await readRows(wh, { table: t }), want, 'positions found');
    const kept = (await wh.planScan({ table: t })).tasks[0]!;
    assert.ok(kept.mergePositions !== undefined);
    const counters: ScanTaskCounters = { rowGroupsRead: 0, rowGroupsSkippedByStats: 0 };
    for await (const _ of executeScanTask(kept, counters)) { /* drained */ }
    assert.equal(counters.mergesKept, 1);
    assert.deepEqual(await readRows(wh, { table: t }), want, 'positions kept');
    // A filtered scan takes the same positions, and filters the winning change rows as it
    // does the base rows ('back', 'fifteen' and 'new' won their keys and fail the filter).
    const filters: ScanFilter[] = [{ column: 'v', op: '>=', value: 't' }];
    const filtered = (await wh.planScan({ table: t, filters })).tasks[0]!;
    assert.ok(filtered.mergePositions !== undefined, 'positions given to a filtered scan');
    const filteredCounters: ScanTaskCounters = { rowGroupsRead: 0, rowGroupsSkippedByStats: 0 };
    const got: { id: number; v: string }[] = [];
    for await (const b of executeScanTask(filtered, filteredCounters)) {
      for (let r = 0; r < b.numRows; r++) got.push({ id: b.getChildAt(0)!.get(r) as number, v: b.getChildAt(1)!.get(r) as string });
    }
    assert.equal(filteredCounters.mergesKept, 1);
    const sorted = (rows: { id: number; v: string }[]) => [...rows].sort((a, b) => a.id - b.id);
    assert.deepEqual(sorted(got), sorted(want.filter((r) => r.v >= 't')), 'filtered, positions kept');
  } finally { await cleanup(); }
});
