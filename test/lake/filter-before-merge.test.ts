import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RecordBatch } from 'apache-arrow';
import { executeScanTaskSelected } from '../../src/lake/index.js';
import type { RowNarrower, ScanFilter } from '../../src/lake/index.js';
import { columnReader } from '../../src/lake/arrow/column-reader.js';
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

/**
 * A consumer's narrowing (its runtime join filters) drops rows as the scan decodes,
 * before the merge: a base row it drops must not hide a change that passes, and a
 * change that fails must still hide a base row that passes.
 */
test('rows narrowed before the merge: the consumer filtering again gets exactly the filtered table', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'nm', primaryKey: ['id'],
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'int4' }, nullable: true }],
    });
    const base = Array.from({ length: 400 }, (_, i) => ({ id: i, v: i }));
    let tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, base));
    await tx.commit();
    await wh.optimize(t);
    const model = new Map(base.map((r) => [r.id, r.v as number | null]));
    const passes = (v: unknown) => typeof v === 'number' && v >= 350;
    const narrow: RowNarrower = (b, rows) => {
      const r = columnReader(b.getChild('v')!, { kind: 'int4' });
      return Int32Array.from(rows ?? Array.from({ length: b.numRows }, (_, i) => i)).filter((i) => passes(r.get(i)));
    };
    // Declaring the column it reads lets the scan decode id after the narrowing, at the rows it keeps.
    const declared: RowNarrower = Object.assign((b: RecordBatch, rows: Int32Array | undefined) => narrow(b, rows), { columns: ['v'] });
    const read = async (by = narrow): Promise<{ ids: number[]; seen: number }> => {
      const plan = await wh.planScan({ table: t, projection: ['id', 'v'] });
      const ids: number[] = [];
      let seen = 0;
      for (const task of plan.tasks) {
        for await (const { batch, rows } of executeScanTaskSelected(task, undefined, by)) {
          const id = columnReader(batch.getChild('id')!, { kind: 'int4' });
          const v = columnReader(batch.getChild('v')!, { kind: 'int4' });
          for (const i of rows ?? Array.from({ length: batch.numRows }, (_, k) => k)) {
            seen++;
            if (passes(v.get(i))) ids.push(id.get(i) as number);
          }
        }
      }
      return { ids: ids.sort((a, b) => a - b), seen };
    };
    const expected = () => [...model].filter(([, v]) => passes(v)).map(([id]) => id).sort((a, b) => a - b);
    // Base only: the narrowing cuts the rows before they come back.
    const plain = await read();
    assert.deepEqual(plain.ids, expected());
    assert.ok(plain.seen < 100, `rows narrowed away as decoded: ${plain.seen} came back`);
    assert.deepEqual(await read(declared), plain);
    // id 10: 10 → 360 (its base row fails, the change passes); id 360: → 5 (base passes, change fails);
    // id 370 deleted; id 380 → NULL.
    tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, [{ id: 10, v: 360 }, { id: 360, v: 5 }, { id: 380, v: null }]));
    await tx.deleteKeys(t, 'main', [[370]]);
    await tx.commit();
    model.set(10, 360); model.set(360, 5); model.set(380, null); model.delete(370);
    const merged = await read();
    assert.deepEqual(merged.ids, expected());
    assert.ok(merged.seen < 100, `base rows narrowed away before the merge: ${merged.seen} came back`);
    assert.deepEqual(await read(declared), merged);
  } finally { await cleanup(); }
});
