import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executeRewriteTask, optimizingSettings } from '../../src/lake/index.js';
import type { NodeRewriteResult, NodeRewriteTask, OptimizingSettings, TableMetadata, Warehouse } from '../../src/lake/index.js';
import { isLogPath } from '../../src/lake/log/log-locator.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

/*
 * The scheduler's minor on a node too big to rewrite for a few changes compacts the node's
 * change files (log, Parquet and tiered alike) into one tiered change file in place
 * (optimizing-triggers.ts, minorAction). Nothing any snapshot reads may change: not the
 * head, not time travel to each commit, not table_changes.
 */

type Model = Map<number, string>;

async function kv(wh: Warehouse): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name: 't', primaryKey: ['id'], properties: {},
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
}

async function upsert(wh: Warehouse, t: TableMetadata, rows: readonly (readonly [number, string])[], m: Model): Promise<bigint> {
  const tx = await wh.begin();
  await tx.upsert(t, 'main', columnsOf(t, rows.map(([id, v]) => ({ id, v }))));
  for (const [id, v] of rows) m.set(id, v);
  return (await tx.commit())!.id;
}

async function del(wh: Warehouse, t: TableMetadata, ids: readonly number[], m: Model): Promise<bigint> {
  const tx = await wh.begin();
  await tx.deleteKeys(t, 'main', [[...ids]]);
  for (const id of ids) m.delete(id);
  return (await tx.commit())!.id;
}

const rowsOf = (m: Model) => [...m].map(([id, v]) => ({ id, v }))
  .sort((a, b) => (JSON.stringify([a.id, a.v]) < JSON.stringify([b.id, b.v]) ? -1 : 1));

/** Triggers under which the table's one node counts as too big to rewrite and is due at 3 change files. */
function compactingTriggers(t: TableMetadata): OptimizingSettings {
  // without deletion vectors: a large node's minor compacts instead of delta-folding
  return { ...optimizingSettings(t), targetSize: 1 << 30, fragmentRatio: 1 << 30, minorFileCount: 3, minorIntervalMs: 3_600_000, deletionVectors: false };
}

/**
 * A runNodeRewrite that hands each task over as a worker thread gets it (structured-cloned,
 * so anything that cannot cross a thread fails here) and records the task kinds it ran.
 */
function clonedTaskRunner(kinds: string[]): (task: NodeRewriteTask) => Promise<NodeRewriteResult> {
  return async (task) => {
    kinds.push(task.kind);
    return structuredClone(await executeRewriteTask(structuredClone(task)));
  };
}

/** Every commit's contents and the change feed, to compare before and after a compaction. */
async function everything(wh: Warehouse, t: TableMetadata, snaps: readonly bigint[]): Promise<string> {
  const out: unknown[] = [];
  for (const id of snaps) out.push(await readRows(wh, { table: t, at: { kind: 'snapshot', id } }));
  const changes = await wh.readChanges(t, undefined, snaps[snaps.length - 1]!);
  // Each row's offset in its transaction too: a tiered file keeps it (`_offset`), and publications pair key changes by it.
  assert.ok(changes.every((c) => c.firstOffset !== undefined), 'every change row has its offset');
  out.push(changes.map((c) => ({ snapshot: c.snapshotId, seq: c.seq, firstOffset: c.firstOffset, rows: c.batch.toArray().map((r) => r.toJSON()) })));
  return JSON.stringify(out, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
}

test('a big node\'s minor compacts log, Parquet and tiered change files into one, and every snapshot and the change feed read the same', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    const m: Model = new Map();
    const snaps: bigint[] = [];
    snaps.push(await upsert(wh, t, Array.from({ length: 300 }, (_, i) => [i, `base${i}`] as const), m));
    await wh.optimize(t);
    const base = wh.listFiles(t).filter((f) => f.store === 'base').map((f) => f.path);
    assert.equal(base.length, 1);
    snaps.push(await upsert(wh, t, [[1, 'a'], [2, 'a'], [1000, 'new']], m));
    snaps.push(await del(wh, t, [3, 1000], m));
    await wh.tierLogFiles(t); // the two commits become one tiered file
    const tiered = wh.listFiles(t).filter((f) => f.store === 'change').map((f) => f.path);
    assert.equal(tiered.length, 1);
    assert.ok(!isLogPath(tiered[0]!));
    snaps.push(await upsert(wh, t, [[1, 'b'], [3, 'back']], m));
    // A transaction past the log store's limit stores a Parquet change file of its own.
    snaps.push(await upsert(wh, t, Array.from({ length: 40 }, (_, i) => [2000 + i, 'x'.repeat(200_000)] as const), m));
    snaps.push(await upsert(wh, t, [[2, 'c'], [2001, 'small']], m));
    snaps.push(await del(wh, t, [1], m));
    const changeFiles = wh.listFiles(t).filter((f) => f.store === 'change');
    assert.ok(changeFiles.some((f) => f.path === tiered[0]), 'a tiered input');
    assert.ok(changeFiles.some((f) => isLogPath(f.path)), 'a log input');
    assert.ok(changeFiles.some((f) => !isLogPath(f.path) && f.path !== tiered[0]), 'a plain Parquet input');
    const before = await everything(wh, t, snaps);

    // The group's rewrite goes where node rewrites go (the service's optimizer threads), not inline.
    const kinds: string[] = [];
    const r = await wh.optimize(t, { triggers: compactingTriggers(wh.getTable('public', 't')!), runNodeRewrite: clonedTaskRunner(kinds) });
    assert.deepEqual(kinds, ['change-group']);
    assert.equal(r.snapshotId, undefined, 'a compaction commits no snapshot');
    assert.equal(r.changeFilesCompacted, changeFiles.length);
    assert.equal(r.filesOut, 1);
    const after = wh.listFiles(t);
    assert.deepEqual(after.filter((f) => f.store === 'base').map((f) => f.path), base, 'the base is left alone');
    assert.equal(after.filter((f) => f.store === 'change').length, 1);
    assert.equal(await everything(wh, t, snaps), before);
    assert.deepEqual(await readRows(wh, { table: t }), rowsOf(m));

    // Nothing new: not due, and nothing is done.
    const again = await wh.optimize(t, { triggers: compactingTriggers(wh.getTable('public', 't')!) });
    assert.equal(again.filesOut, 0);
    assert.equal(again.snapshotId, undefined);

    // The compacted file is a level: a few new commits are compacted beside it, not into it.
    for (let i = 0; i < 3; i++) snaps.push(await upsert(wh, t, [[10 + i, `later${i}`]], m));
    const next = await wh.optimize(t, { triggers: compactingTriggers(wh.getTable('public', 't')!) });
    assert.equal(next.changeFilesCompacted, 3);
    assert.equal(wh.listFiles(t).filter((f) => f.store === 'change').length, 2);
    const compacted = await everything(wh, t, snaps);
    assert.deepEqual(await readRows(wh, { table: t }), rowsOf(m));

    // A fold of the compacted files reads the same again.
    const fold = await wh.optimize(t);
    assert.ok(fold.snapshotId !== undefined);
    assert.equal(wh.listFiles(t).filter((f) => f.store === 'change').length, 0);
    assert.deepEqual(await readRows(wh, { table: t }), rowsOf(m));
    assert.equal(await everything(wh, t, snaps), compacted);
  } finally { await cleanup(); }
});

test('compactions leave every upper level out: new files are compacted beside both earlier outputs, not into them', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    const m: Model = new Map();
    await upsert(wh, t, Array.from({ length: 300 }, (_, i) => [i, `base${i}`] as const), m);
    await wh.optimize(t);
    let next = 1000;
    const commit = (n: number) => upsert(wh, t, Array.from({ length: n }, () => [next++, 'v'] as const), m);
    const compact = () => wh.optimize(t, { triggers: compactingTriggers(wh.getTable('public', 't')!) });
    const changeRows = () => wh.listFiles(t).filter((f) => f.store === 'change').map((f) => f.rowCount).sort((a, b) => b - a);
    for (const n of [20, 20, 10]) await commit(n);
    assert.equal((await compact()).changeFilesCompacted, 3);
    assert.deepEqual(changeRows(), [50]);
    for (const n of [4, 3, 3]) await commit(n);
    assert.equal((await compact()).changeFilesCompacted, 3);
    assert.deepEqual(changeRows(), [50, 10]);
    // 50 > 4 × (10 + 2) and 10 > 4 × 2: both levels stay out, only the two new files are read.
    for (const n of [1, 1]) await commit(n);
    assert.equal((await compact()).changeFilesCompacted, 2);
    assert.deepEqual(changeRows(), [50, 10, 2]);
    assert.deepEqual(await readRows(wh, { table: t }), rowsOf(m));
  } finally { await cleanup(); }
});

test('a node under the major floor still folds on its minor triggers', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    const m: Model = new Map();
    await upsert(wh, t, [[1, 'a']], m);
    await wh.optimize(t);
    for (let i = 0; i < 3; i++) await upsert(wh, t, [[i, `v${i}`]], m);
    const r = await wh.optimize(t, { triggers: { ...optimizingSettings(wh.getTable('public', 't')!), minorFileCount: 3 } });
    assert.ok(r.snapshotId !== undefined, 'a fold commits');
    assert.equal(r.changeFilesCompacted, 0);
    assert.equal(wh.listFiles(t).filter((f) => f.store === 'change').length, 0);
    assert.deepEqual(await readRows(wh, { table: t }), rowsOf(m));
  } finally { await cleanup(); }
});
