import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFloeError } from '../../src/common/floe-error.js';
import { columnReader } from '../../src/lake/arrow/column-reader.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

const sqlstate = (code: string) => (e: unknown) => isFloeError(e) && e.sqlstate === code;

test('namespaces and tables: create, list, ids from 16384, drop cascade', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    assert.deepEqual(wh.listNamespaces(), ['public']);
    await wh.createNamespace('sales');
    await assert.rejects(wh.createNamespace('sales'), sqlstate('42P06'));
    await wh.createNamespace('sales', { ifNotExists: true });
    const a = await wh.createTable({ namespace: 'sales', name: 'a', columns: [{ name: 'x', type: { kind: 'int4' }, nullable: true }] });
    const b = await wh.createTable({ namespace: 'public', name: 'b', columns: [{ name: 'x', type: { kind: 'int4' }, nullable: true }] });
    assert.equal(a.id, 16384);
    assert.ok(b.id > a.id);
    assert.equal((await wh.createTable({ namespace: 'sales', name: 'a', columns: [{ name: 'y', type: { kind: 'text' }, nullable: true }] }, { ifNotExists: true })).id, a.id);
    assert.deepEqual(wh.listTables('sales').map((t) => t.name), ['a']);
    assert.equal(wh.getTableById(b.id)?.name, 'b');
    await assert.rejects(wh.dropNamespace('sales'), sqlstate('2BP01'));
    await wh.dropNamespace('sales', { cascade: true });
    assert.equal(wh.getTable('sales', 'a'), undefined);
    assert.deepEqual(wh.listNamespaces(), ['public']);
  } finally { await cleanup(); }
});

test('alter table: add/drop/rename columns keep field ids; old files read new columns as NULL', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    let t = await wh.createTable({ namespace: 'public', name: 't', primaryKey: ['id'], columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'a', type: { kind: 'text' }, nullable: true }] });
    const tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, [{ id: 1, a: 'x' }]));
    await tx.commit();
    t = await wh.alterTable('public', 't', { kind: 'addColumn', column: { name: 'b', type: { kind: 'int8' }, nullable: true } });
    assert.deepEqual(t.columns.map((c) => [c.name, c.fieldId]), [['id', 1], ['a', 2], ['b', 3]]);
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1, a: 'x', b: null }]);
    t = await wh.alterTable('public', 't', { kind: 'renameColumn', from: 'a', to: 'aa' });
    t = await wh.alterTable('public', 't', { kind: 'dropColumn', name: 'b' });
    t = await wh.alterTable('public', 't', { kind: 'addColumn', column: { name: 'b', type: { kind: 'text' }, nullable: true } });
    assert.equal(t.columns.find((c) => c.name === 'b')!.fieldId, 4);
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1, aa: 'x', b: null }]);
    await assert.rejects(wh.alterTable('public', 't', { kind: 'dropColumn', name: 'zz' }), sqlstate('42703'));
    t = await wh.alterTable('public', 't', { kind: 'setProperties', properties: { 'write.target-file-size': '1000' } });
    assert.equal(t.properties['write.target-file-size'], '1000');
    t = await wh.alterTable('public', 't', { kind: 'resetProperties', keys: ['write.target-file-size'] });
    assert.deepEqual(t.properties, {});
    t = await wh.alterTable('public', 't', { kind: 'renameTable', to: 't2' });
    assert.equal(wh.getTable('public', 't2')?.id, t.id);
  } finally { await cleanup(); }
});

test('append tables: base files, row ids, deletion vectors that merge across transactions', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({ namespace: 'public', name: 'log', columns: [{ name: 'x', type: { kind: 'int4' }, nullable: true }] });
    const tx = await wh.begin();
    await tx.insert(t, 'main', [[1, 2, 3, 4]]);
    await tx.commit();
    const ids = await readRows(wh, { table: t, projection: ['x', '_row_id'] });
    const d1 = await wh.begin();
    await d1.deleteRows(t, 'main', [ids[0]!['_row_id'] as bigint]);
    const d2 = await wh.begin();
    await d2.deleteRows(t, 'main', [ids[2]!['_row_id'] as bigint]);
    await d1.commit();
    await d2.commit();
    assert.deepEqual(await readRows(wh, { table: t }), [{ x: 2 }, { x: 4 }]);
    assert.equal(wh.listFiles(t)[0]!.deletedRows, 2);
    await assert.rejects((await wh.begin()).deleteKeys(t, 'main', [[1]]), sqlstate('42809'));
  } finally { await cleanup(); }
});

test('partitioned keyed table: pruning by partition and min/max, projection, limit, own writes, system data', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'ev', primaryKey: ['region', 'id'],
      columns: [
        { name: 'region', type: { kind: 'text' }, nullable: false },
        { name: 'id', type: { kind: 'int4' }, nullable: false },
        { name: 'amount', type: { kind: 'numeric', precision: 10, scale: 2 }, nullable: true },
        { name: 'at', type: { kind: 'timestamptz' }, nullable: true },
      ],
      partitionBy: [{ sourceColumn: 'region', transform: { kind: 'identity' }, name: 'region' }],
    });
    const rows = [];
    for (const region of ['eu', 'us', 'ap']) for (let id = 0; id < 20; id++) rows.push({ region, id, amount: `${id}.50`, at: 1_700_000_000_000_123n + BigInt(id) });
    const tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, rows));
    const s1 = (await tx.commit())!;
    const tx2 = await wh.begin();
    await tx2.deleteKeys(t, 'main', [['eu'], [3]]);
    await tx2.update(t, 'main', columnsOf(t, [rows[4]!]), columnsOf(t, [{ ...rows[4]!, amount: '99.99' }]));
    // The transaction reads its own staged writes.
    const own = await readRows(wh, { table: t, txn: tx2, filters: [{ column: 'region', op: '=', value: 'eu' }], projection: ['id', 'amount'] });
    assert.equal(own.length, 19);
    assert.deepEqual(own.find((r) => r['id'] === 4), { id: 4, amount: '99.99' });
    await tx2.commit();
    const plan = await wh.planScan({ table: t, filters: [{ column: 'region', op: '=', value: 'us' }] });
    assert.equal(plan.stats.partitionsTotal, 3);
    assert.equal(plan.stats.partitionsPruned, 2);
    assert.deepEqual(plan.pushdown, ['exact']);
    const byId = await wh.planScan({ table: t, filters: [{ column: 'id', op: '>', value: 100 }] });
    assert.equal(byId.tasks.length, 0);
    const us = await readRows(wh, { table: t, filters: [{ column: 'region', op: '=', value: 'us' }], projection: ['id', 'at', '_seq'] });
    assert.equal(us.length, 20);
    assert.equal(us[0]!['at'], 1_700_000_000_000_123n);
    assert.equal(us[0]!['_seq'], tx.seq);
    const eu = await readRows(wh, { table: t, filters: [{ column: 'region', op: '=', value: 'eu' }] });
    assert.equal(eu.length, 19);
    assert.equal(eu.find((r) => r['id'] === 4)!['amount'], '99.99');
    const limited = await readRows(wh, { table: t, limit: 5 });
    assert.ok(limited.length >= 5 && limited.length <= 15); // per task

    await wh.optimize(t);
    assert.deepEqual((await readRows(wh, { table: t, filters: [{ column: 'region', op: '=', value: 'eu' }] })), eu);
    const files = wh.listFiles(t);
    assert.ok(files.every((f) => f.store === 'base'));
    assert.equal(files.length, 3);
    const euFile = files.find((f) => f.partitionValues[0] === 'eu')!;
    assert.deepEqual([euFile.columnStats['id']!.min, euFile.columnStats['id']!.max], [0, 19]);
    const tree = wh.bucketTree(t);
    assert.equal(tree.length, 3);
    assert.ok(tree.every((n) => n.isFrontier && n.changeFiles === 0));

    const changes = await wh.readChanges(t, s1.id, wh.resolveSnapshot(t)!.id);
    const types: string[] = [];
    for (const c of changes) {
      const r = columnReader(c.batch.getChild('_change_type')!, { kind: 'text' });
      for (let i = 0; i < c.batch.numRows; i++) types.push(r.get(i) as string);
    }
    assert.deepEqual(types, ['-D', '-U', '+U']);
  } finally { await cleanup(); }
});

test('one transaction commits several tables atomically', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const a = await wh.createTable({ namespace: 'public', name: 'a', primaryKey: ['k'], columns: [{ name: 'k', type: { kind: 'int4' }, nullable: false }] });
    const b = await wh.createTable({ namespace: 'public', name: 'b', columns: [{ name: 'k', type: { kind: 'int4' }, nullable: true }] });
    const tx = await wh.begin();
    await tx.upsert(a, 'main', [[1]]);
    await tx.insert(b, 'main', [[2]]);
    await tx.commit();
    assert.deepEqual(await readRows(wh, { table: a }), [{ k: 1 }]);
    assert.deepEqual(await readRows(wh, { table: b }), [{ k: 2 }]);
    const tx2 = await wh.begin();
    await tx2.upsert(a, 'main', [[5]]);
    await tx2.abort();
    assert.deepEqual(await readRows(wh, { table: a }), [{ k: 1 }]);
  } finally { await cleanup(); }
});

test('every SqlType round-trips through change files, optimize and base files', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const cols = [
      { name: 'id', type: { kind: 'int4' as const }, nullable: false },
      { name: 'b', type: { kind: 'bool' as const }, nullable: true },
      { name: 'i2', type: { kind: 'int2' as const }, nullable: true },
      { name: 'i8', type: { kind: 'int8' as const }, nullable: true },
      { name: 'f4', type: { kind: 'float4' as const }, nullable: true },
      { name: 'f8', type: { kind: 'float8' as const }, nullable: true },
      { name: 'n', type: { kind: 'numeric' as const, precision: 12, scale: 3 }, nullable: true },
      { name: 'nu', type: { kind: 'numeric' as const }, nullable: true },
      { name: 't', type: { kind: 'text' as const }, nullable: true },
      { name: 'vc', type: { kind: 'varchar' as const, length: 10 }, nullable: true },
      { name: 'by', type: { kind: 'bytea' as const }, nullable: true },
      { name: 'd', type: { kind: 'date' as const }, nullable: true },
      { name: 'tm', type: { kind: 'time' as const }, nullable: true },
      { name: 'ts', type: { kind: 'timestamp' as const }, nullable: true },
      { name: 'tz', type: { kind: 'timestamptz' as const }, nullable: true },
      { name: 'iv', type: { kind: 'interval' as const }, nullable: true },
      { name: 'u', type: { kind: 'uuid' as const }, nullable: true },
      { name: 'j', type: { kind: 'jsonb' as const }, nullable: true },
      { name: 'arr', type: { kind: 'array' as const, element: { kind: 'int4' as const } }, nullable: true },
    ];
    const row = {
      id: 1, b: true, i2: -3, i8: -9_007_199_254_740_993n, f4: 1.5, f8: -2.25, n: '123456789.125', nu: '-0.000123',
      t: 'héllo', vc: 'abc', by: new Uint8Array([0, 255, 7]), d: 19_000, tm: 3_600_000_001n, ts: 1_700_000_000_123_456n,
      tz: -1_000_001n, iv: { months: 1, days: -2, micros: 3n }, u: '0e2b9b1c-6b7a-4c7e-9f00-0123456789ab', j: '{"a": [1, 2]}', arr: [1, null, 3],
    };
    const nulls = Object.fromEntries(cols.map((c) => [c.name, c.name === 'id' ? 2 : null]));
    for (const keyed of [true, false]) {
      const t = await wh.createTable({ namespace: 'public', name: keyed ? 'all_k' : 'all_a', columns: cols, ...(keyed ? { primaryKey: ['id'] } : {}) });
      const tx = await wh.begin();
      await tx.insert(t, 'main', columnsOf(t, [row, nulls]));
      await tx.commit();
      assert.deepEqual(await readRows(wh, { table: t }), [row, nulls]);
      await wh.optimize(t);
      assert.deepEqual(await readRows(wh, { table: t }), [row, nulls]);
    }
  } finally { await cleanup(); }
});
