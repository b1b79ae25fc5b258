import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { LocalStorage } from '../../../src/lake/storage/local-storage.js';
import type { Storage } from '../../../src/lake/storage/storage.js';
import { createAppendTable, insertIds, rowsWithIds } from '../helpers/append-table.js';
import { deleteRows, kvTable, upsertRows } from '../helpers/keyed-table.js';
import { tempWarehouse } from '../helpers/read-table.js';
import type { Json, ManifestEntry } from './read-iceberg.js';
import { readNewestMetadata, snapshotFiles } from './read-iceberg.js';
import { duckRows, exported, floeRowsAt, icebergRows, localKeyOf, namesOf } from './iceberg-rows.js';


describe('Iceberg v2 metadata of the base store', () => {
  test('keyed table: optimize exports vN whose files DuckDB reads as Floe does; a second optimize makes vN+1', async () => {
    const { wh, dir, cleanup } = await tempWarehouse();
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const storage = new LocalStorage(dir);
      const keyOf = localKeyOf(dir);
      const t = await kvTable(wh, 'kv');
      await upsertRows(wh, t, Array.from({ length: 50 }, (_, i) => ({ id: i, v: `a${i}` })));
      await upsertRows(wh, t, [{ id: 3, v: 'b3' }, { id: 60, v: 'b60' }]);
      await wh.optimize(t, { kind: 'full' });
      const r1 = await wh.exportIcebergMetadata(t);
      assert.equal(r1.kind, 'written');
      const v1 = await exported(t, storage, keyOf);
      assert.equal(v1.json['current-snapshot-id'], Number(wh.resolveSnapshot(t)!.id));
      assert.ok(v1.entries.length > 0 && v1.entries.every((e) => e.status === 1), 'every file of the first snapshot is ADDED');
      const floe1 = await floeRowsAt(wh, t, v1.current, namesOf(v1.json));
      assert.equal(floe1.length, 51);
      assert.deepEqual(await duckRows(duck, v1.json, v1.paths), floe1);

      assert.equal((await wh.exportIcebergMetadata(t)).kind, 'unchanged', 'nothing moved: no new version');
      await upsertRows(wh, t, [{ id: 1, v: 'pending' }, { id: 100, v: 'pending' }]);

      await deleteRows(wh, t, [5, 6]);
      await wh.optimize(t, { kind: 'full' });
      assert.equal((await wh.exportIcebergMetadata(t)).kind, 'written');
      const v2 = await exported(t, storage, keyOf);
      assert.ok(!(await duckRows(duck, v2.json, v2.paths)).some((r) => r['id'] === 5 || r['id'] === 6), 'deleted keys are gone');
      assert.equal(v2.version, v1.version + 1);
      assert.notEqual(v2.current, v1.current);
      assert.equal(v2.json['snapshots'].find((s: Json) => s['snapshot-id'] === v2.current)['parent-snapshot-id'], v1.current);
      assert.ok(v2.entries.every((e) => e.dataFile['content'] === 0), 'a full optimize leaves no change store to show');
      assert.equal(v2.json['table-uuid'], v1.json['table-uuid'], 'table-uuid is stable');
      assert.ok(v2.json['metadata-log'].some((m: Json) => (m['metadata-file'] as string).endsWith(`/v${v1.version}.metadata.json`)));
      assert.deepEqual(await duckRows(duck, v2.json, v2.paths), await floeRowsAt(wh, t, v2.current, namesOf(v2.json)));
      assert.ok((await duckRows(duck, v2.json, v2.paths)).some((r) => r['id'] === 100 && r['v'] === 'pending'));
      // The old snapshot, read through the new version, still lists the old files.
      const old = await snapshotFiles(storage, keyOf, v2.json, v1.current);
      assert.deepEqual(old.map((e) => e.dataFile['file_path']).sort(), v1.entries.map((e) => e.dataFile['file_path']).sort());
      assert.deepEqual(await duckRows(duck, v2.json, old.map((e) => fileURLToPath(e.dataFile['file_path'] as string))), floe1);

      // A rollback to the exported head makes that snapshot current again, without a second one of its id.
      await wh.rollbackToSnapshot(t, BigInt(v1.current));
      assert.equal((await wh.exportIcebergMetadata(t)).kind, 'written');
      const v3 = await exported(t, storage, keyOf);
      assert.equal(v3.current, v1.current);
      const ids = (v3.json['snapshots'] as Json[]).map((s) => s['snapshot-id']);
      assert.equal(new Set(ids).size, ids.length);
      assert.deepEqual(await duckRows(duck, v3.json, v3.paths), floe1);
    } finally {
      duck.closeSync();
      await cleanup();
    }
  });

  test('append table without the log store: each insert is a snapshot; files kept from before are EXISTING with their sequence numbers', async () => {
    const { wh, dir, cleanup } = await tempWarehouse({ log: false });
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const storage = new LocalStorage(dir);
      const keyOf = localKeyOf(dir);
      const t = await createAppendTable(wh, 'events');
      await insertIds(wh, t, [1, 2, 3]);
      assert.equal((await wh.exportIcebergMetadata(t)).kind, 'written');
      const v1 = await exported(t, storage, keyOf);
      assert.deepEqual(await duckRows(duck, v1.json, v1.paths), await floeRowsAt(wh, t, v1.current, namesOf(v1.json)));
      await insertIds(wh, t, [4, 5]);
      assert.equal((await wh.exportIcebergMetadata(t)).kind, 'written');
      const v2 = await exported(t, storage, keyOf);
      assert.equal(v2.entries.length, v1.entries.length + 1);
      const kept = v2.entries.filter((e: ManifestEntry) => e.status === 0);
      assert.equal(kept.length, v1.entries.length);
      for (const e of kept) {
        assert.equal(e.snapshotId, v1.current);
        assert.equal(e.sequenceNumber, v1.json['last-sequence-number']);
      }
      assert.equal(v2.json['snapshots'].find((s: Json) => s['snapshot-id'] === v2.current).summary.operation, 'append');
      const rows = await duckRows(duck, v2.json, v2.paths);
      assert.deepEqual(rows.map((r) => r['id']), [1, 2, 3, 4, 5]);
      assert.deepEqual(rows, await floeRowsAt(wh, t, v2.current, namesOf(v2.json)));
      assert.deepEqual((await snapshotFiles(storage, keyOf, v2.json, v1.current)).map((e) => e.dataFile['file_path']), v1.entries.map((e) => e.dataFile['file_path']));
      // Compaction replaces the files: an overwrite whose rows are the same.
      await wh.optimize(t, { kind: 'full' });
      assert.equal((await wh.exportIcebergMetadata(t)).kind, 'written');
      const v3 = await exported(t, storage, keyOf);
      assert.deepEqual(await duckRows(duck, v3.json, v3.paths), rows);
    } finally {
      duck.closeSync();
      await cleanup();
    }
  });

  test('append table with the log store: rows still in the log are not exported; the minor that moves them into Parquet is', async () => {
    const { wh, dir, cleanup } = await tempWarehouse();
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const storage = new LocalStorage(dir);
      const t = await createAppendTable(wh, 'logged');
      await insertIds(wh, t, [1, 2]);
      assert.ok(wh.listFiles(t).some((f) => f.path.startsWith('log/')), 'the insert went through the log store');
      const r = await wh.exportIcebergMetadata(t);
      assert.deepEqual(r, { kind: 'skipped', reason: 'base rows are still in the log store (not Parquet yet)' });
      assert.deepEqual(await storage.list(`iceberg/${t.id}/`), [], 'nothing written');
      await wh.optimize(t, { kind: 'minor' });
      assert.equal((await wh.exportIcebergMetadata(t)).kind, 'written');
      const v1 = await exported(t, storage, localKeyOf(dir));
      assert.deepEqual((await duckRows(duck, v1.json, v1.paths)).map((x) => x['id']), [1, 2]);
    } finally {
      duck.closeSync();
      await cleanup();
    }
  });

  test('deletion vectors are not expressible yet: the newest version stays, and says nothing false', async () => {
    const { wh, dir, cleanup } = await tempWarehouse({ log: false });
    try {
      const storage = new LocalStorage(dir);
      const t = await createAppendTable(wh, 'dv');
      await insertIds(wh, t, [1, 2, 3]);
      assert.equal((await wh.exportIcebergMetadata(t)).kind, 'written');
      const [first] = await rowsWithIds(wh, t);
      const txn = await wh.begin();
      await txn.deleteRows(t, 'main', [first!._row_id]);
      await txn.commit();
      const r = await wh.exportIcebergMetadata(t);
      assert.equal(r.kind, 'skipped');
      assert.match((r as { reason: string }).reason, /deletion vectors/);
      assert.equal((await readNewestMetadata(storage, t.id)).version, 1);
    } finally {
      await cleanup();
    }
  });

  test('cleanup: files a crashed export left are removed by the next; snapshots Floe expired leave the metadata with their files', async () => {
    const { wh, dir, cleanup } = await tempWarehouse({ log: false });
    try {
      const storage = new LocalStorage(dir);
      const prefix = (id: number) => `iceberg/${id}/metadata/`;
      const t = await createAppendTable(wh, 'clean');
      await insertIds(wh, t, [1]);
      await wh.exportIcebergMetadata(t);
      // What an export killed after its manifest and list, before its vN, leaves behind.
      // 'crashed' cannot occur in the hex of the uuids the exporter names its files with.
      await storage.put(`${prefix(t.id)}snap-999-crashed-m0.avro`, Uint8Array.of(1));
      await storage.put(`${prefix(t.id)}snap-999-crashed.avro`, Uint8Array.of(1));
      await insertIds(wh, t, [2]);
      await wh.exportIcebergMetadata(t);
      const names = async () => (await storage.list(prefix(t.id))).map((o) => o.key.slice(prefix(t.id).length)).sort();
      // Young, they may be another exporter's about to be named: kept.
      assert.equal((await names()).filter((n) => n.includes('crashed')).length, 2, 'unnamed files within the grace period stay');
      const longAgo = new Date(Date.now() - 11 * 60_000);
      for (const f of ['snap-999-crashed-m0.avro', 'snap-999-crashed.avro']) utimesSync(join(dir, prefix(t.id), f), longAgo, longAgo);
      await insertIds(wh, t, [4]);
      await wh.exportIcebergMetadata(t);
      assert.ok(!(await names()).some((n) => n.includes('crashed')), 'the crashed export\'s files are gone once old');
      const before = await readNewestMetadata(storage, t.id);
      assert.equal(before.json['snapshots'].length, 3);

      await wh.expireSnapshots(t, { olderThanMicros: BigInt(Date.now() + 1000) * 1000n, retainLast: 1 });
      await insertIds(wh, t, [3]);
      await wh.exportIcebergMetadata(t);
      const after = await readNewestMetadata(storage, t.id);
      const live = new Set(wh.listSnapshots(t).map((s) => Number(s.id)));
      const listed = (after.json['snapshots'] as Json[]).map((s) => s['snapshot-id'] as number);
      assert.ok(listed.every((id) => live.has(id)), 'only snapshots Floe keeps are listed');
      assert.ok(listed.length < 3);
      assert.deepEqual((after.json['snapshot-log'] as Json[]).map((e) => e['snapshot-id']).filter((id) => !listed.includes(id)), []);
      const lists = (await names()).filter((n) => n.endsWith('.avro') && !n.includes('-m'));
      assert.equal(lists.length, listed.length, 'one manifest list per listed snapshot, the others deleted');
      const v = await duckCheckable(after.json, storage, dir);
      assert.deepEqual(v, [1, 2, 3, 4]);
      await wh.dropTable('public', 'clean');
      assert.deepEqual(await storage.list(`iceberg/${t.id}/`), [], 'DROP TABLE deletes the metadata with the data');
    } finally {
      await cleanup();
    }
  });
});

async function duckCheckable(json: Json, storage: Storage, dir: string): Promise<number[]> {
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    const entries = await snapshotFiles(storage, localKeyOf(dir), json, json['current-snapshot-id']);
    return (await duckRows(duck, json, entries.map((e) => fileURLToPath(e.dataFile['file_path'] as string)))).map((r) => r['id'] as number);
  } finally { duck.closeSync(); }
}
