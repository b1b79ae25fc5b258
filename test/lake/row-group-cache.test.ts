import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tableFromArrays } from 'apache-arrow';
import type { RecordBatch } from 'apache-arrow';
import { executeScanTask } from '../../src/lake/index.js';
import type { ScanTask, TableMetadata, Warehouse } from '../../src/lake/index.js';
import { batchBytes, createRowGroupCache, sharedRowGroupCache } from '../../src/lake/scan/row-group-cache.js';
import { ROW_ID_COLUMN } from '../../src/lake/index.js';
import { createAppendTable, deleteWhere, insertIds } from './helpers/append-table.js';
import { changeTexts } from './helpers/changelog-rows.js';
import { kvTable, upsertRows } from './helpers/keyed-table.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

const batchOf = (n: number, seed: number): RecordBatch => tableFromArrays({ v: Float64Array.from({ length: n }, (_, i) => i + seed) }).batches[0]!;

test('the row-group cache never holds more bytes than its bound, evicts the least recently used, and refuses an entry larger than the bound', () => {
  const one = batchBytes(batchOf(1000, 0));
  assert.equal(one, 8000);
  const cache = createRowGroupCache(3 * one + 10);
  for (let i = 0; i < 3; i++) cache.put(`k${i}`, [batchOf(1000, i)]);
  assert.equal(cache.stats().bytes, 3 * one);
  assert.ok(cache.get('k0'), 'k0 is kept, and now the most recently used');
  cache.put('k3', [batchOf(1000, 3)]);
  assert.equal(cache.get('k1'), undefined, 'k1, least recently used, was evicted');
  assert.ok(cache.get('k0') && cache.get('k2') && cache.get('k3'));
  for (let i = 4; i < 50; i++) {
    cache.put(`k${i}`, [batchOf(1000 + i, i)]);
    assert.ok(cache.stats().bytes <= cache.stats().maxBytes, `bound holds after put ${i}`);
  }
  cache.put('huge', [batchOf(10_000, 0)]);
  assert.equal(cache.get('huge'), undefined);
  assert.ok(cache.stats().evictions > 0);
});

/** A point read as the executor runs one: the planned tasks marked for the row-group cache, in this thread. */
async function pointRead(wh: Warehouse, t: TableMetadata, id: number): Promise<Record<string, unknown>[]> {
  const table = wh.getTableById(t.id)!;
  const plan = await wh.planScan({ table, filters: [{ column: 'id', op: '=', value: id }] });
  const rows: Record<string, unknown>[] = [];
  for (const task of plan.tasks) {
    for await (const b of executeScanTask({ ...task, cacheRowGroups: true } satisfies ScanTask)) {
      for (let i = 0; i < b.numRows; i++) {
        const row: Record<string, unknown> = {};
        for (const f of b.schema.fields) row[f.name] = b.getChild(f.name)!.get(i);
        rows.push(row);
      }
    }
  }
  return rows;
}

test('point reads through the row-group cache stay right after a commit, an optimize and a schema change', async () => {
  const { wh, cleanup } = await tempWarehouse();
  const cache = sharedRowGroupCache();
  try {
    let t = await wh.createTable({
      namespace: 'public', name: 'rgc', primaryKey: ['id'],
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'name', type: { kind: 'text' }, nullable: true }],
    });
    const write = async (rows: { id: number; name: string | null; extra?: number | null }[]) => {
      const tx = await wh.begin();
      await tx.upsert(t, 'main', columnsOf(t, rows));
      await tx.commit();
    };
    await write(Array.from({ length: 500 }, (_, id) => ({ id, name: `n${id}` })));
    await wh.optimize(t);
    const hits = () => cache.stats().hits;
    assert.deepEqual(await pointRead(wh, t, 7), [{ id: 7, name: 'n7' }]);
    const before = hits();
    assert.deepEqual(await pointRead(wh, t, 7), [{ id: 7, name: 'n7' }]);
    assert.ok(hits() > before, 'the second read of the row group came from the cache');

    await write([{ id: 7, name: 'changed' }]);
    assert.deepEqual(await pointRead(wh, t, 7), [{ id: 7, name: 'changed' }], 'a commit after the cached decode');
    await wh.optimize(t);
    assert.deepEqual(await pointRead(wh, t, 7), [{ id: 7, name: 'changed' }], 'after optimize (a new base file)');
    assert.deepEqual(await pointRead(wh, t, 8), [{ id: 8, name: 'n8' }]);

    t = await wh.alterTable('public', 'rgc', { kind: 'addColumn', column: { name: 'extra', type: { kind: 'int4' }, nullable: true } });
    assert.deepEqual(await pointRead(wh, t, 8), [{ id: 8, name: 'n8', extra: null }], 'a new column reads as NULL from the cached file');
    await write([{ id: 8, name: 'n8', extra: 42 }]);
    assert.deepEqual(await pointRead(wh, t, 8), [{ id: 8, name: 'n8', extra: 42 }]);
    t = await wh.alterTable('public', 'rgc', { kind: 'dropColumn', name: 'name' });
    assert.deepEqual(await pointRead(wh, t, 8), [{ id: 8, extra: 42 }], 'a dropped column is gone');
    await wh.optimize(t);
    assert.deepEqual(await pointRead(wh, t, 8), [{ id: 8, extra: 42 }]);
    assert.deepEqual(await pointRead(wh, t, 9), [{ id: 9, extra: null }]);
    assert.deepEqual(await pointRead(wh, t, 5000), []);
  } finally { await cleanup(); }
});

test('repeated point reads look their key up in a cached row group: every key of a composite-key table, and absent keys', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'ck', primaryKey: ['a', 'b'],
      columns: [
        { name: 'a', type: { kind: 'int8' }, nullable: false }, { name: 'b', type: { kind: 'text' }, nullable: false },
        { name: 'v', type: { kind: 'int4' }, nullable: true },
      ],
    });
    const rows = Array.from({ length: 3000 }, (_, i) => ({ a: BigInt(i % 37), b: `k${i}`, v: i }));
    const tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, rows));
    await tx.commit();
    await wh.optimize(t);
    const read = async (a: bigint, b: string): Promise<unknown[]> => {
      const plan = await wh.planScan({ table: wh.getTableById(t.id)!, filters: [{ column: 'a', op: '=', value: a }, { column: 'b', op: '=', value: b }] });
      const out: unknown[] = [];
      for (const task of plan.tasks) {
        for await (const batch of executeScanTask({ ...task, cacheRowGroups: true })) {
          for (let i = 0; i < batch.numRows; i++) out.push(batch.getChild('v')!.get(i));
        }
      }
      return out;
    };
    // The first read of a cached row group filters it; the second builds its key index; later ones look up.
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < rows.length; i += 7) assert.deepEqual(await read(BigInt(i % 37), `k${i}`), [i], `round ${round}, key ${i}`);
      assert.deepEqual(await read(1n, 'k0'), [], 'a key that is not there');
    }
  } finally { await cleanup(); }
});

test('a small table read whole through the row-group cache: the rows of a plain scan, merged, filtered, with deleted rows and row ids', async () => {
  const { wh, cleanup } = await tempWarehouse();
  const cache = sharedRowGroupCache();
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'small', primaryKey: ['id'],
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'name', type: { kind: 'text' }, nullable: true }],
    });
    const tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, Array.from({ length: 300 }, (_, id) => ({ id, name: `n${id}` }))));
    await tx.commit();
    await wh.optimize(t);
    const both = async (req: Omit<Parameters<typeof readRows>[1], 'table'>) => {
      const table = wh.getTableById(t.id)!;
      const plain = await readRows(wh, { table, ...req });
      const hits = cache.stats().hits;
      assert.deepEqual(await readRows(wh, { table, ...req }, { cacheRowGroups: true }), plain);
      assert.deepEqual(await readRows(wh, { table, ...req }, { cacheRowGroups: true }), plain);
      assert.ok(cache.stats().hits > hits, 'a read came from the cache');
      return plain;
    };
    assert.equal((await both({})).length, 300);
    assert.deepEqual(await both({ filters: [{ column: 'id', op: '<', value: 3 }] }), [0, 1, 2].map((id) => ({ id, name: `n${id}` })));
    // Changes merged over the cached base.
    const change = await wh.begin();
    await change.upsert(t, 'main', columnsOf(t, [{ id: 5, name: 'five' }]));
    await change.deleteKeys(t, 'main', [[6]]);
    await change.commit();
    const merged = await both({});
    assert.equal(merged.length, 299);
    assert.ok(merged.some((r) => r['id'] === 5 && r['name'] === 'five') && !merged.some((r) => r['id'] === 6));

    // An append table: row ids, and deleted positions (read past the cache, which needs a picker for them).
    const a = await createAppendTable(wh, 'small_append');
    await insertIds(wh, a, Array.from({ length: 40 }, (_, i) => i));
    const withIds = { table: a, projection: ['id', 'v', ROW_ID_COLUMN] };
    assert.deepEqual(await readRows(wh, withIds, { cacheRowGroups: true }), await readRows(wh, withIds));
    const del = await wh.begin();
    assert.equal(await deleteWhere(wh, a, del, (id) => id % 3 === 0), 14);
    await del.commit();
    const after = { table: wh.getTableById(a.id)!, projection: ['id', 'v', ROW_ID_COLUMN] };
    const rows = await readRows(wh, after);
    assert.equal(rows.length, 26);
    assert.deepEqual(await readRows(wh, after, { cacheRowGroups: true }), rows);
  } finally { await cleanup(); }
});

test('table_changes reads each change file once through the row-group cache, and a schema change reads it again as the new columns', async () => {
  const { wh, cleanup } = await tempWarehouse();
  const cache = sharedRowGroupCache();
  try {
    let t = await kvTable(wh, 'rgc_changes');
    const write = async (rows: { id: number; v: string; extra?: number }[]) => {
      await upsertRows(wh, t, rows);
      return wh.resolveSnapshot(wh.getTableById(t.id)!)!.id;
    };
    const first = await write([{ id: 1, v: 'a' }, { id: 2, v: 'b' }]);
    await write([{ id: 1, v: 'a2' }]);
    const head = await write([{ id: 3, v: 'c' }]);
    const expected = ['+I id=1 v=a2', '+I id=3 v=c'];
    assert.deepEqual(await changeTexts(wh, t, first, head), expected);
    const before = cache.stats().hits;
    // A second reader of the same change set (another view's refresh): every file from the cache.
    assert.deepEqual(await changeTexts(wh, t, first, head), expected);
    assert.ok(cache.stats().hits >= before + 2, `hits ${before} → ${cache.stats().hits}`);

    t = await wh.alterTable('public', 'rgc_changes', { kind: 'addColumn', column: { name: 'extra', type: { kind: 'int4' }, nullable: true } });
    const after = await write([{ id: 2, v: 'b', extra: 42 }]);
    assert.deepEqual(await changeTexts(wh, t, first, after), ['+I id=1 v=a2 extra=NULL', '+I id=3 v=c extra=NULL', '+I id=2 v=b extra=42']);
  } finally { await cleanup(); }
});

test('table_changes keeps no change file whose decoded rows pass the cap: a bulk load does not push out the point reads\' row groups', async () => {
  const { wh, cleanup } = await tempWarehouse();
  const cache = sharedRowGroupCache();
  try {
    const t = await kvTable(wh, 'rgc_bulk');
    // 120,000 rows of 80-byte text: about 10 MB decoded, past the 8 MiB cap.
    await upsertRows(wh, t, Array.from({ length: 120_000 }, (_, id) => ({ id, v: `${id}`.padStart(80, 'x') })));
    const head = wh.resolveSnapshot(wh.getTableById(t.id)!)!.id;
    const read = async () => (await wh.readChanges(t, undefined, head)).reduce((n, c) => n + c.batch.numRows, 0);
    assert.equal(await read(), 120_000);
    const { hits, bytes } = cache.stats();
    assert.equal(await read(), 120_000);
    assert.equal(cache.stats().hits, hits, 'read again from the file, not the cache');
    assert.equal(cache.stats().bytes, bytes);
  } finally { await cleanup(); }
});
