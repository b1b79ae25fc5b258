import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IcebergExportResult, TableMetadata } from '../../src/lake/index.js';
import { IcebergMetadataService } from '../../src/service/index.js';
import type { IcebergMetadataWarehouse } from '../../src/service/iceberg-metadata/iceberg-metadata-service.js';
import { kvTable, upsertRows } from '../lake/helpers/keyed-table.js';
import { tempWarehouse } from '../lake/helpers/read-table.js';

test('the service exports tables whose head moved, after their commits; changes alone wait out metadata.iceberg.change-interval; an unchanged head costs no export', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const service = new IcebergMetadataService(wh);
    const t = await kvTable(wh, 'kv', { 'metadata.iceberg.change-interval': '400ms' });
    await assert.rejects(kvTable(wh, 'bad', { 'metadata.iceberg.change-interval': 'soon' }), { sqlstate: '22023' });
    await upsertRows(wh, t, [{ id: 1, v: 'a' }, { id: 2, v: 'b' }]);
    await wh.optimize(t, { kind: 'full' });
    assert.deepEqual(await service.runOnce(), { written: 1, skipped: 0, failed: 0 });
    assert.deepEqual(await service.runOnce(), { written: 0, skipped: 0, failed: 0 });
    // A write that reaches only the change store is exported too (as equality deletes and
    // rows), once the interval has passed since the last version.
    await upsertRows(wh, t, [{ id: 3, v: 'c' }]);
    assert.deepEqual(await service.runOnce(), { written: 0, skipped: 0, failed: 0 }, 'too soon after the last version');
    assert.deepEqual((await wh.exportIcebergMetadata(t, { deferChanges: true })).kind, 'deferred');
    await new Promise((r) => setTimeout(r, 450));
    assert.deepEqual(await service.runOnce(), { written: 1, skipped: 0, failed: 0 });
    assert.deepEqual(await service.runOnce(), { written: 0, skipped: 0, failed: 0 });
    await wh.optimize(t, { kind: 'full' });
    assert.deepEqual(await service.runOnce(), { written: 1, skipped: 0, failed: 0 });
  } finally { await cleanup(); }
});

test('a failed export is logged and retried at the next poll, at the same head', async () => {
  const table = { id: 16384, namespace: 'public', name: 't' } as TableMetadata;
  let calls = 0;
  const warehouse: IcebergMetadataWarehouse = {
    listTables: () => [table],
    branchHeads: () => new Map([[table.id, 7n]]),
    exportIcebergMetadata: async (): Promise<IcebergExportResult> => {
      calls++;
      if (calls === 1) throw new Error('storage unreachable');
      return { kind: 'written', version: 1, snapshotId: 7n };
    },
  };
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, warn(_o: object, msg?: string) { warnings.push(msg ?? ''); } };
  const service = new IcebergMetadataService(warehouse, { logger });
  assert.deepEqual(await service.runOnce(), { written: 0, skipped: 0, failed: 1 });
  assert.deepEqual(warnings, ['writing Iceberg metadata failed']);
  assert.deepEqual(await service.runOnce(), { written: 1, skipped: 0, failed: 0 });
  assert.deepEqual(await service.runOnce(), { written: 0, skipped: 0, failed: 0 });
  assert.equal(calls, 2);
});
