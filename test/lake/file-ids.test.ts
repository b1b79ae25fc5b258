import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteCatalog } from '../../src/lake/catalog/sqlite/sqlite-catalog.js';
import { OptimizerConflict } from '../../src/lake/catalog/optimizer-conflict.js';
import type { NewFileRecord } from '../../src/lake/catalog/catalog.js';

/*
 * A file id names one file forever. Tiering's in-place swap deletes the swapped rows, and
 * SQLite's rowid handed the largest deleted id to the next file: an optimize planned on a
 * log file then found "its" file still visible, committed, and removed the tiered file that
 * had taken the id, with rows it never read (the model test's background run lost a
 * committed row this way).
 */

const TABLE_DEF = {
  namespace: 'public', columns: [{ fieldId: 1, name: 'k', type: { kind: 'int4' }, nullable: false }],
  primaryKey: ['k'], partitionBy: [], properties: {}, nextFieldId: 2,
} as never;

function newFile(path: string, seq: number, snapshots?: bigint[]): NewFileRecord {
  return {
    store: 'change', path, partitionKey: '', partitionValues: [], nodeMask: 0, nodeIndex: 0, rowCount: 1, sizeBytes: 10,
    seq: BigInt(seq), firstOffset: 0, stats: {}, dvTarget: undefined, dvPositions: undefined, rowGroups: undefined, keyBitmap: undefined,
    ...(snapshots === undefined ? {} : { snapshots }),
  };
}

function withCatalog(fn: (path: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'floe-file-ids-'));
  try { fn(join(dir, 'catalog.db')); } finally { rmSync(dir, { recursive: true, force: true }); }
}

function appendOne(c: SqliteCatalog, table: number, path: string, seq: number, at: bigint): { fileId: number; snapshot: bigint } {
  const [s] = c.commit([{ tableId: table, branch: 'main', operation: 'write', summary: {}, schemaId: 0, addFiles: [newFile(path, seq)], removeFileIds: [] }], undefined, at);
  const f = c.visibleFiles(table, s!.id).find((x) => x.path === path)!;
  return { fileId: f.fileId, snapshot: s!.id };
}

test('a tiering swap of the newest files gives its file a new id, and a fold planned on the old ones is refused', () => {
  withCatalog((path) => {
    const c = new SqliteCatalog(path);
    const t = c.createTable({ ...(TABLE_DEF as object), name: 't' } as never, 1n, false).table.id;
    const a = appendOne(c, t, 'log/a', 1, 2n);
    const b = appendOne(c, t, 'log/b', 2, 3n);
    const tiered = c.replaceFilesInPlace(t, [a.fileId, b.fileId], newFile('data/tiered', 2, [a.snapshot, b.snapshot]), a.snapshot);
    assert.ok(tiered !== undefined, 'the swap is taken');
    assert.ok(tiered.fileId > b.fileId, `the tiered file's id ${tiered.fileId} is new (inputs ${a.fileId}, ${b.fileId})`);
    // The optimizer read only `a` before the swap: its fold must not land.
    assert.throws(() => c.commit([{
      tableId: t, branch: 'main', operation: 'optimize', summary: {}, schemaId: 0,
      addFiles: [{ ...newFile('data/base', 1), store: 'base' }], removeFileIds: [a.fileId], requireVisible: [a.fileId],
    }], undefined, 4n), OptimizerConflict);
    const head = c.getRef(t, 'main')!.snapshotId;
    assert.deepEqual(c.visibleFiles(t, head).map((f) => f.path), ['data/tiered']);
    c.close();
  });
});

test('ids deleted by expiry are not handed out again, across a reopen', () => {
  withCatalog((path) => {
    let c = new SqliteCatalog(path);
    const t = c.createTable({ ...(TABLE_DEF as object), name: 't' } as never, 1n, false).table.id;
    appendOne(c, t, 'a', 1, 2n);
    const b = appendOne(c, t, 'b', 2, 3n);
    // Roll main back past b and expire b's snapshot: its file row is deleted.
    const parent = c.getSnapshot(t, b.snapshot)!.parentId!;
    c.putRef({ ...c.getRef(t, 'main')!, snapshotId: parent }, {});
    c.expire(t, [b.snapshot], [b.fileId]);
    assert.equal(c.allFiles(t).some((f) => f.fileId === b.fileId), false, 'b is gone');
    c.close();
    c = new SqliteCatalog(path);
    const next = appendOne(c, t, 'c', 3, 4n);
    assert.ok(next.fileId > b.fileId, `id ${next.fileId} after ${b.fileId}`);
    c.close();
  });
});

test('a catalog written before the file-id counter starts past every id its rows name', () => {
  withCatalog((path) => {
    let c = new SqliteCatalog(path);
    const t = c.createTable({ ...(TABLE_DEF as object), name: 't' } as never, 1n, false).table.id;
    const a = appendOne(c, t, 'a', 1, 2n);
    c.close();
    // As an old catalog: no counter, and a removal naming an id above every file row.
    const db = new Database(path);
    db.prepare(`DELETE FROM meta WHERE key = 'next_file_id'`).run();
    db.prepare('INSERT INTO file_removals VALUES (?, ?, ?)').run(a.fileId + 40, a.snapshot, t);
    db.close();
    c = new SqliteCatalog(path);
    const next = appendOne(c, t, 'b', 2, 3n);
    assert.equal(next.fileId, a.fileId + 41);
    c.close();
  });
});

test('a file row added by an older build (a rowid, no counter) does not make the next insert collide', () => {
  withCatalog((path) => {
    const c = new SqliteCatalog(path);
    const t = c.createTable({ ...(TABLE_DEF as object), name: 't' } as never, 1n, false).table.id;
    const a = appendOne(c, t, 'a', 1, 2n);
    // What an older process does on the same catalog: insert without an id, leaving the counter behind.
    const db = new Database(path);
    db.prepare(`INSERT INTO files (table_id, store, path, partition_key, partition_values, node_mask, node_index, row_count,
      size_bytes, seq, first_offset, stats, added_in) VALUES (?, 'change', 'old', '', '[]', 0, 0, 1, 10, 1, 0, '{}', ?)`).run(t, a.snapshot);
    const oldId = Number((db.prepare(`SELECT file_id FROM files WHERE path = 'old'`).get() as { file_id: number }).file_id);
    db.close();
    const next = appendOne(c, t, 'b', 2, 3n);
    assert.ok(next.fileId > oldId, `id ${next.fileId} after the older build's ${oldId}`);
    c.close();
  });
});
