import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFloeError } from '../../src/common/floe-error.js';
import { encodeInitialDefault } from '../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { columnsOf, readRows, tempWarehouse, type Row } from './helpers/read-table.js';

const sqlstate = (code: string) => (e: unknown) => isFloeError(e) && e.sqlstate === code;

async function write(wh: Warehouse, t: TableMetadata, rows: readonly Row[], how: 'upsert' | 'insert' = 'upsert'): Promise<bigint> {
  const tx = await wh.begin();
  if (how === 'upsert') await tx.upsert(t, 'main', columnsOf(t, rows));
  else await tx.insert(t, 'main', columnsOf(t, rows));
  const s = await tx.commit();
  return s!.id;
}

test('ADD COLUMN with an initial default: base files, change files, time travel and the optimizer all read it', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    let t = await wh.createTable({
      namespace: 'public', name: 't', primaryKey: ['id'],
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'a', type: { kind: 'text' }, nullable: true }],
    });
    await write(wh, t, [{ id: 1, a: 'x' }, { id: 2, a: 'y' }]);
    await wh.optimize(t); // rows 1 and 2 now live in base files
    const old = await write(wh, t, [{ id: 2, a: 'y2' }, { id: 3, a: 'z' }]); // change files over them
    t = await wh.alterTable('public', 't', {
      kind: 'addColumn',
      column: { name: 'big', type: { kind: 'int8' }, nullable: false, defaultExpr: '7', initialDefault: encodeInitialDefault(7n, { kind: 'int8' }) },
    });
    t = await wh.alterTable('public', 't', {
      kind: 'addColumn', column: { name: 'note', type: { kind: 'text' }, nullable: true, defaultExpr: "'d'", initialDefault: 'd' },
    });
    const expected = [{ id: 1, a: 'x', big: 7n, note: 'd' }, { id: 2, a: 'y2', big: 7n, note: 'd' }, { id: 3, a: 'z', big: 7n, note: 'd' }];
    assert.deepEqual(await readRows(wh, { table: t }), expected);
    // An older snapshot reads through the current schema the same way.
    assert.deepEqual(await readRows(wh, { table: t, at: { kind: 'snapshot', id: old } }), expected);
    // A filter on the new column sees the default (and is not pruned away by missing statistics).
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'note', op: '=', value: 'd' }] }), expected);
    // SET DEFAULT changes what new rows get, never what old rows read.
    t = await wh.alterTable('public', 't', { kind: 'alterColumn', name: 'note', defaultExpr: "'new'" });
    await write(wh, t, [{ id: 4, a: 'w', big: 1n, note: 'new' }]);
    await wh.optimize(t); // the optimizer writes the initial default into the new base files
    assert.deepEqual(await readRows(wh, { table: t }), [...expected, { id: 4, a: 'w', big: 1n, note: 'new' }]);
  } finally { await cleanup(); }
});

test('ALTER COLUMN TYPE widens without a rewrite; other changes are 0A000; DROP NOT NULL on a key column is 42P16', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    let t = await wh.createTable({
      namespace: 'public', name: 'w',
      columns: [
        { name: 'i2', type: { kind: 'int2' }, nullable: true }, { name: 'i4', type: { kind: 'int4' }, nullable: true },
        { name: 'f4', type: { kind: 'float4' }, nullable: true }, { name: 'v', type: { kind: 'varchar', length: 3 }, nullable: true },
        { name: 'n', type: { kind: 'numeric', precision: 5, scale: 2 }, nullable: true },
      ],
    });
    await write(wh, t, [{ i2: -3, i4: 2147483647, f4: 0.5, v: 'abc', n: '123.45' }, { i2: null, i4: null, f4: null, v: null, n: null }], 'insert');
    for (const [name, type] of [
      ['i2', { kind: 'int4' }], ['i2', { kind: 'int8' }], ['i4', { kind: 'int8' }], ['f4', { kind: 'float8' }],
      ['v', { kind: 'varchar', length: 10 }], ['v', { kind: 'text' }], ['n', { kind: 'numeric', precision: 9, scale: 2 }],
    ] as const) t = await wh.alterTable('public', 'w', { kind: 'alterColumn', name, type });
    await write(wh, t, [{ i2: 5000000000n, i4: -1n, f4: 1e300, v: 'long text', n: '1234567.89' }], 'insert');
    assert.deepEqual(await readRows(wh, { table: t }), [
      { i2: -3n, i4: 2147483647n, f4: 0.5, v: 'abc', n: '123.45' },
      { i2: 5000000000n, i4: -1n, f4: 1e300, v: 'long text', n: '1234567.89' },
      { i2: null, i4: null, f4: null, v: null, n: null },
    ].sort((a, b) => (JSON.stringify(Object.values(a), (_k, x) => (typeof x === 'bigint' ? `${x}n` : x)) < JSON.stringify(Object.values(b), (_k, x) => (typeof x === 'bigint' ? `${x}n` : x)) ? -1 : 1)));
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'i4', op: '>', value: 2147483646n }] }), [{ i2: -3n, i4: 2147483647n, f4: 0.5, v: 'abc', n: '123.45' }]);
    for (const [name, type] of [
      ['i4', { kind: 'int4' }], ['f4', { kind: 'float4' }], ['v', { kind: 'int4' }], ['n', { kind: 'numeric', precision: 9, scale: 3 }], ['n', { kind: 'numeric' }],
    ] as const) await assert.rejects(wh.alterTable('public', 'w', { kind: 'alterColumn', name, type }), sqlstate('0A000'));
    const k = await wh.createTable({ namespace: 'public', name: 'k', primaryKey: ['id'], columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }] });
    await assert.rejects(wh.alterTable('public', k.name, { kind: 'alterColumn', name: 'id', nullable: true }), sqlstate('42P16'));
    const p = await wh.createTable({
      namespace: 'public', name: 'p', partitionBy: [{ sourceColumn: 'd', transform: { kind: 'identity' }, name: 'd' }],
      columns: [{ name: 'd', type: { kind: 'int4' }, nullable: true }],
    });
    await assert.rejects(wh.alterTable('public', p.name, { kind: 'alterColumn', name: 'd', type: { kind: 'int8' } }), sqlstate('0A000'));
  } finally { await cleanup(); }
});

test('DROP COLUMN drops the CHECK and FOREIGN KEY constraints over it; RENAME COLUMN and RENAME TABLE carry them along', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    await wh.createTable({
      namespace: 'public', name: 'c',
      columns: [{ name: 'a', type: { kind: 'int4' }, nullable: true }, { name: 'b', type: { kind: 'int4' }, nullable: true }],
      constraints: [
        { kind: 'check', name: 'c_a_check', expr: 'a > 0', columns: ['a'] },
        { kind: 'check', name: 'c_b_check', expr: 'b > 0', columns: ['b'] },
        { kind: 'foreignKey', name: 'c_b_fkey', columns: ['b'], refNamespace: 'public', refTable: 'c', refColumns: ['a'] },
      ],
    });
    let t = await wh.alterTable('public', 'c', { kind: 'renameColumn', from: 'a', to: 'x', checkExprs: { c_a_check: 'x > 0' } });
    assert.deepEqual(t.constraints, [
      { kind: 'check', name: 'c_a_check', expr: 'x > 0', columns: ['x'] },
      { kind: 'check', name: 'c_b_check', expr: 'b > 0', columns: ['b'] },
      { kind: 'foreignKey', name: 'c_b_fkey', columns: ['b'], refNamespace: 'public', refTable: 'c', refColumns: ['x'] },
    ]);
    await wh.createTable({
      namespace: 'public', name: 'r', columns: [{ name: 'ref', type: { kind: 'int4' }, nullable: true }],
      constraints: [{ kind: 'foreignKey', name: 'r_ref_fkey', columns: ['ref'], refNamespace: 'public', refTable: 'c', refColumns: ['x'] }],
    });
    t = await wh.alterTable('public', 'c', { kind: 'renameTable', to: 'c2' });
    assert.deepEqual(wh.getTable('public', 'r')!.constraints.map((c) => c.kind === 'foreignKey' && c.refTable), ['c2']);
    assert.deepEqual(t.constraints.map((c) => c.kind === 'foreignKey' && c.refTable), [false, false, 'c2']);
    t = await wh.alterTable('public', 'c2', { kind: 'dropColumn', name: 'b' });
    assert.deepEqual(t.constraints.map((c) => c.name), ['c_a_check']);
  } finally { await cleanup(); }
});
