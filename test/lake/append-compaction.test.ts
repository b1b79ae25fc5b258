/**
 * Optimizing append tables (no primary key): small files combined, deleted rows purged,
 * reads unchanged, and concurrent writers never failed by it (see docs/design-notes.md,
 * "Self-optimizing → Append tables").
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { isFloeError } from '../../src/common/floe-error.js';
import { executeAppendFilesRewrite } from '../../src/lake/optimize/execute-append-files-rewrite.js';
import type { AppendFilesRewriteTask } from '../../src/lake/optimize/append-files-rewrite-task.js';
import { ROW_ID_COLUMN } from '../../src/lake/index.js';
import type { NodeRewriteResult, NodeRewriteTask } from '../../src/lake/index.js';
import { optimizingSettings } from '../../src/lake/table/optimizing-properties.js';
import { SqliteCatalog } from '../../src/lake/catalog/sqlite/sqlite-catalog.js';
import { appendOptimizingMetrics } from '../../src/lake/optimize/append-optimizing-metrics.js';
import { dueOptimizingKind } from '../../src/lake/optimize/optimizing-triggers.js';
import { readRows, tempWarehouse } from './helpers/read-table.js';
import { createAppendTable, deleteWhere, insertIds, liveRows, rowsWithIds, updateWhere } from './helpers/append-table.js';

const range = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);

/**
 * A runNodeRewrite hook that runs the append executor, calling `before` first (a worker
 * that dies there has written nothing) and `between` after the rewrite read its inputs.
 */
function hookWith(
  between: (task: AppendFilesRewriteTask, call: number) => Promise<void>, before?: (call: number) => void,
): (task: NodeRewriteTask) => Promise<NodeRewriteResult> {
  let call = 0;
  return async (task) => {
    const n = call++;
    before?.(n);
    // Cloned both ways, as a worker thread would receive and return them.
    const t = structuredClone(task) as unknown as AppendFilesRewriteTask;
    const r = structuredClone(await executeAppendFilesRewrite(t));
    await between(t, n);
    return r as unknown as NodeRewriteResult;
  };
}

/** The table's Parquet files on disk (none, and no directory, while every commit's rows are in the log). */
function dataFiles(dir: string, tableId: number): string[] {
  const at = join(dir, 'data', String(tableId));
  return existsSync(at) ? readdirSync(at).sort() : [];
}

describe('append-table compaction by kind', () => {
  test('minor combines the small files of a partition into one, keeping every row and row order', async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await createAppendTable(wh, 'a');
      for (let i = 0; i < 6; i++) await insertIds(wh, t, range(i * 10, 10));
      const before = await liveRows(wh, t);
      assert.equal(wh.listFiles(t).length, 6);
      const r = await wh.optimize(t, { kind: 'minor' });
      assert.equal(r.kind, 'minor');
      assert.equal(r.nodesOptimized, 1);
      assert.equal(r.filesIn, 6);
      assert.equal(r.filesOut, 1);
      assert.equal(r.rowsIn, 60);
      assert.equal(r.rowsOut, 60);
      assert.ok(r.bytesIn > 0 && r.bytesOut > 0);
      assert.notEqual(r.snapshotId, undefined);
      assert.equal(wh.listFiles(t).length, 1);
      assert.deepEqual(await liveRows(wh, t), before);
      // Rows keep their arrival order inside the output: ids read in file order.
      const ids = (await rowsWithIds(wh, t)).sort((a, b) => Number(a._row_id - b._row_id)).map((x) => x['id']);
      assert.deepEqual(ids, range(0, 60));
      // Nothing left to do: a second minor commits nothing.
      assert.equal((await wh.optimize(t, { kind: 'minor' })).snapshotId, undefined);
    } finally { await cleanup(); }
  });

  test('minor with triggers waits for minorFileCount small files; without, two are enough', async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await createAppendTable(wh, 'a', { 'self-optimizing.minor.trigger.file-count': '4' });
      for (let i = 0; i < 3; i++) await insertIds(wh, t, range(i * 10, 10));
      const triggers = optimizingSettings(t);
      assert.equal((await wh.optimize(t, { kind: 'minor', triggers })).nodesOptimized, 0);
      await insertIds(wh, t, range(30, 10));
      assert.equal((await wh.optimize(t, { kind: 'minor', triggers })).filesIn, 4);
      await insertIds(wh, t, range(40, 10));
      assert.equal((await wh.optimize(t, { kind: 'minor', triggers })).nodesOptimized, 0, 'one big and one small file: nothing to combine under the trigger');
      assert.equal((await wh.optimize(t, { kind: 'minor' })).filesIn, 2);
      assert.deepEqual((await liveRows(wh, t)).map((r) => r.id), range(0, 50));
    } finally { await cleanup(); }
  });

  test('minor leaves a lone small file alone; major purges a file whose deleted share reached the duplicate ratio', async () => {
    // Parquet files: a log-located file is small whatever its size (below).
    const { wh, cleanup } = await tempWarehouse({ log: false });
    try {
      // target-size 64 bytes: every file is past target / fragment-ratio, so none is "small".
      const t = await createAppendTable(wh, 'a', { 'self-optimizing.target-size': '64', 'self-optimizing.major.trigger.duplicate-ratio': '0.25' });
      await insertIds(wh, t, range(0, 20));
      await insertIds(wh, t, range(100, 20));
      const txn = await wh.begin();
      assert.equal(await deleteWhere(wh, t, txn, (id) => id < 6 || id === 100), 7);
      await txn.commit();
      const before = await liveRows(wh, t);
      assert.equal((await wh.optimize(t, { kind: 'minor' })).nodesOptimized, 0);
      const r = await wh.optimize(t, { kind: 'major', triggers: optimizingSettings(t) });
      // 6 of 20 deleted (0.3) is past 0.25; 1 of 20 (0.05) is not.
      assert.equal(r.filesIn, 1);
      assert.equal(r.rowsIn, 20);
      assert.equal(r.rowsOut, 14);
      const files = wh.listFiles(t);
      assert.equal(files.length, 2);
      assert.deepEqual(files.map((f) => f.deletedRows).sort(), [0, 1]);
      assert.deepEqual(await liveRows(wh, t), before);
    } finally { await cleanup(); }
  });

  test('full rewrites every file into target-size files and drops every deleted row', async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await createAppendTable(wh, 'a');
      for (let i = 0; i < 4; i++) await insertIds(wh, t, range(i * 100, 100));
      const txn = await wh.begin();
      await deleteWhere(wh, t, txn, (id) => id % 3 === 0);
      await txn.commit();
      const before = await liveRows(wh, t);
      const r = await wh.optimize(t, { kind: 'full' });
      assert.equal(r.kind, 'full');
      assert.equal(r.filesIn, 4);
      assert.equal(r.filesOut, 1);
      assert.equal(r.rowsIn, 400);
      assert.equal(r.rowsOut, before.length);
      assert.deepEqual(wh.listFiles(t).map((f) => f.deletedRows), [0]);
      assert.deepEqual(await liveRows(wh, t), before);
      // A second full still rewrites (every file, by definition), and still reads the same.
      assert.equal((await wh.optimize(t, { kind: 'full' })).filesIn, 1);
      assert.deepEqual(await liveRows(wh, t), before);
    } finally { await cleanup(); }
  });

  test('files of different partitions are never combined', async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await wh.createTable({
        namespace: 'public', name: 'p', partitionBy: [{ sourceColumn: 'k', transform: { kind: 'identity' }, name: 'k' }],
        columns: [{ name: 'k', type: { kind: 'int4' }, nullable: false }, { name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
      });
      for (let i = 0; i < 6; i++) {
        const txn = await wh.begin();
        await txn.insert(t, 'main', [[i % 2, i % 2], [i, i + 100], ['x', 'y']]);
        await txn.commit();
      }
      const r = await wh.optimize(t, { kind: 'minor' });
      assert.equal(r.nodesOptimized, 2);
      assert.equal(r.filesOut, 2);
      assert.deepEqual(wh.listFiles(t).map((f) => f.rowCount).sort(), [6, 6]);
    } finally { await cleanup(); }
  });
});

describe('append-table compaction never fails a concurrent writer', () => {
  test('a delete committed after the rewrite read its inputs, before the compaction committed, is carried to the output', async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await createAppendTable(wh, 'a');
      for (let i = 0; i < 4; i++) await insertIds(wh, t, range(i * 10, 10));
      const first = await wh.begin();
      await deleteWhere(wh, t, first, (id) => id === 3);
      await first.commit();
      const r = await wh.optimize(t, {
        kind: 'major',
        runNodeRewrite: hookWith(async () => {
          const w = await wh.begin();
          assert.equal(await deleteWhere(wh, t, w, (id) => id === 17 || id === 35), 2);
          await w.commit();
        }),
      });
      assert.equal(r.rowsOut, 39, 'the rewrite dropped the delete it read');
      assert.deepEqual((await liveRows(wh, t)).map((x) => x.id), range(0, 40).filter((id) => ![3, 17, 35].includes(id)));
      assert.deepEqual(wh.listFiles(t).map((f) => f.deletedRows), [2]);
    } finally { await cleanup(); }
  });

  test('DELETE and UPDATE whose row ids predate a compaction commit after it, on the right rows', async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await createAppendTable(wh, 'a');
      for (let i = 0; i < 5; i++) await insertIds(wh, t, range(i * 10, 10));
      const gone = await wh.begin();
      await deleteWhere(wh, t, gone, (id) => id % 10 === 0);
      await gone.commit();
      // Both transactions read (and hold row ids of) the uncompacted files.
      const del = await wh.begin();
      const upd = await wh.begin();
      assert.equal(await deleteWhere(wh, t, del, (id) => id === 12 || id === 47), 2);
      assert.equal(await updateWhere(wh, t, upd, (id) => id === 21 || id === 33, 'updated'), 2);
      const r = await wh.optimize(t, { kind: 'major' });
      assert.equal(r.filesIn, 5);
      assert.equal(r.rowsOut, 45);
      await del.commit();
      await upd.commit();
      const rows = await liveRows(wh, t);
      const expected = range(0, 50).filter((id) => id % 10 !== 0 && id !== 12 && id !== 47)
        .map((id) => ({ id, v: id === 21 || id === 33 ? 'updated' : `v${id}` }));
      assert.deepEqual(rows, expected);
      // Through two compactions (a chain), one transaction still open across both.
      const late = await wh.begin();
      assert.equal(await deleteWhere(wh, t, late, (id) => id === 44), 1);
      await insertIds(wh, t, [100]);
      await wh.optimize(t, { kind: 'full' });
      await insertIds(wh, t, [101]);
      await wh.optimize(t, { kind: 'full' });
      await late.commit();
      assert.deepEqual((await liveRows(wh, t)).map((x) => x.id), [...expected.map((x) => x.id).filter((id) => id !== 44), 100, 101]);
    } finally { await cleanup(); }
  });

  test('deleting a row the compaction dropped (deleted concurrently) is a writer/writer conflict, as without compaction', async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await createAppendTable(wh, 'a');
      for (let i = 0; i < 3; i++) await insertIds(wh, t, range(i * 10, 10));
      const slow = await wh.begin();
      await deleteWhere(wh, t, slow, (id) => id === 15);
      const fast = await wh.begin();
      await deleteWhere(wh, t, fast, (id) => id === 15);
      await fast.commit();
      await wh.optimize(t, { kind: 'major' });
      await assert.rejects(slow.commit(), (e: unknown) => isFloeError(e) && e.sqlstate === '40001');
      assert.deepEqual((await liveRows(wh, t)).map((x) => x.id), range(0, 30).filter((id) => id !== 15));
    } finally { await cleanup(); }
  });

  test('an optimize that fails mid-way (a rewrite throws, or it is aborted) leaves the table exactly as it was', async () => {
    const { wh, dir, cleanup } = await tempWarehouse();
    try {
      const t = await createAppendTable(wh, 'p', { 'self-optimizing.target-size': '4KB' });
      for (let i = 0; i < 8; i++) await insertIds(wh, t, range(i * 50, 50));
      const txn = await wh.begin();
      await deleteWhere(wh, t, txn, (id) => id % 7 === 0);
      await txn.commit();
      const rows = await liveRows(wh, t);
      const files = wh.listFiles(t);
      const onDisk = dataFiles(dir, t.id);
      const snapshots = wh.listSnapshots(t).length;
      await assert.rejects(wh.optimize(t, {
        kind: 'full',
        runNodeRewrite: hookWith(async () => undefined, (call) => { if (call === 2) throw new Error('worker died'); }),
      }), /worker died/);
      const aborter = new AbortController();
      await assert.rejects(wh.optimize(t, {
        kind: 'full', signal: aborter.signal,
        runNodeRewrite: hookWith(async (_task, call) => { if (call === 1) aborter.abort(); }),
      }), (e: unknown) => (e as Error).name === 'AbortError');
      assert.deepEqual(wh.listFiles(t), files);
      assert.equal(wh.listSnapshots(t).length, snapshots);
      assert.deepEqual(await liveRows(wh, t), rows);
      assert.deepEqual(dataFiles(dir, t.id), onDisk, 'the written outputs were deleted');
    } finally { await cleanup(); }
  });

  test('expiry keeps the record of where rows went while a transaction can hold their old ids, and drops it after', async () => {
    const { wh, dir, cleanup } = await tempWarehouse();
    const catalog = new SqliteCatalog(join(dir, 'catalog.db'));
    try {
      const t = await createAppendTable(wh, 'a');
      for (let i = 0; i < 3; i++) await insertIds(wh, t, range(i * 10, 10));
      const first = wh.listFiles(t).map((f) => f.fileId);
      const open = await wh.begin();
      await deleteWhere(wh, t, open, (id) => id === 25);
      await wh.optimize(t, { kind: 'minor' });
      await insertIds(wh, t, range(30, 10));
      await wh.optimize(t, { kind: 'full' });
      const second = wh.listFiles(t).map((f) => f.fileId);
      const far = BigInt(Date.now() + 3_600_000) * 1000n;
      await wh.expireSnapshots(t, { olderThanMicros: far });
      // The open transaction's snapshot still reads the first files: their chain stays.
      assert.equal(catalog.fileReplacements(t.id, first).length, 3);
      await open.commit();
      assert.deepEqual((await liveRows(wh, t)).map((x) => x.id), range(0, 40).filter((id) => id !== 25));
      await wh.expireSnapshots(t, { olderThanMicros: far });
      assert.equal(catalog.fileReplacements(t.id, first).length, 0);
      assert.equal(catalog.fileReplacements(t.id, second).length, 0, 'no live file was ever replaced');
      const all = catalog.fileReplacements(t.id, range(1, 100));
      assert.deepEqual(all, [], 'every replaced file is gone, and with it its chain');
      assert.deepEqual((await liveRows(wh, t)).map((x) => x.id), range(0, 40).filter((id) => id !== 25));
    } finally {
      catalog.close();
      await cleanup();
    }
  });

  test("the scheduler's rule and the planner agree: lone small files are not due, and a due table always has work", async () => {
    // Parquet files: a lone log-located file is always worth a minor (below).
    const { wh, dir, cleanup } = await tempWarehouse({ log: false });
    const catalog = new SqliteCatalog(join(dir, 'catalog.db'));
    try {
      const t = await wh.createTable({
        namespace: 'public', name: 'p', partitionBy: [{ sourceColumn: 'k', transform: { kind: 'identity' }, name: 'k' }],
        properties: { 'self-optimizing.minor.trigger.file-count': '2', 'self-optimizing.major.trigger.duplicate-ratio': '0.3' },
        columns: [{ name: 'k', type: { kind: 'int4' }, nullable: false }, { name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
      });
      const put = async (k: number, ids: number[]) => {
        const txn = await wh.begin();
        await txn.insert(t, 'main', [ids.map(() => k), ids, ids.map(() => null)]);
        await txn.commit();
      };
      const s = optimizingSettings(t);
      const due = () => dueOptimizingKind(appendOptimizingMetrics(catalog.visibleFiles(t.id, wh.resolveSnapshot(t)!.id), s), s, {}, 0n);
      for (let k = 0; k < 3; k++) await put(k, range(k * 10, 10));
      assert.equal(appendOptimizingMetrics(catalog.visibleFiles(t.id, wh.resolveSnapshot(t)!.id), s).smallFiles, 0);
      assert.equal(due(), undefined, 'three partitions with one small file each: nothing to combine');
      assert.equal((await wh.optimize(t, { kind: 'minor', triggers: s })).nodesOptimized, 0);
      await put(1, [100, 101]);
      assert.equal(due(), 'minor');
      assert.equal((await wh.optimize(t, { kind: 'minor', triggers: s })).filesIn, 2);
      assert.equal(due(), undefined);
      const txn = await wh.begin();
      await deleteWhere(wh, t, txn, (id) => id < 8);
      await txn.commit();
      const m = appendOptimizingMetrics(catalog.visibleFiles(t.id, wh.resolveSnapshot(t)!.id), s);
      assert.ok(Math.abs(m.duplicateRatio - 8 / 32) < 1e-9);
      assert.equal(due(), undefined, '8 of 32 rows deleted is under 0.3');
      const more = await wh.begin();
      await deleteWhere(wh, t, more, (id) => id === 8 || id === 9);
      await more.commit();
      assert.equal(due(), 'major');
      // Partition 0's file lost every row: it goes, and nothing replaces it.
      const r = await wh.optimize(t, { kind: 'major', triggers: s });
      assert.equal(r.filesIn, 1);
      assert.equal(r.rowsIn, 10);
      assert.equal(r.filesOut, 0);
      assert.equal(r.rowsOut, 0);
      assert.equal(due(), undefined);
      assert.deepEqual(wh.listFiles(t).map((f) => f.partitionValues[0]).sort(), [1, 2]);
    } finally {
      catalog.close();
      await cleanup();
    }
  });

  test('a UNIQUE value inserted concurrently is still found at commit after a compaction moved it', async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await wh.createTable({
        namespace: 'public', name: 'u', constraints: [{ kind: 'unique', name: 'u_id_key', columns: ['id'] }],
        columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
      });
      await insertIds(wh, t, [1, 2]);
      await insertIds(wh, t, [3, 4]);
      const mine = await wh.begin();
      await mine.insert(t, 'main', [[5, 6], ['mine', 'mine']]);
      // Its own update of a row keeps that row's value: not a violation of its own.
      await updateWhere(wh, t, mine, (id) => id === 2, 'mine too');
      await insertIds(wh, t, [5]);
      await insertIds(wh, t, [7]);
      assert.equal((await wh.optimize(t, { kind: 'minor' })).filesIn, 4);
      await assert.rejects(mine.commit(), (e: unknown) => isFloeError(e) && e.sqlstate === '23505');
      const other = await wh.begin();
      await updateWhere(wh, t, other, (id) => id === 2 || id === 3, 'other');
      await insertIds(wh, t, [8]);
      await wh.optimize(t, { kind: 'full' });
      await other.commit();
      assert.deepEqual(await liveRows(wh, t), [
        { id: 1, v: 'v1' }, { id: 2, v: 'other' }, { id: 3, v: 'other' }, { id: 4, v: 'v4' }, { id: 5, v: 'v5' }, { id: 7, v: 'v7' }, { id: 8, v: 'v8' },
      ]);
    } finally { await cleanup(); }
  });

  test('two optimizers on the same table: one commits, the other re-plans and finds the work done', async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await createAppendTable(wh, 'a');
      for (let i = 0; i < 6; i++) await insertIds(wh, t, range(i * 10, 10));
      const before = await liveRows(wh, t);
      // Both rewrite only once both have planned, so both planned the same files.
      let arrived = 0;
      let bothPlanned!: () => void;
      const barrier = new Promise<void>((resolve) => { bothPlanned = resolve; });
      const hook = hookWith(async () => undefined, () => { if (++arrived === 2) bothPlanned(); });
      const waiting: typeof hook = async (task) => { const r = hook(task); await barrier; return r; };
      const [a, b] = await Promise.all([wh.optimize(t, { kind: 'minor', runNodeRewrite: waiting }), wh.optimize(t, { kind: 'minor', runNodeRewrite: waiting })]);
      assert.deepEqual([a.filesIn, b.filesIn].sort(), [0, 6]);
      assert.equal(a.conflicts + b.conflicts, 1);
      assert.equal(wh.listFiles(t).length, 1);
      assert.deepEqual(await liveRows(wh, t), before);
    } finally { await cleanup(); }
  });

  test('a file compacted on two branches: an old row id maps to the output of its own branch', async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await createAppendTable(wh, 'a');
      for (let i = 0; i < 3; i++) await insertIds(wh, t, range(i * 10, 10));
      await wh.createBranch(t, 'b');
      const onB = await wh.begin();
      onB.markReadModifyWrite(t, 'b');
      const ids = (await readRows(wh, { table: t, txn: onB, at: { kind: 'ref', name: 'b' }, projection: ['id', ROW_ID_COLUMN] }))
        .filter((r) => r['id'] === 4 || r['id'] === 27).map((r) => r[ROW_ID_COLUMN] as bigint);
      await onB.deleteRows(t, 'b', ids);
      const onMain = await wh.begin();
      assert.equal(await deleteWhere(wh, t, onMain, (id) => id === 13), 1);
      // Different groupings on each branch: main also has a fourth file first.
      await insertIds(wh, t, [100]);
      const main1 = await wh.optimize(t, { kind: 'minor' });
      const b1 = await wh.optimize(t, { kind: 'minor', ref: 'b' });
      assert.deepEqual([main1.filesIn, b1.filesIn], [4, 3]);
      await onB.commit();
      await onMain.commit();
      const idsOn = async (ref: string) => (await readRows(wh, { table: t, at: { kind: 'ref', name: ref }, projection: ['id'] })).map((r) => r['id']).sort((x, y) => (x as number) - (y as number));
      assert.deepEqual(await idsOn('b'), range(0, 30).filter((id) => id !== 4 && id !== 27));
      assert.deepEqual(await idsOn('main'), [...range(0, 30).filter((id) => id !== 13), 100]);
    } finally { await cleanup(); }
  });

  test('a process killed mid-optimize leaves the table as it was; orphan cleanup removes what it wrote', async () => {
    const { wh, dir, cleanup } = await tempWarehouse({ staleTransactionMs: 300 });
    try {
      const t = await createAppendTable(wh, 'k');
      for (let i = 0; i < 5; i++) await insertIds(wh, t, range(i * 10, 10));
      const txn = await wh.begin();
      await deleteWhere(wh, t, txn, (id) => id % 4 === 0);
      await txn.commit();
      const rows = await liveRows(wh, t);
      const files = wh.listFiles(t);
      const onDisk = dataFiles(dir, t.id);
      const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./helpers/append-optimize-child.ts', import.meta.url)), dir, 'k'], { stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => { if (d.toString().includes('rewrote')) resolve(); });
        child.on('exit', (code) => reject(new Error(`child exited ${code} before rewriting`)));
      });
      child.kill('SIGKILL');
      await exited;
      assert.deepEqual(wh.listFiles(t), files);
      assert.deepEqual(await liveRows(wh, t), rows);
      assert.equal(dataFiles(dir, t.id).length, onDisk.length + 1, 'the killed rewrite left its output behind');
      // Once the dead optimizer's registration goes stale, its output is an orphan like any other.
      const far = BigInt(Date.now() + 3_600_000) * 1000n;
      for (const deadline = Date.now() + 20_000; dataFiles(dir, t.id).length > onDisk.length && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 100));
        await wh.expireSnapshots(t, { olderThanMicros: 0n }); // aborts stale registrations
        await wh.removeOrphanFiles(t, { olderThanMicros: far });
      }
      assert.deepEqual(dataFiles(dir, t.id), onDisk);
      const r = await wh.optimize(t, { kind: 'full' });
      assert.equal(r.filesIn, 5);
      assert.deepEqual(await liveRows(wh, t), rows);
    } finally { await cleanup(); }
  });
});

