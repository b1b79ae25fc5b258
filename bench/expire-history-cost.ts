/**
 * What housekeeping's snapshot expiry costs as history grows: a keyed table's catalog
 * gets N one-file commits (each removing the file two commits back, as a stream of
 * upserts that the optimizer keeps folding would), and expireSnapshots then expires the
 * oldest tenth — housekeeping's steady state: each run expires what aged past
 * `snapshot.max-age` since the last, while the hour of history younger than that stays. The catalog is synchronous, so this time is a stall of every
 * commit and read of the process.
 *
 * Env: FLOE_EXPIRE_N (default "1000,3000,10000").
 * Usage: nice -n 19 node --import tsx bench/expire-history-cost.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SqliteCatalog } from '../src/lake/catalog/sqlite/sqlite-catalog.js';
import type { NewFileRecord } from '../src/lake/catalog/catalog.js';
import { expireSnapshots } from '../src/lake/refs/expire-snapshots.js';
import { openStorage } from '../src/lake/storage/open-storage.js';
import { toTableMetadata } from '../src/lake/warehouse/lake-context.js';

const SIZES = (process.env['FLOE_EXPIRE_N'] ?? '1000,3000,10000').split(',').map(Number);

const file = (seq: number): NewFileRecord => ({
  store: 'change', path: '', partitionKey: '', partitionValues: [], nodeMask: 0, nodeIndex: 0, rowCount: 1, sizeBytes: 100,
  seq: BigInt(seq), firstOffset: 0, stats: {}, dvTarget: undefined, dvPositions: undefined, rowGroups: undefined, keyBitmap: undefined,
});

for (const n of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), 'floe-expire-cost-'));
  const catalog = new SqliteCatalog(join(dir, 'catalog.db'));
  try {
    const record = catalog.createTable({
      namespace: 'public', name: 't', columns: [{ fieldId: 1, name: 'k', type: { kind: 'int8' }, nullable: false }],
      primaryKey: ['k'], partitionBy: [], properties: {}, nextFieldId: 2,
    } as never, 1n, false).table;
    const t = record.id;
    const t0 = Date.now() * 1000 - 3_600_000_000;
    for (let i = 0; i < n; i++) {
      const head = catalog.getRef(t, 'main')!.snapshotId;
      const live = catalog.visibleFiles(t, head);
      const remove = live.length >= 2 ? [live[0]!.fileId] : [];
      catalog.commit([{ tableId: t, branch: 'main', operation: 'append', summary: {}, schemaId: 0, addFiles: [file(i + 1)], removeFileIds: remove }], undefined, BigInt(t0 + i));
    }
    const storageConfig = { kind: 'local' as const, root: resolve(dir) };
    const ctx = { catalog, storage: openStorage(storageConfig), storageConfig, logger: undefined, staleTransactionMs: 60_000 };
    const started = performance.now();
    const r = await expireSnapshots(ctx, toTableMetadata(record), { olderThanMicros: BigInt(t0 + Math.floor(n / 10)) });
    console.log(`${String(n).padStart(6)} snapshots: expireSnapshots ${(performance.now() - started).toFixed(0)} ms (${r.expiredSnapshots} expired, ${catalog.listSnapshots(t).length} left)`);
  } finally {
    catalog.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
