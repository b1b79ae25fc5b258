/**
 * Warehouse.optimizingMetrics against what t$files and t$snapshots show (issue 23), and
 * the trigger rules over them: which nodes a scan merges how many change files for,
 * what a fold may take now, and when a table is due for which kind.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dueOptimizingKind, majorNodeDue, minorAction, optimizingSettings, undersizedSiblingPairs } from '../../src/lake/index.js';
import type { NodeOptimizingMetrics, OptimizingMetrics } from '../../src/lake/index.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';
import { idsIn, kvTable, setProperties, upsertRows } from './helpers/keyed-table.js';

const sum = (xs: readonly { sizeBytes: number }[]): number => xs.reduce((n, f) => n + f.sizeBytes, 0);
const rows = (xs: readonly { rowCount: number }[]): number => xs.reduce((n, f) => n + f.rowCount, 0);

test('keyed table: pending changes, foldable ones, the oldest, base files and read amplification match t$files', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    let t = await kvTable(wh, 'kv');
    for (let i = 0; i < 3; i++) await upsertRows(wh, t, Array.from({ length: 5 + i }, (_, j) => ({ id: j * 10 + i, v: 'a' })));
    // an open transaction holds the low watermark: what commits after it cannot be folded yet
    const open = await wh.begin();
    await open.upsert(t, 'main', columnsOf(t, [{ id: 999, v: 'open' }]));
    await upsertRows(wh, t, [{ id: 1, v: 'late' }]);
    const files = wh.listFiles(t);
    const snaps = wh.listSnapshots(t);
    let m = wh.optimizingMetrics(t);
    assert.equal(m.keyed, true);
    assert.equal(m.nodes.length, 1);
    const root = m.nodes[0]!;
    assert.deepEqual(
      { changeFiles: root.changeFiles, changeRows: root.changeRows, changeBytes: root.changeBytes, foldable: root.foldableChangeFiles, baseFiles: root.baseFiles },
      { changeFiles: 4, changeRows: rows(files), changeBytes: sum(files), foldable: 3, baseFiles: 0 },
    );
    const firstWrite = snaps.find((s) => s.id === files.reduce((a, f) => (f.addedIn < a ? f.addedIn : a), files[0]!.addedIn))!;
    assert.equal(root.oldestChangeMicros, firstWrite.committedAtMicros);
    assert.equal(m.oldestPendingChangeMicros, firstWrite.committedAtMicros);
    assert.deepEqual([m.pendingChangeFiles, m.pendingChangeRows, m.pendingChangeBytes, m.readAmplification], [4, rows(files), sum(files), 4]);
    const late = files.reduce((a, f) => (f.seq > a.seq ? f : a), files[0]!);
    assert.equal(m.nextFoldableSeq, late.seq, 'the late commit is the next change the watermark must pass');
    assert.ok(wh.lowWatermark() <= late.seq);
    await open.commit();
    assert.ok(wh.lowWatermark() > late.seq, 'the open transaction ended');
    assert.equal(wh.optimizingMetrics(t).nextFoldableSeq, undefined, 'every change is foldable');

    await wh.optimize(t);
    m = wh.optimizingMetrics(t);
    const base = wh.listFiles(t);
    assert.equal(base.length, 1);
    assert.deepEqual(
      [m.baseFiles, m.baseRows, m.baseBytes, m.smallFiles, m.pendingChangeFiles, m.readAmplification, m.oldestPendingChangeMicros],
      [1, base[0]!.rowCount, base[0]!.sizeBytes, 1, 0, 0, undefined],
    );

    // split, with a change file left at the root that both children merge: it counts once for the table
    t = await setProperties(wh, t, { 'self-optimizing.target-size': '1' });
    const x = await wh.begin();
    await x.upsert(t, 'main', columnsOf(t, [{ id: 500, v: 'x' }]));
    await wh.optimize(t);
    t = await setProperties(wh, t, { 'self-optimizing.target-size': String(1 << 26) });
    await x.commit();
    await upsertRows(wh, t, idsIn({ mask: 1, index: 1 }, 2, 600).map((id) => ({ id, v: 'r' })));
    m = wh.optimizingMetrics(t);
    const byNode = Object.fromEntries(m.nodes.map((n) => [`${n.node.mask}:${n.node.index}`, n.changeFiles]));
    assert.deepEqual(byNode, { '1:0': 1, '1:1': 2 });
    assert.equal(m.pendingChangeFiles, 2);
    assert.equal(m.readAmplification, 2);
    const now = wh.listFiles(t);
    assert.equal(m.baseBytes, sum(now.filter((f) => f.store === 'base')));
    assert.equal(m.pendingChangeRows, rows(now.filter((f) => f.store === 'change')));
    // the undersized split children are a pair a major merges
    assert.equal(undersizedSiblingPairs(m.nodes, optimizingSettings(t)).length, 1);
    assert.equal(dueOptimizingKind(m, optimizingSettings(t), {}, BigInt(Date.now()) * 1000n), 'major');
  } finally { await cleanup(); }
});

test('append table: data files, small files and the share of deleted rows', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({ namespace: 'public', name: 'log', columns: [{ name: 'x', type: { kind: 'int4' }, nullable: true }] });
    for (const batch of [[1, 2, 3, 4], [5, 6, 7, 8, 9, 10]]) {
      const tx = await wh.begin();
      await tx.insert(t, 'main', [batch]);
      await tx.commit();
    }
    const ids = await readRows(wh, { table: t, projection: ['x', '_row_id'] });
    const d = await wh.begin();
    await d.deleteRows(t, 'main', ids.filter((r) => (r.x as number) % 4 === 0).map((r) => r['_row_id'] as bigint));
    await d.commit();
    const m = wh.optimizingMetrics(t);
    const files = wh.listFiles(t);
    assert.deepEqual(
      [m.keyed, m.baseFiles, m.baseRows, m.baseBytes, m.smallFiles, m.readAmplification, m.nodes.length],
      // one entry per partition (an append table has no bucket nodes)
      [false, 2, 10, sum(files), 2, 0, 1],
    );
    assert.equal(m.duplicateRatio, files.reduce((n, f) => n + f.deletedRows, 0) / 10);
    assert.equal(m.duplicateRatio, 0.2);
  } finally { await cleanup(); }
});

function node(index: number, mask: number, baseBytes: number, extra: Partial<NodeOptimizingMetrics> = {}): NodeOptimizingMetrics {
  return {
    partitionKey: '[]', node: { mask, index }, changeFiles: 0, changeRows: 0, changeBytes: 0, foldableChangeFiles: 0,
    oldestChangeMicros: undefined, baseFiles: baseBytes > 0 ? 1 : 0, baseRows: baseBytes, baseBytes, deletedRows: 0, ...extra,
  };
}

function metrics(nodes: NodeOptimizingMetrics[]): OptimizingMetrics {
  return {
    keyed: true, pendingChangeFiles: 0, pendingChangeRows: 0, pendingChangeBytes: 0, oldestPendingChangeMicros: undefined,
    baseFiles: nodes.length, baseRows: 0, baseBytes: 0, smallFiles: 0, duplicateRatio: 0, readAmplification: 0, nodes,
  };
}

test('undersized sibling pairs: both children of one parent, each under target/ratio, together under target/2', () => {
  const s = { ...optimizingSettings({ properties: {} }), targetSize: 800, fragmentRatio: 8 };
  // 3:1 and 3:3 are siblings (parent 1:1); 1:0 has no frontier sibling at its level
  assert.deepEqual(undersizedSiblingPairs([node(0, 1, 10), node(1, 3, 50), node(3, 3, 60)], s).map(([a, b]) => [a.node, b.node]),
    [[{ mask: 3, index: 1 }, { mask: 3, index: 3 }]]);
  assert.equal(undersizedSiblingPairs([node(0, 1, 10), node(1, 3, 100), node(3, 3, 60)], s).length, 0, 'one is not under target/8');
  assert.equal(undersizedSiblingPairs([node(0, 1, 99), node(1, 1, 99)], { ...s, fragmentRatio: 2 }).length, 1);
  assert.equal(undersizedSiblingPairs([node(0, 1, 299), node(1, 1, 299)], { ...s, fragmentRatio: 2 }).length, 0, 'together not under target/2');
  assert.equal(undersizedSiblingPairs([node(0, 0, 0)], s).length, 0, 'the root has no sibling');
  assert.equal(undersizedSiblingPairs([node(0, 1, 0), { ...node(1, 1, 0), partitionKey: '[1]' }, node(1, 1, 0)], s).length, 1, 'siblings are per partition');
  const now = 10_000_000_000n;
  assert.equal(dueOptimizingKind(metrics([node(0, 1, 0), node(1, 1, 0)]), s, {}, now), 'major');
  assert.equal(dueOptimizingKind(metrics([node(0, 0, 900)]), s, {}, now), 'minor', 'a node past the target size is due for its split');
  assert.equal(dueOptimizingKind(metrics([node(0, 0, 500)]), s, {}, now), undefined);
});

test('minor on a node at or past the major floor delta-folds it, or compacts its change files without deletion vectors; under it, and on the bytes trigger, it folds', () => {
  const withDvs = { ...optimizingSettings({ properties: {} }), targetSize: 800, fragmentRatio: 8, minorFileCount: 12, minorBytes: 1000, minorIntervalMs: 60_000 };
  const s = { ...withDvs, deletionVectors: false };
  const now = 10_000_000_000n;
  const old = now - 120_000_000n;
  const pending = (files: number, extra: Partial<NodeOptimizingMetrics> = {}) => ({ changeFiles: files, foldableChangeFiles: files, changeBytes: 10 * files, oldestChangeMicros: now, ...extra });
  // big (100 ≥ 800/8): count triggers compact
  assert.deepEqual(minorAction(node(0, 0, 100, pending(12)), s, now), { reason: 'file-count', action: 'compact' });
  assert.deepEqual(minorAction(node(0, 0, 100, pending(16)), s, now), { reason: 'read-amplification', action: 'compact' });
  assert.deepEqual(minorAction(node(0, 0, 100, pending(12, { changeBytes: 1000 })), s, now), { reason: 'bytes', action: 'fold' }, 'big changes fold');
  assert.deepEqual(minorAction(node(0, 0, 100, pending(3, { changeBytes: 1000 })), s, now), { reason: 'bytes', action: 'fold' }, 'big changes fold');
  // the interval does not apply to a big node: without new files a compaction has nothing to do
  assert.equal(minorAction(node(0, 0, 100, pending(3, { oldestChangeMicros: old })), s, now), undefined);
  assert.equal(minorAction(node(0, 0, 100, pending(12, { foldableChangeFiles: 1 })), s, now), undefined, 'one foldable file: nothing to compact');
  // small (99 < 100): the minor triggers fold, the interval included
  assert.deepEqual(minorAction(node(0, 0, 99, pending(12)), s, now), { reason: 'file-count', action: 'fold' });
  assert.deepEqual(minorAction(node(0, 0, 99, pending(3, { oldestChangeMicros: old })), s, now), { reason: 'interval', action: 'fold' });
  // the scheduler's kind agrees
  assert.equal(dueOptimizingKind(metrics([node(0, 0, 100, pending(12))]), s, {}, now), 'minor');
  assert.equal(dueOptimizingKind(metrics([node(0, 0, 100, pending(3, { oldestChangeMicros: old }))]), s, {}, now), undefined);
  // with deletion vectors (the default, deduplicate tables) a big node compacts on the count
  // triggers and delta-folds on the interval and bytes ones
  assert.equal(optimizingSettings({ properties: {} }).deletionVectors, true);
  assert.equal(optimizingSettings({ properties: { 'merge-engine': 'aggregation' } }).deletionVectors, false, 'other engines combine superseded rows');
  assert.deepEqual(minorAction(node(0, 0, 100, pending(12)), withDvs, now), { reason: 'file-count', action: 'compact' });
  assert.deepEqual(minorAction(node(0, 0, 100, pending(12, { oldestChangeMicros: old })), withDvs, now), { reason: 'file-count', action: 'compact' }, 'files first');
  assert.deepEqual(minorAction(node(0, 0, 100, pending(3, { changeBytes: 1000 })), withDvs, now), { reason: 'bytes', action: 'delta' });
  assert.deepEqual(minorAction(node(0, 0, 100, pending(12, { changeBytes: 1000 })), withDvs, now), { reason: 'bytes', action: 'delta' }, 'big changes delta-fold');
  assert.deepEqual(minorAction(node(0, 0, 100, pending(1, { oldestChangeMicros: old })), withDvs, now), { reason: 'interval', action: 'delta' });
  assert.deepEqual(minorAction(node(0, 0, 99, pending(12)), withDvs, now), { reason: 'file-count', action: 'fold' }, 'a small node still folds');
  assert.equal(dueOptimizingKind(metrics([node(0, 0, 100, pending(1, { oldestChangeMicros: old }))]), withDvs, {}, now), 'minor');
});

test('major counts rows deletion vectors mark as duplicates, even with no change pending', () => {
  const s = { ...optimizingSettings({ properties: {} }), targetSize: 800, fragmentRatio: 8, majorDuplicateRatio: 0.1 };
  const now = 10_000_000_000n;
  assert.equal(majorNodeDue({ ...node(0, 0, 100), baseRows: 1000, deletedRows: 99 }, s), false);
  assert.equal(majorNodeDue({ ...node(0, 0, 100), baseRows: 1000, deletedRows: 100 }, s), true);
  assert.equal(majorNodeDue({ ...node(0, 0, 100), baseRows: 1000, deletedRows: 60, changeRows: 40, changeFiles: 1, foldableChangeFiles: 1 }, s), true);
  assert.equal(majorNodeDue({ ...node(0, 0, 99), baseRows: 1000, deletedRows: 500 }, s), false, 'not a fragment');
  assert.equal(dueOptimizingKind(metrics([{ ...node(0, 0, 100), baseRows: 1000, deletedRows: 100 }]), s, {}, now), 'major');
});
