import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../../src/lake/index.js';
import type { ScanFilter, TableMetadata, Warehouse } from '../../src/lake/index.js';
import { bloomKeyOf, bloomMayHold, buildValueBloom } from '../../src/lake/stats/value-bloom.js';

test('a value filter never loses a value it holds, and rejects most others', () => {
  const keys = new Set(Array.from({ length: 5000 }, (_, i) => `user${i * 7}`));
  const bloom = buildValueBloom(keys)!;
  for (const k of keys) assert.equal(bloomMayHold(bloom, { kind: 'text' }, k), true, k);
  let falsePositives = 0;
  for (let i = 0; i < 10_000; i++) if (bloomMayHold(bloom, { kind: 'text' }, `other${i}`)) falsePositives++;
  assert.ok(falsePositives < 300, `false positives: ${falsePositives} of 10000`);
  // Integers meet on the same key whether they come as numbers or bigints.
  assert.equal(bloomKeyOf({ kind: 'int8' }, 42n), bloomKeyOf({ kind: 'int8' }, 42));
  // Types whose equality is not identity of the key get no filter.
  assert.equal(bloomKeyOf({ kind: 'float8' }, 1.5), undefined);
  assert.equal(bloomKeyOf({ kind: 'numeric' }, '1.50'), undefined);
});

async function withWarehouse(fn: (w: Warehouse) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-index-filters-'));
  const w = await openWarehouse({ path: dir });
  try {
    await fn(w);
  } finally {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Ten append files whose `email` values interleave, so min/max statistics cannot tell them apart. */
async function tenFiles(w: Warehouse, keyed: boolean): Promise<TableMetadata> {
  const t = await w.createTable({
    namespace: 'public', name: 'people', ...(keyed ? { primaryKey: ['id'] } : {}),
    columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'email', type: { kind: 'text' }, nullable: true }],
  });
  for (let f = 0; f < 10; f++) {
    const ids = Array.from({ length: 100 }, (_, i) => BigInt(i * 10 + f));
    const txn = await w.begin();
    await txn.insert(t, 'main', [ids, ids.map((id) => `user${id}`)]);
    await txn.commit();
  }
  return w.getTable('public', 'people')!;
}

const lookup = (value: string): ScanFilter[] => [{ column: 'email', op: '=', value }];

for (const keyed of [false, true]) {
  test(`CREATE INDEX builds value filters for the files there and for new ones; scans skip the rest (${keyed ? 'keyed' : 'append'} table)`, async () => {
    await withWarehouse(async (w) => {
      let t = await tenFiles(w, keyed);
      const before = await w.planScan({ table: t, filters: lookup('user37') });
      assert.equal(before.stats.filesPruned, 0, 'min/max alone cannot skip interleaved files');
      t = await w.alterTable('public', 'people', { kind: 'addConstraint', constraint: { kind: 'index', name: 'people_email_idx', columns: ['email'], method: 'btree' } });
      assert.equal(t.columns.find((c) => c.name === 'email')!.indexed, true);
      // One more file, written after the index: it gets its filter as it is written.
      const txn = await w.begin();
      await txn.insert(t, 'main', [[5000n], ['user5000']]);
      await txn.commit();
      const plan = await w.planScan({ table: t, filters: lookup('user37') });
      assert.deepEqual(plan.stats.indexes, ['people_email_idx']);
      if (keyed) {
        // One bucket node holds every file: the node is read whole, as a change file may override a base row.
        assert.equal(plan.tasks.length, 1);
      } else {
        // A filter may answer "maybe" for a value it lacks (about 1% of the time), never "no" for one it holds.
        assert.ok(plan.tasks.length >= 1 && plan.tasks.length <= 2, `tasks: ${plan.tasks.length}`);
        assert.ok(plan.stats.filesPrunedByIndex! >= 9, `skipped by the index: ${plan.stats.filesPrunedByIndex}`);
      }
      const absent = await w.planScan({ table: t, filters: [{ column: 'email', op: 'in', values: ['user37x', 'user5x'] }] });
      assert.ok(absent.tasks.length <= 1, 'no file holds either value');
      const fresh = await w.planScan({ table: t, filters: lookup('user5000') });
      assert.equal(fresh.tasks.length, 1, 'the file written after CREATE INDEX is found by its own filter');
      // DROP INDEX: the filters stay in the files but are no longer used.
      t = await w.alterTable('public', 'people', { kind: 'dropConstraint', name: 'people_email_idx' });
      const dropped = await w.planScan({ table: t, filters: lookup('user37x') });
      assert.equal(dropped.stats.indexes, undefined);
      assert.equal(dropped.stats.filesPrunedByIndex, 0);
    });
  });
}
