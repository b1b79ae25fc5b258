import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFloeError } from '../../../src/common/floe-error.js';
import { encodeInitialDefault } from '../../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { isLogPath } from '../../../src/lake/log/log-locator.js';
import { columnsOf, readRows, tempWarehouse, type Row } from '../helpers/read-table.js';
import { changeFilesToLogFiles, changeRows } from './log-file-helper.js';

/*
 * A log file (a change file whose path is a locator into a log segment) reads exactly as
 * the same rows in a Parquet change file: every reader of change files is run once over
 * Parquet change files and once after they were turned into log files in place.
 */

const sqlstate = (code: string) => (e: unknown) => isFloeError(e) && e.sqlstate === code;

async function kv(wh: Warehouse, name: string, properties: Record<string, string> = {}): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name, primaryKey: ['id'], properties,
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }, { name: 'n', type: { kind: 'int4' }, nullable: true }],
  });
}

async function upsert(wh: Warehouse, t: TableMetadata, rows: readonly Row[]): Promise<bigint> {
  const tx = await wh.begin();
  await tx.upsert(t, 'main', columnsOf(t, rows));
  return (await tx.commit())!.id;
}

async function del(wh: Warehouse, t: TableMetadata, ids: readonly number[]): Promise<bigint> {
  const tx = await wh.begin();
  await tx.deleteKeys(t, 'main', [[...ids]]);
  return (await tx.commit())!.id;
}

/** A few commits of upserts and deletes (several nodes after the split), the optimizer run once between them. */
async function history(wh: Warehouse, t: TableMetadata): Promise<bigint[]> {
  const snaps: bigint[] = [];
  snaps.push(await upsert(wh, t, Array.from({ length: 40 }, (_, i) => ({ id: i, v: `a${i}`, n: i }))));
  await wh.optimize(t);
  snaps.push(await upsert(wh, t, [{ id: 3, v: 'b3', n: 30 }, { id: 41, v: 'new', n: 41 }, { id: 42, v: null, n: null }]));
  snaps.push(await del(wh, t, [5, 6, 41]));
  snaps.push(await upsert(wh, t, [{ id: 5, v: 'back', n: 5 }, { id: 3, v: 'c3', n: 31 }]));
  return snaps;
}

async function everySnapshot(wh: Warehouse, t: TableMetadata, snaps: readonly bigint[]): Promise<Row[][]> {
  const out: Row[][] = [];
  for (const id of snaps) out.push(await readRows(wh, { table: t, at: { kind: 'snapshot', id } }));
  out.push(await readRows(wh, { table: t }));
  return out;
}

// Warehouses here run without the log store: their commits write Parquet change files,
// which changeFilesToLogFiles then turns into log files, so each test compares the two forms.
function logFiles(wh: Warehouse, t: TableMetadata): number {
  return wh.listFiles(t).filter((f) => isLogPath(f.path)).length;
}


test('scans, time travel and point reads read log files as they read the same Parquet change files', async () => {
  const { wh, dir, cleanup } = await tempWarehouse({ log: false });
  try {
    const t = await kv(wh, 't', { 'bucket.target-rows': '8' });
    const snaps = await history(wh, t);
    const before = await everySnapshot(wh, t, snaps);
    const points = [3, 5, 6, 41, 42, 7];
    const pointsBefore = await Promise.all(points.map((id) => readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: id }] })));
    const filtered = await readRows(wh, { table: t, filters: [{ column: 'n', op: '>=', value: 30 }] });
    assert.ok(await changeFilesToLogFiles(dir, t) >= 3);
    assert.ok(logFiles(wh, t) >= 3);
    assert.equal(wh.listFiles(t).filter((f) => f.store === 'change' && !isLogPath(f.path)).length, 0);
    assert.deepEqual(await everySnapshot(wh, t, snaps), before);
    assert.deepEqual(await Promise.all(points.map((id) => readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: id }] }))), pointsBefore);
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'n', op: '>=', value: 30 }] }), filtered);
    assert.deepEqual(before.at(-1)!.find((r) => r.id === 3), { id: 3, v: 'c3', n: 31 });
  } finally { await cleanup(); }
});

test('table_changes and the audit log read log files as Parquet change files', async () => {
  const { wh, dir, cleanup } = await tempWarehouse({ log: false });
  try {
    const t = await kv(wh, 't');
    const snaps = await history(wh, t);
    const head = snaps.at(-1)!;
    const all = changeRows(await wh.readChanges(t, undefined, head));
    const since = changeRows(await wh.readChanges(t, snaps[0], head));
    await changeFilesToLogFiles(dir, t);
    assert.ok(logFiles(wh, t) > 0);
    assert.deepEqual(changeRows(await wh.readChanges(t, undefined, head)), all);
    assert.deepEqual(changeRows(await wh.readChanges(t, snaps[0], head)), since);
    assert.ok(since.some((r) => r._change_type === '-D' && r.id === 41));
  } finally { await cleanup(); }
});

test('INSERT of a key that lives only in a log file is 23505; a key a log file deleted can be inserted again', async () => {
  const { wh, dir, cleanup } = await tempWarehouse({ log: false });
  try {
    const t = await kv(wh, 't');
    await upsert(wh, t, [{ id: 1, v: 'x', n: 1 }, { id: 2, v: 'y', n: 2 }]);
    await del(wh, t, [2]);
    await changeFilesToLogFiles(dir, t);
    assert.equal(wh.listFiles(t).filter((f) => f.store === 'base' && f.path !== '').length, 0, 'every row lives only in log files');
    let tx = await wh.begin();
    await assert.rejects(tx.insert(t, 'main', columnsOf(t, [{ id: 1, v: 'dup', n: 0 }])), sqlstate('23505'));
    await tx.abort();
    tx = await wh.begin();
    await tx.insert(t, 'main', columnsOf(t, [{ id: 2, v: 'again', n: 2 }]));
    await tx.commit();
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1, v: 'x', n: 1 }, { id: 2, v: 'again', n: 2 }]);
  } finally { await cleanup(); }
});

test('the optimizer folds log files into base files; older snapshots still read them', async () => {
  const { wh, dir, cleanup } = await tempWarehouse({ log: false });
  try {
    const t = await kv(wh, 't', { 'bucket.target-rows': '8' });
    const snaps = await history(wh, t);
    const before = await everySnapshot(wh, t, snaps);
    await changeFilesToLogFiles(dir, t);
    await wh.optimize(t);
    assert.equal(logFiles(wh, t), 0, 'nothing pending at the head after the fold');
    assert.deepEqual(await everySnapshot(wh, t, snaps), before);
  } finally { await cleanup(); }
});

test('a log file written before ADD COLUMN and a widening reads the default and the wider type', async () => {
  const { wh, dir, cleanup } = await tempWarehouse({ log: false });
  try {
    let t = await kv(wh, 't');
    await upsert(wh, t, [{ id: 1, v: 'x', n: 2147483647 }, { id: 2, v: null, n: -1 }]);
    await changeFilesToLogFiles(dir, t);
    t = await wh.alterTable('public', 't', {
      kind: 'addColumn',
      column: { name: 'big', type: { kind: 'int8' }, nullable: false, defaultExpr: '7', initialDefault: encodeInitialDefault(7n, { kind: 'int8' }) },
    });
    t = await wh.alterTable('public', 't', { kind: 'alterColumn', name: 'n', type: { kind: 'int8' } });
    const expected = [{ id: 1, v: 'x', n: 2147483647n, big: 7n }, { id: 2, v: null, n: -1n, big: 7n }];
    assert.deepEqual(await readRows(wh, { table: t }), expected);
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'big', op: '=', value: 7n }] }), expected);
    await upsert(wh, t, [{ id: 3, v: 'z', n: 5_000_000_000n, big: 1n }]);
    await wh.optimize(t);
    assert.deepEqual(await readRows(wh, { table: t }), [...expected, { id: 3, v: 'z', n: 5_000_000_000n, big: 1n }]);
  } finally { await cleanup(); }
});

test('a log file whose segment is shorter than its locator fails with XX001, naming the file', async () => {
  const { wh, dir, cleanup } = await tempWarehouse({ log: false });
  try {
    const t = await kv(wh, 't');
    await upsert(wh, t, [{ id: 1, v: 'x', n: 1 }]);
    await changeFilesToLogFiles(dir, t);
    const f = wh.listFiles(t).find((x) => isLogPath(x.path))!;
    const { truncateSync } = await import('node:fs');
    const { join } = await import('node:path');
    truncateSync(join(dir, f.path.slice(0, f.path.lastIndexOf('#'))), 20);
    await assert.rejects(readRows(wh, { table: t }), (e: unknown) => sqlstate('XX001')(e) && (e as Error).message.includes(f.path));
  } finally { await cleanup(); }
});

test('UNIQUE and the read-modify-write conflict check find values that live only in log files', async () => {
  const { wh, dir, cleanup } = await tempWarehouse({ log: false });
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'u', primaryKey: ['id'], constraints: [{ kind: 'unique', name: 'u_v_key', columns: ['v'] }],
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }, { name: 'n', type: { kind: 'int4' }, nullable: true }],
    });
    await upsert(wh, t, [{ id: 1, v: 'taken', n: 1 }]);
    const rmw = await wh.begin();
    rmw.markReadModifyWrite(t, 'main');
    await rmw.upsert(t, 'main', columnsOf(t, [{ id: 2, v: 'mine', n: 2 }]));
    await upsert(wh, t, [{ id: 2, v: 'theirs', n: 2 }]); // commits after rmw's snapshot, same key
    await changeFilesToLogFiles(dir, t);
    assert.equal(wh.listFiles(t).filter((f) => f.path !== '' && !isLogPath(f.path)).length, 0);
    await assert.rejects(rmw.commit(), sqlstate('40001'));
    const tx = await wh.begin();
    await assert.rejects(tx.insert(t, 'main', columnsOf(t, [{ id: 3, v: 'taken', n: 3 }])), sqlstate('23505'));
    await tx.abort();
  } finally { await cleanup(); }
});
