import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeChangeStoreFiles } from '../../src/lake/index.js';
import type { ChangeStoreFile, ChangeStoreJob } from '../../src/lake/index.js';
import { LocalStorage } from '../../src/lake/storage/local-storage.js';
import { createIcebergExportPool, ICEBERG_EXPORT_NICENESS } from '../../src/service/iceberg-metadata/iceberg-export-pool.js';
import { deleteRows, kvTable, upsertRows } from '../lake/helpers/keyed-table.js';
import { tempWarehouse } from '../lake/helpers/read-table.js';
import { threadNiceness } from '../harness/thread-niceness.js';

test('the export thread writes a change store\'s files as the caller\'s thread does, at the background nice value', { skip: process.platform !== 'linux' }, async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  const before = threadNiceness();
  const pool = createIcebergExportPool();
  try {
    const t = await kvTable(wh, 'kv');
    await upsertRows(wh, t, Array.from({ length: 200 }, (_, i) => ({ id: i, v: `a${i}` })));
    await wh.optimize(t, { kind: 'full' });
    await upsertRows(wh, t, [{ id: 1, v: 'b1' }, { id: 500, v: 'new' }]);
    await deleteRows(wh, t, [5]);
    await upsertRows(wh, t, [{ id: 1, v: 'c1' }]);
    const { tasks } = await wh.planScan({ table: t, projection: t.columns.map((c) => c.name) });
    const idField = t.columns.find((c) => c.name === 'id')!.fieldId;
    const job = (namePrefix: string): ChangeStoreJob => ({ storage: tasks[0]!.storage, tasks, equalityIds: [idField], namePrefix, partitionValues: [['', []]] });

    const here = await writeChangeStoreFiles(job('iceberg/1/data/here'));
    const there = await pool.writeChangeStore(job('iceberg/1/data/there'));
    const described = (files: readonly ChangeStoreFile[]) => files.map(({ key, ...rest }) => ({ suffix: key.slice(key.lastIndexOf('-p')), ...rest }));
    assert.deepEqual(described(there), described(here));
    assert.deepEqual(described(here).map((f) => [f.suffix, f.rowCount, f.equalityIds]), [
      ['-p0-eq-deletes.parquet', 3, [idField]], // keys 1, 500 and 5
      ['-p0-rows.parquet', 2, undefined], // 1 → c1, 500
    ]);
    const storage = new LocalStorage(dir);
    for (const [i, f] of there.entries()) assert.deepEqual(await storage.get(f.key), await storage.get(here[i]!.key), f.key);

    const added = [...threadNiceness()].filter(([tid]) => !before.has(tid)).map(([, nice]) => nice);
    assert.equal(ICEBERG_EXPORT_NICENESS, 19);
    assert.ok(added.includes(19), `the export thread's nice value among the new threads': ${added.join(', ')}`);
  } finally {
    await pool.close();
    await cleanup();
  }
});
