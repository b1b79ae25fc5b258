import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance } from '@duckdb/node-api';
import type { TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { LocalStorage } from '../../../src/lake/storage/local-storage.js';
import { columnsOf, tempWarehouse } from '../helpers/read-table.js';
import { deleteRows, kvTable, upsertRows } from '../helpers/keyed-table.js';
import { seededRandom } from '../helpers/seeded-random.js';
import type { Json } from './read-iceberg.js';
import { snapshotFiles } from './read-iceberg.js';
import { exported, floeRowsAt, icebergRows, localKeyOf, namesOf } from './iceberg-rows.js';

/*
 * A keyed table's change store, exported as Iceberg v2 equality deletes plus data files:
 * whatever is pending (log rows, tiered files, change files of split nodes' ancestors), an
 * Iceberg reader that applies the deletes by the spec's rule reads the rows Floe reads.
 */

async function assertIcebergReadsAsFloe(wh: Warehouse, t: TableMetadata, dir: string, duck: Awaited<ReturnType<Awaited<ReturnType<typeof DuckDBInstance.create>>['connect']>>, what: string) {
  const r = await wh.exportIcebergMetadata(t);
  assert.notEqual(r.kind, 'skipped', `${what}: ${r.kind === 'skipped' ? r.reason : ''}`);
  const v = await exported(t, new LocalStorage(dir), localKeyOf(dir));
  assert.equal(v.current, Number(wh.resolveSnapshot(t)!.id), `${what}: the current snapshot is the head`);
  assert.deepEqual(await icebergRows(duck, v.json, v.entries), await floeRowsAt(wh, t, v.current, namesOf(v.json)), what);
  return v;
}

describe('Iceberg v2 metadata of the change store', () => {
  test('pending upserts and deletes are equality deletes plus rows; a later export supersedes the last change-only snapshot and deletes its files', async () => {
    const { wh, dir, cleanup } = await tempWarehouse();
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const storage = new LocalStorage(dir);
      const t = await kvTable(wh, 'kv');
      await upsertRows(wh, t, Array.from({ length: 30 }, (_, i) => ({ id: i, v: `a${i}` })));
      await wh.optimize(t, { kind: 'full' });
      const v1 = await assertIcebergReadsAsFloe(wh, t, dir, duck, 'optimized');
      assert.ok(v1.entries.every((e) => e.dataFile['content'] === 0), 'nothing pending: data files only');

      await upsertRows(wh, t, [{ id: 1, v: 'b1' }, { id: 100, v: 'new' }]);
      await deleteRows(wh, t, [5]);
      await upsertRows(wh, t, [{ id: 1, v: 'c1' }]);
      const v2 = await assertIcebergReadsAsFloe(wh, t, dir, duck, 'upserts and a delete pending');
      const deletes = v2.entries.filter((e) => e.dataFile['content'] === 2);
      assert.equal(deletes.length, 1);
      assert.deepEqual(deletes[0]!.dataFile['equality_ids'], [t.columns.find((c) => c.name === 'id')!.fieldId]);
      const base = v2.entries.filter((e) => e.dataFile['content'] === 0 && e.status === 0);
      assert.ok(base.length > 0 && base.every((e) => e.dataSequenceNumber! < deletes[0]!.dataSequenceNumber!), 'the deletes sort above the base');
      const snap = (v2.json['snapshots'] as Json[]).find((s) => s['snapshot-id'] === v2.current)!;
      assert.equal(snap['summary']['total-equality-deletes'], '3', 'one delete per touched key: 1, 100, 5');
      assert.equal(snap['summary']['operation'], 'overwrite');
      // The optimized snapshot stays readable as it was.
      const old = await snapshotFiles(storage, v2.keyOf, v2.json, v1.current);
      assert.deepEqual(await icebergRows(duck, v2.json, old), await floeRowsAt(wh, t, v1.current, namesOf(v2.json)));

      await upsertRows(wh, t, [{ id: 2, v: 'b2' }]);
      const v3 = await assertIcebergReadsAsFloe(wh, t, dir, duck, 'one more pending upsert');
      const listed = (v3.json['snapshots'] as Json[]).map((s) => s['snapshot-id']);
      assert.ok(listed.includes(v1.current), 'the snapshot of the base store stays');
      assert.ok(!listed.includes(v2.current), 'a snapshot superseded only by the change store is dropped');
      const dataFiles = (await storage.list(`iceberg/${t.id}/data/`)).map((o) => o.key);
      const named = new Set(v3.entries.map((e) => v3.keyOf(e.dataFile['file_path'] as string)));
      assert.ok(dataFiles.length > 0 && dataFiles.every((k) => named.has(k)), `only the current change-store files remain: ${dataFiles.join(', ')}`);

      await wh.optimize(t, { kind: 'minor' });
      const v4 = await assertIcebergReadsAsFloe(wh, t, dir, duck, 'folded by a minor');
      assert.ok(v4.entries.every((e) => e.dataFile['content'] === 0));
      await wh.dropTable('public', 'kv');
      assert.deepEqual(await storage.list(`iceberg/${t.id}/`), [], 'DROP TABLE deletes the change-store files too');
    } finally {
      duck.closeSync();
      await cleanup();
    }
  });

  test('model: random upserts, deletes, tiering and optimizes of every kind on a partitioned table whose nodes split; every export reads as Floe', async () => {
    const { wh, dir, cleanup } = await tempWarehouse();
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const t = await wh.createTable({
        namespace: 'public', name: 'm', primaryKey: ['grp', 'id'],
        // A small target size: optimizes split nodes, and ancestors' change files stay pending for their children.
        properties: { 'self-optimizing.target-size': '4096' },
        columns: [
          { name: 'grp', type: { kind: 'int4' }, nullable: false },
          { name: 'id', type: { kind: 'int4' }, nullable: false },
          { name: 'v', type: { kind: 'text' }, nullable: true },
        ],
        partitionBy: [{ sourceColumn: 'grp', transform: { kind: 'identity' }, name: 'grp' }],
      });
      const next = seededRandom(20261205);
      const pick = (n: number) => Math.floor(next() * n);
      let changesSeen = 0;
      // An open transaction pins the low watermark: commits after its start stay pending
      // through optimizes that split their node, as change files of the children's ancestor.
      let pin: Awaited<ReturnType<Warehouse['begin']>> | undefined;
      const upsertSome = async (tx: Awaited<ReturnType<Warehouse['begin']>>, step: number) => {
        const rows = Array.from({ length: 1 + pick(40) }, () => ({ grp: pick(2), id: pick(300), v: `s${step}-${pick(1000)}` }));
        await tx.upsert(t, 'main', columnsOf(t, [...new Map(rows.map((r) => [`${r.grp}:${r.id}`, r])).values()]));
      };
      for (let step = 0; step < 48; step++) {
        // Each round of 12 steps: a transaction stays open from step 4 to step 10, with a commit
        // and an optimize under it; the other steps are drawn at random.
        const op = [undefined, undefined, undefined, undefined, 10, 0, 8, undefined, undefined, undefined, 11][step % 12] ?? pick(10);
        if (op < 5) {
          const tx = await wh.begin();
          await upsertSome(tx, step);
          await tx.commit();
        } else if (op < 7) {
          const keys = Array.from({ length: 1 + pick(10) }, () => [pick(2), pick(300)] as const);
          const tx = await wh.begin();
          await tx.deleteKeys(t, 'main', [keys.map((k) => k[0]), keys.map((k) => k[1])]);
          await tx.commit();
        } else if (op === 7) {
          await wh.tierLogFiles(t);
        } else if (op < 10) {
          await wh.optimize(t, { kind: (['minor', 'major', 'full'] as const)[pick(3)]! });
        } else if (op === 10) {
          pin = await wh.begin();
          await upsertSome(pin, step);
        } else {
          await pin!.commit();
          pin = undefined;
        }
        const v = await assertIcebergReadsAsFloe(wh, t, dir, duck, `step ${step} (op ${op})`);
        if (v.entries.some((e) => e.dataFile['content'] === 2)) changesSeen++;
      }
      assert.ok(changesSeen >= 10, `the change store was exported in ${changesSeen} of 48 steps`);
      assert.ok(wh.bucketTree(t).filter((n) => n.isFrontier).length > 2, 'nodes split');
    } finally {
      duck.closeSync();
      await cleanup();
    }
  });

  test('a table with an aggregating merge engine exports its base store only', async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await kvTable(wh, 'agg', { 'merge-engine': 'partial-update' });
      await upsertRows(wh, t, [{ id: 1, v: 'a' }]);
      await wh.optimize(t, { kind: 'full' });
      assert.equal((await wh.exportIcebergMetadata(t)).kind, 'written');
      await upsertRows(wh, t, [{ id: 1, v: 'b' }]);
      assert.equal((await wh.exportIcebergMetadata(t)).kind, 'unchanged', 'partial updates are not equality deletes: not shown');
    } finally {
      await cleanup();
    }
  });
});
