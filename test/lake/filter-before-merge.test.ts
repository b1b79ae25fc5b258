import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScanFilter } from '../../src/lake/index.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

/**
 * Base rows are filtered before the merge, change rows after it: a change that
 * fails the filter must still hide the base row it replaces, and a deleted key
 * must stay deleted, whichever side passes.
 */
test('scan filters over base plus changes: failing changes hide passing base rows, deletes stay deleted', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'fm', primaryKey: ['id'],
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'numeric', precision: 10, scale: 2 }, nullable: true }],
    });
    const base = Array.from({ length: 40 }, (_, i) => ({ id: i, v: `${i * 10}.00` }));
    let tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, base));
    await tx.commit();
    await wh.optimize(t);
    tx = await wh.begin();
    // id 1: 10 → 5 (now fails v >= 10); id 2: 20 → 99.5; id 3 deleted; id 0: 0 → 500 (now passes); id 4 → NULL.
    await tx.upsert(t, 'main', columnsOf(t, [{ id: 1, v: '5.00' }, { id: 2, v: '99.50' }, { id: 0, v: '500.00' }, { id: 4, v: null }]));
    await tx.deleteKeys(t, 'main', [[3]]);
    await tx.commit();
    const model = new Map(base.map((r) => [r.id, r.v as string | null]));
    model.set(1, '5.00'); model.set(2, '99.50'); model.set(0, '500.00'); model.set(4, null); model.delete(3);
    const cases: [ScanFilter[], (v: number) => boolean][] = [
      [[{ column: 'v', op: '>=', value: '10' }], (v) => v >= 10],
      [[{ column: 'v', op: '<', value: '10.00' }], (v) => v < 10],
      [[{ column: 'v', op: '>', value: '20' }, { column: 'v', op: '<=', value: '100' }], (v) => v > 20 && v <= 100],
      [[{ column: 'v', op: '=', value: '500' }], (v) => v === 500],
    ];
    for (const [filters, pass] of cases) {
      const rows = await readRows(wh, { table: t, projection: ['id', 'v'], filters });
      const expected = [...model].filter(([, v]) => v !== null && pass(Number(v))).map(([id]) => id).sort((a, b) => a - b);
      assert.deepEqual(rows.map((r) => r.id as number).sort((a, b) => a - b), expected, JSON.stringify(filters));
    }
  } finally { await cleanup(); }
});
