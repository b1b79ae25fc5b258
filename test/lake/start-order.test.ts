import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

async function keyedTable(wh: Warehouse, props: Record<string, string> = {}): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name: 'kv',
    columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
    primaryKey: ['id'], properties: props,
  });
}

test('a transaction that began earlier and commits later does not overwrite a later-begun one (before and after optimize)', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await keyedTable(wh);
    const early = await wh.begin();
    const late = await wh.begin();
    assert.ok(early.seq < late.seq);
    await late.upsert(t, 'main', columnsOf(t, [{ id: 1n, v: 'late' }, { id: 2n, v: 'late' }]));
    await late.commit();
    // Optimizing while `early` is open must not fold `late` (its seq is above the watermark).
    const r1 = await wh.optimize(t);
    assert.equal(r1.changeFilesFolded, 0);
    await early.upsert(t, 'main', columnsOf(t, [{ id: 1n, v: 'early' }, { id: 3n, v: 'early' }]));
    await early.commit();
    const expected = [{ id: 1n, v: 'late' }, { id: 2n, v: 'late' }, { id: 3n, v: 'early' }];
    assert.deepEqual(await readRows(wh, { table: t }), expected);
    const phases: string[] = [];
    const r2 = await wh.optimize(t, { onProgress: (p) => phases.push(p.phase) });
    assert.deepEqual([phases[0], phases.at(-1)], ['plan', 'done']);
    assert.ok(phases.includes('node') && phases.includes('commit'));
    assert.ok(r2.changeFilesFolded >= 2);
    assert.deepEqual(await readRows(wh, { table: t }), expected);
    // The folded row keeps the per-row _seq of the change that produced it.
    const seqs = await readRows(wh, { table: t, projection: ['id', '_seq'] });
    assert.deepEqual(seqs, [{ id: 1n, _seq: late.seq }, { id: 2n, _seq: late.seq }, { id: 3n, _seq: early.seq }]);
    // A newer writer still wins over the base.
    const next = await wh.begin();
    await next.upsert(t, 'main', columnsOf(t, [{ id: 1n, v: 'next' }]));
    await next.deleteKeys(t, 'main', [[2n]]);
    await next.commit();
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1n, v: 'next' }, { id: 3n, v: 'early' }]);
    await wh.optimize(t);
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1n, v: 'next' }, { id: 3n, v: 'early' }]);
  } finally { await cleanup(); }
});

test('an early transaction committing after an optimize that folded a later one still loses to it', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await keyedTable(wh);
    const seed = await wh.begin();
    await seed.upsert(t, 'main', columnsOf(t, [{ id: 1n, v: 'seed' }]));
    await seed.commit();
    await wh.optimize(t);
    const early = await wh.begin();
    const late = await wh.begin();
    await late.upsert(t, 'main', columnsOf(t, [{ id: 1n, v: 'late' }]));
    await late.commit();
    await wh.optimize(t); // early is open: nothing at or above its seq is folded
    await early.deleteKeys(t, 'main', [[1n]]);
    await early.commit();
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1n, v: 'late' }]);
    await wh.optimize(t);
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1n, v: 'late' }]);
  } finally { await cleanup(); }
});

test('split nodes keep start order and every row', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await keyedTable(wh, { 'write.target-file-size': '2000' });
    const rows = Array.from({ length: 400 }, (_, i) => ({ id: BigInt(i), v: `v${i}` }));
    const a = await wh.begin();
    await a.upsert(t, 'main', columnsOf(t, rows));
    await a.commit();
    for (let i = 0; i < 4; i++) await wh.optimize(t);
    const tree = wh.bucketTree(t).filter((n) => n.isFrontier);
    assert.ok(tree.length >= 4, `expected splits, got ${tree.length} frontier nodes`);
    const early = await wh.begin();
    const late = await wh.begin();
    await late.upsert(t, 'main', columnsOf(t, rows.slice(0, 50).map((r) => ({ ...r, v: 'late' }))));
    await late.commit();
    await early.upsert(t, 'main', columnsOf(t, rows.slice(0, 100).map((r) => ({ ...r, v: 'early' }))));
    await early.commit();
    const expected = rows.map((r, i) => ({ id: r.id, v: i < 50 ? 'late' : i < 100 ? 'early' : r.v }));
    const sort = (x: { id: bigint }[]) => [...x].sort((p, q) => (p.id < q.id ? -1 : 1));
    assert.deepEqual(sort(await readRows(wh, { table: t }) as { id: bigint }[]), expected);
    await wh.optimize(t);
    await wh.optimize(t);
    assert.deepEqual(sort(await readRows(wh, { table: t }) as { id: bigint }[]), expected);
    // Full-key equality prunes to one node.
    const plan = await wh.planScan({ table: t, filters: [{ column: 'id', op: '=', value: 77n }] });
    assert.equal(plan.tasks.length, 1);
    assert.ok(plan.stats.nodesPruned >= 3);
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: 77n }] }).then((r) => r.filter((x) => x['id'] === 77n)), [{ id: 77n, v: 'early' }]);
  } finally { await cleanup(); }
});
