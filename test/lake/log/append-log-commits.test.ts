/**
 * Append tables (no primary key) commit small transactions through the log store: their
 * base files are log locators, not Parquet files, and every reader and writer that meets
 * one reads it right (docs/design-notes.md, "Log store").
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLogPath, LOG_DIR, openWarehouse } from '../../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { appendOptimizingMetrics } from '../../../src/lake/optimize/append-optimizing-metrics.js';
import { dueOptimizingKind } from '../../../src/lake/optimize/optimizing-triggers.js';
import { optimizingSettings } from '../../../src/lake/table/optimizing-properties.js';
import { SqliteCatalog } from '../../../src/lake/catalog/sqlite/sqlite-catalog.js';
import { columnsOf, readRows } from '../helpers/read-table.js';
import { createAppendTable, deleteWhere, insertIds, liveRows, rowsWithIds, updateWhere } from '../helpers/append-table.js';

const range = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);
const MAX_LOGGED_BYTES = 4096;

async function logWarehouse(opts: { segmentBytes?: number } = {}): Promise<{ wh: Warehouse; dir: string; cleanup: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-applog-'));
  const wh = await openWarehouse({ path: dir, log: { maxTransactionBytes: MAX_LOGGED_BYTES, releaseGraceMs: 0, ...opts } });
  return { wh, dir, cleanup: async () => { await wh.close(); rmSync(dir, { recursive: true, force: true }); } };
}

/** Parquet files of the table on disk (the directory appears with the first one). */
function parquetFiles(dir: string, tableId: number): string[] {
  const at = join(dir, 'data', String(tableId));
  return existsSync(at) ? readdirSync(at).filter((f) => f.endsWith('.parquet')).sort() : [];
}

function segmentCount(dir: string): number {
  const logDir = join(dir, LOG_DIR);
  if (!existsSync(logDir)) return 0;
  return readdirSync(logDir).reduce((n, w) => n + readdirSync(join(logDir, w)).filter((f) => f.endsWith('.wal')).length, 0);
}

function logFiles(wh: Warehouse, t: TableMetadata): number {
  return wh.listFiles(t).filter((f) => isLogPath(f.path)).length;
}

const ids = async (wh: Warehouse, t: TableMetadata): Promise<number[]> => (await liveRows(wh, t)).map((r) => r.id);
const idsAt = async (wh: Warehouse, t: TableMetadata, id: bigint): Promise<number[]> =>
  (await readRows(wh, { table: t, at: { kind: 'snapshot', id }, projection: ['id'] })).map((r) => r['id'] as number).sort((a, b) => a - b);

describe('append tables commit through the log store', () => {
  test('small commits write no Parquet file and read back from the log; a large one writes Parquet', async () => {
    const { wh, dir, cleanup } = await logWarehouse();
    try {
      const t = await createAppendTable(wh, 'a');
      for (let i = 0; i < 20; i++) await insertIds(wh, t, range(i * 3, 3));
      assert.deepEqual(parquetFiles(dir, t.id), [], 'no Parquet file for 20 small commits');
      const files = wh.listFiles(t);
      assert.equal(files.length, 20);
      assert.ok(files.every((f) => f.store === 'base' && isLogPath(f.path) && f.rowCount === 3), 'each commit is one base file located in the log');
      assert.deepEqual(await ids(wh, t), range(0, 60));
      const snaps = wh.listSnapshots(t);
      assert.equal(snaps.filter((s) => s.operation === 'append').length, 20, 'every commit has its own snapshot');
      // Time travel to a snapshot whose rows are only in the log.
      const fifth = snaps.filter((s) => s.operation === 'append')[4]!;
      assert.deepEqual(await idsAt(wh, t, fifth.id), range(0, 15));
      // Row ids of a log-located file are its row positions, as in a Parquet file.
      const first = files.find((f) => f.addedIn === snaps.find((s) => s.operation === 'append')!.id)!;
      const withIds = (await rowsWithIds(wh, t)).filter((r) => r._row_id >> 32n === BigInt(first.fileId)).sort((a, b) => Number(a._row_id - b._row_id));
      assert.deepEqual(withIds.map((r) => [r['id'], Number(r._row_id & 0xffffffffn)]), [[0, 0], [1, 1], [2, 2]]);

      // Past the log's limit: Parquet, committed straight to the catalog.
      const big = range(1000, 100);
      const txn = await wh.begin();
      await txn.insert(t, 'main', columnsOf(t, big.map((id) => ({ id, v: `padded-${id}-${'x'.repeat(60)}` }))));
      await txn.commit();
      assert.equal(parquetFiles(dir, t.id).length, 1);
      assert.equal(logFiles(wh, t), 20);
      assert.deepEqual(await ids(wh, t), [...range(0, 60), ...big]);
    } finally { await cleanup(); }
  });

  test('DELETE, UPDATE and TRUNCATE on rows still in the log; time travel and table_changes see each step', async () => {
    const { wh, dir, cleanup } = await logWarehouse();
    try {
      const t = await createAppendTable(wh, 'a');
      for (let i = 0; i < 5; i++) await insertIds(wh, t, range(i * 10, 10));
      const beforeDelete = wh.resolveSnapshot(t)!.id;
      let txn = await wh.begin();
      assert.equal(await deleteWhere(wh, t, txn, (id) => id % 3 === 0), 17);
      await txn.commit();
      const afterDelete = wh.resolveSnapshot(t)!.id;
      txn = await wh.begin();
      assert.equal(await updateWhere(wh, t, txn, (id) => id % 5 === 1, 'new'), 7);
      await txn.commit();
      assert.deepEqual(parquetFiles(dir, t.id), [], 'deletion vectors and the updated rows stay out of Parquet');
      const want = range(0, 50).filter((id) => id % 3 !== 0).map((id) => ({ id, v: id % 5 === 1 ? 'new' : `v${id}` }));
      assert.deepEqual(await liveRows(wh, t), want);
      assert.ok(wh.listFiles(t).some((f) => f.deletedRows > 0 && isLogPath(f.path)), 'a deletion vector targets a log-located file');
      assert.deepEqual(await idsAt(wh, t, beforeDelete), range(0, 50));
      const changes = await wh.readChanges(t, beforeDelete, afterDelete);
      const deleted = changes.flatMap((c) => Array.from({ length: c.batch.numRows }, (_, i) => [c.batch.getChild('_change_type')!.get(i), c.batch.getChild('id')!.get(i)]));
      assert.deepEqual(deleted.map(([op]) => op), new Array(17).fill('-D'));
      assert.deepEqual(deleted.map(([, id]) => id as number).sort((a, b) => a - b), range(0, 50).filter((id) => id % 3 === 0));

      // Rows staged in memory and deleted by the same transaction (its read stores them first).
      txn = await wh.begin();
      await txn.insert(t, 'main', columnsOf(t, [{ id: 500, v: 'a' }, { id: 501, v: 'b' }]));
      assert.equal(await deleteWhere(wh, t, txn, (id) => id === 500 || id === 1), 2);
      await txn.commit();
      assert.deepEqual(await ids(wh, t), [...want.map((r) => r.id).filter((id) => id !== 1), 501]);

      // TRUNCATE deletes every row by row id.
      txn = await wh.begin();
      await deleteWhere(wh, t, txn, () => true);
      await txn.commit();
      assert.deepEqual(await liveRows(wh, t), []);
      assert.deepEqual(await idsAt(wh, t, afterDelete), range(0, 50).filter((id) => id % 3 !== 0));
    } finally { await cleanup(); }
  });

  test('minor rewrites log-located files into Parquet, a lone one too; expiry then frees their segments', async () => {
    const { wh, dir, cleanup } = await logWarehouse({ segmentBytes: 4096 });
    const catalog = new SqliteCatalog(join(dir, 'catalog.db'));
    try {
      const t = await createAppendTable(wh, 'a', { 'self-optimizing.minor.trigger.file-count': '12' });
      for (let i = 0; i < 11; i++) await insertIds(wh, t, range(i * 10, 10));
      const triggers = optimizingSettings(t);
      const metrics = () => appendOptimizingMetrics(catalog.visibleFiles(t.id, wh.resolveSnapshot(t)!.id), triggers);
      assert.equal(metrics().smallFiles, 11, 'every log-located file is a small file');
      assert.equal((await wh.optimize(t, { kind: 'minor', triggers })).nodesOptimized, 0, 'under the trigger: nothing yet');
      await insertIds(wh, t, range(110, 10));
      const r = await wh.optimize(t, { kind: 'minor', triggers });
      assert.deepEqual([r.filesIn, r.filesOut, r.rowsOut], [12, 1, 120]);
      assert.equal(logFiles(wh, t), 0);
      assert.equal(parquetFiles(dir, t.id).length, 1, 'a stream of 12 commits ends in one Parquet file');
      const order = (await rowsWithIds(wh, t)).sort((a, b) => Number(a._row_id - b._row_id)).map((x) => x['id']);
      assert.deepEqual(order, range(0, 120), 'rows keep their arrival order');
      assert.equal(metrics().smallFiles, 0, 'a lone small Parquet file has nothing to combine with');

      // A lone log-located file is rewritten into Parquet even where nothing is small.
      const u = await createAppendTable(wh, 'u', { 'self-optimizing.target-size': '64' });
      await insertIds(wh, u, range(0, 5));
      const lone = await wh.optimize(u, { kind: 'minor' });
      assert.deepEqual([lone.filesIn, lone.filesOut], [1, 1]);
      assert.equal(logFiles(wh, u), 0);
      assert.deepEqual(await ids(wh, u), range(0, 5));
      assert.equal((await wh.optimize(u, { kind: 'minor' })).nodesOptimized, 0, 'then nothing is left to do');

      // The removed log files stay readable through older snapshots until expiry drops their rows.
      const segments = segmentCount(dir);
      assert.ok(segments > 1);
      assert.equal(await wh.releaseLogSegments(), 0, 'older snapshots still read every segment');
      const old = wh.listSnapshots(t).find((s) => s.operation === 'append')!;
      assert.deepEqual(await idsAt(wh, t, old.id), range(0, 10));
      const far = BigInt(Date.now() + 3_600_000) * 1000n;
      await wh.expireSnapshots(t, { olderThanMicros: far });
      await wh.expireSnapshots(u, { olderThanMicros: far });
      assert.ok(await wh.releaseLogSegments() > 0, 'segments no file row points into are released');
      assert.ok(segmentCount(dir) < segments);
      assert.deepEqual(await ids(wh, t), range(0, 120));
      assert.deepEqual(await ids(wh, u), range(0, 5));
    } finally {
      catalog.close();
      await cleanup();
    }
  });

  test('a few log-located files are due for minor once the oldest waited past the minor interval', async () => {
    const { wh, dir, cleanup } = await logWarehouse();
    const catalog = new SqliteCatalog(join(dir, 'catalog.db'));
    try {
      const t = await createAppendTable(wh, 'a', { 'self-optimizing.minor.trigger.interval': '1s' });
      await insertIds(wh, t, range(0, 5));
      await insertIds(wh, t, range(5, 5));
      const s = optimizingSettings(t);
      const files = () => catalog.visibleFiles(t.id, wh.resolveSnapshot(t)!.id);
      const committed = wh.listSnapshots(t).find((x) => x.operation === 'append')!.committedAtMicros;
      const commitMicros = (id: bigint) => catalog.getSnapshot(t.id, id)?.committedAtMicros;
      const due = (now: bigint) => dueOptimizingKind(appendOptimizingMetrics(files(), s, commitMicros), s, {}, now);
      assert.equal(appendOptimizingMetrics(files(), s, commitMicros).oldestPendingChangeMicros, committed, 'the oldest log file\'s commit');
      assert.equal(due(committed + 999_000n), undefined, '2 of 12 small files, and the oldest waited under a second');
      assert.equal(due(committed + 1_000_000n), 'minor');
      assert.equal((await wh.optimize(t, { kind: 'minor', triggers: s })).nodesOptimized, 0, 'not due yet: the planner agrees');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const r = await wh.optimize(t, { kind: 'minor', triggers: s });
      assert.deepEqual([r.filesIn, r.filesOut], [2, 1]);
      assert.equal(logFiles(wh, t), 0);
      assert.equal(appendOptimizingMetrics(files(), s, commitMicros).oldestPendingChangeMicros, undefined);
      assert.equal(due(BigInt(Date.now() + 3_600_000) * 1000n), undefined, 'nothing waits in the log any more');
      assert.deepEqual(await ids(wh, t), range(0, 10));
    } finally {
      catalog.close();
      await cleanup();
    }
  });

  test('expiry and orphan cleanup keep live log-located files readable, and never delete the log', async () => {
    const { wh, dir, cleanup } = await logWarehouse({ segmentBytes: 4096 });
    try {
      const t = await createAppendTable(wh, 'a');
      for (let i = 0; i < 15; i++) await insertIds(wh, t, range(i * 10, 10));
      const txn = await wh.begin();
      await deleteWhere(wh, t, txn, (id) => id % 2 === 0);
      await txn.commit();
      const segments = segmentCount(dir);
      const far = BigInt(Date.now() + 3_600_000) * 1000n;
      const expired = await wh.expireSnapshots(t, { olderThanMicros: far });
      assert.ok(expired.expiredSnapshots > 0);
      assert.equal(expired.deletedFiles, 0, 'no data file left the head');
      await wh.removeOrphanFiles(t, { olderThanMicros: far });
      assert.equal(await wh.releaseLogSegments(), 0, 'every segment still holds a live file');
      assert.equal(segmentCount(dir), segments);
      assert.equal(logFiles(wh, t), 15);
      assert.deepEqual(await ids(wh, t), range(0, 150).filter((id) => id % 2 !== 0));
    } finally { await cleanup(); }
  });
});
