import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reverseBits32 } from '../../src/lake/optimize/hash-order.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

test('reverseBits32 reverses all 32 bits', () => {
  assert.equal(reverseBits32(1), 0x80000000);
  assert.equal(reverseBits32(0x80000000), 1);
  assert.equal(reverseBits32(0xf0), 0x0f000000);
  assert.equal(reverseBits32(0xffffffff), 0xffffffff);
});

test('a point read by full key decodes only the row groups holding its hash', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({ namespace: 'public', name: 'big', primaryKey: ['id'], columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'int4' }, nullable: true }] });
    const rows = Array.from({ length: 100_000 }, (_, i) => ({ id: i, v: i * 2 }));
    const tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, rows));
    await tx.commit();
    await wh.optimize(t);
    const plan = await wh.planScan({ table: t, filters: [{ column: 'id', op: '=', value: 4242 }] });
    assert.equal(plan.tasks.length, 1);
    const groups = plan.tasks[0]!.baseFiles[0]!.rowGroups;
    assert.ok(groups !== undefined && groups.length >= 1 && groups.length <= 2, `row groups ${groups}`);
    for (const id of [0, 4242, 99_999]) {
      assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: id }] }), [{ id, v: id * 2 }]);
    }
    assert.equal((await readRows(wh, { table: t })).length, 100_000);
  } finally { await cleanup(); }
});

test('key filters applied before the merge keep (seq, offset) order within a transaction', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({ namespace: 'public', name: 'k', primaryKey: ['id'], columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }] });
    const tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, [{ id: 1, v: 'a' }, { id: 2, v: 'x' }, { id: 1, v: 'b' }, { id: 3, v: 'y' }]));
    await tx.update(t, 'main', columnsOf(t, [{ id: 1, v: 'b' }]), columnsOf(t, [{ id: 1, v: 'c' }]));
    await tx.upsert(t, 'main', columnsOf(t, [{ id: 2, v: 'z' }]));
    await tx.commit();
    const tx2 = await wh.begin();
    await tx2.deleteKeys(t, 'main', [[3]]);
    await tx2.commit();
    for (const [id, want] of [[1, [{ id: 1, v: 'c' }]], [2, [{ id: 2, v: 'z' }]], [3, []]] as const) {
      assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: id }] }), want);
    }
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'id', op: 'in', values: [1, 2] }] }), [{ id: 1, v: 'c' }, { id: 2, v: 'z' }]);
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'v', op: '=', value: 'x' }] }), []);
  } finally { await cleanup(); }
});

test('a point read skips change files whose key bitmap cannot hold the key', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({ namespace: 'public', name: 'k', primaryKey: ['id'], columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'int4' }, nullable: true }] });
    for (let c = 0; c < 20; c++) {
      const tx = await wh.begin();
      await tx.upsert(t, 'main', [[c * 10, c * 10 + 1], [c, c]]);
      await tx.commit();
    }
    const plan = await wh.planScan({ table: t, filters: [{ column: 'id', op: '=', value: 50 }] });
    const files = plan.tasks.reduce((n, task) => n + task.changeFiles.length, 0);
    assert.ok(files >= 1 && files <= 3, `change files read: ${files}`);
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: 50 }] }), [{ id: 50, v: 5 }]);
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: 51 }] }), [{ id: 51, v: 5 }]);
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: 52 }] }), []);
  } finally { await cleanup(); }
});

test('sortedOrder orders rows by reversed hash, ties by row number (as a stable comparator sort)', async () => {
  const { sortedOrder } = await import('../../src/lake/optimize/hash-order.js');
  const fc = (await import('fast-check')).default;
  fc.assert(fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(0, 1, 0x10000, 0xffff, 0xffffffff)), { maxLength: 300 }), (xs) => {
    const rev = Uint32Array.from(xs);
    const expected = xs.map((_, i) => i).sort((a, b) => rev[a]! - rev[b]! || a - b);
    assert.deepEqual([...sortedOrder(rev, rev.length)], expected);
  }), { numRuns: 300 });
});

test('sortByReversedHashSplit gives each child exactly the rows sortByReversedHash would after a split', async () => {
  const { sortByReversedHash, sortByReversedHashSplit } = await import('../../src/lake/optimize/hash-order.js');
  const { buildBatch } = await import('../../src/lake/arrow/batch-builder.js');
  const { hashKeyBatch } = await import('../../src/lake/bucket/key-hash.js');
  const { takeRows } = await import('../../src/lake/scan/take-rows.js');
  const cols = [{ name: 'k', type: { kind: 'int4' } as const, fieldId: 1, nullable: false }, { name: 'v', type: { kind: 'text' } as const, fieldId: 2, nullable: true }];
  const batches = [0, 1, 2].map((b) => buildBatch(cols, [Array.from({ length: 700 }, (_, i) => b * 1000 + i), Array.from({ length: 700 }, (_, i) => (i % 5 === 0 ? null : `v${b}-${i}`))]));
  const first = { mask: 1, index: 0 };
  const parts = sortByReversedHashSplit(batches, ['k'], [{ kind: 'int4' }], first, 100);
  const rowsOf = (bs: readonly import('apache-arrow').RecordBatch[]) => bs.flatMap((b) => [...b.getChild('k')!].map((k, i) => `${k}:${b.getChild('v')!.get(i)}`));
  for (const [c, part] of parts.entries()) {
    // the reference: split by hash first, then sort each half on its own
    const half = batches.map((b) => {
      const h = hashKeyBatch(b, ['k'], [{ kind: 'int4' }]);
      const keep: number[] = [];
      for (let i = 0; i < h.length; i++) if ((((h[i]! & first.mask) >>> 0) === first.index) === (c === 0)) keep.push(i);
      return takeRows(b, keep);
    });
    const ref = sortByReversedHash(half, ['k'], [{ kind: 'int4' }], 100);
    assert.deepEqual(part.ranges, ref.ranges);
    // same rows in each row group (order inside a group is free)
    const groups = (r: { batches: import('apache-arrow').RecordBatch[] }) => {
      const all = rowsOf(r.batches);
      const out: string[][] = [];
      for (let g = 0; g < all.length; g += 100) out.push(all.slice(g, g + 100).sort());
      return out;
    };
    assert.deepEqual(groups(part), groups(ref));
    assert.ok(part.batches.length > 0);
  }
});
