import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLogPath, openWarehouse } from '../../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { columnsOf, readRows } from '../helpers/read-table.js';
import { createAppendTable, deleteWhere, liveRows, rowsWithIds } from '../helpers/append-table.js';

/**
 * A transaction's one-row statements into one node reach the log as one data file, not
 * one per statement, while every row keeps its (seq, offset): the table reads the same, and
 * the change feed lists the rows in statement order, across tables too.
 */

async function withWarehouse(body: (wh: Warehouse, table: (name: string) => Promise<TableMetadata>) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-coalesce-'));
  const wh = await openWarehouse({ path: dir, log: {} });
  const table = (name: string) => wh.createTable({
    namespace: 'public', name, primaryKey: ['id'],
    columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
  try {
    await body(wh, table);
  } finally {
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `id op v` for every change of the table's one commit, in the feed's order. */
async function changes(wh: Warehouse, t: TableMetadata): Promise<{ row: string; offset: number | undefined }[]> {
  const head = wh.resolveSnapshot(t)!.id;
  const out: { row: string; offset: number | undefined }[] = [];
  for (const c of await wh.readChanges(t, undefined, head)) {
    const names = c.batch.schema.fields.map((f) => f.name);
    for (let r = 0; r < c.batch.numRows; r++) {
      const v = (n: string) => c.batch.getChildAt(names.indexOf(n))!.get(r);
      out.push({ row: `${v('id')} ${v('_change_type')} ${v('v')}`, offset: c.firstOffset === undefined ? undefined : c.firstOffset + r });
    }
  }
  return out;
}

test('one-row statements into one node of a keyed table commit one change file; reads and the change feed are unchanged', async () => {
  await withWarehouse(async (wh, table) => {
    const t = await table('t');
    const tx = await wh.begin();
    await tx.upsert(t, 'main', [[1n], ['a']]);
    await tx.upsert(t, 'main', [[2n], ['b']]);
    await tx.upsert(t, 'main', [[1n], ['c']]);
    await tx.deleteKeys(t, 'main', [[2n]]);
    await tx.upsert(t, 'main', [[3n], ['d']]);
    await tx.commit();
    const files = wh.listFiles(t).filter((f) => f.store === 'change');
    assert.equal(files.length, 1, 'five statements, one file');
    assert.ok(isLogPath(files[0]!.path), 'carried by the log');
    assert.equal(files[0]!.rowCount, 5);
    const idStats = files[0]!.columnStats['id']!;
    assert.deepEqual([String(idStats.min), String(idStats.max)], ['1', '3'], 'statistics over every statement\'s rows');
    const rows = (await readRows(wh, { table: t })).map((r) => `${r['id']}=${r['v']}`).sort();
    assert.deepEqual(rows, ['1=c', '3=d'], 'the later statement wins within the transaction');
    assert.deepEqual(await changes(wh, t), [
      { row: '1 +I a', offset: 0 }, { row: '2 +I b', offset: 1 }, { row: '1 +I c', offset: 2 },
      { row: '2 -D null', offset: 3 }, { row: '3 +I d', offset: 4 },
    ]);
  });
});

test('statements interleaved with another table\'s stay separate files where their offsets are not consecutive', async () => {
  await withWarehouse(async (wh, table) => {
    const a = await table('a');
    const b = await table('b');
    const tx = await wh.begin();
    await tx.upsert(a, 'main', [[1n], ['a1']]);
    await tx.upsert(a, 'main', [[2n], ['a2']]);
    await tx.upsert(b, 'main', [[10n], ['b1']]);
    await tx.upsert(a, 'main', [[3n], ['a3']]);
    await tx.commit();
    const shape = (t: TableMetadata) => wh.listFiles(t).filter((f) => f.store === 'change').map((f) => `${f.firstOffset}+${f.rowCount}`).sort();
    assert.deepEqual(shape(a), ['0+2', '3+1']);
    assert.deepEqual(shape(b), ['2+1']);
    assert.deepEqual((await changes(wh, a)).map((c) => `${c.row}@${c.offset}`), ['1 +I a1@0', '2 +I a2@1', '3 +I a3@3']);
    assert.deepEqual((await changes(wh, b)).map((c) => `${c.row}@${c.offset}`), ['10 +I b1@2']);
    const rows = (await readRows(wh, { table: a })).map((r) => `${r['id']}=${r['v']}`).sort();
    assert.deepEqual(rows, ['1=a1', '2=a2', '3=a3']);
  });
});

test('an append table\'s one-row statements commit one base file whose row ids run across them', async () => {
  await withWarehouse(async (wh) => {
    const t = await createAppendTable(wh, 'events');
    const tx = await wh.begin();
    for (const id of [1, 2, 3]) await tx.insert(t, 'main', columnsOf(t, [{ id, v: `e${id}` }]));
    await tx.commit();
    const files = wh.listFiles(t);
    assert.equal(files.length, 1, 'three statements, one file');
    assert.ok(isLogPath(files[0]!.path) && files[0]!.store === 'base' && files[0]!.rowCount === 3);
    const positions = (await rowsWithIds(wh, t)).map((r) => [r['id'], Number(r._row_id & 0xffffffffn)]).sort((a, b) => Number(a[0]) - Number(b[0]));
    assert.deepEqual(positions, [[1, 0], [2, 1], [3, 2]], 'positions continue from one statement\'s rows to the next');
    const del = await wh.begin();
    assert.equal(await deleteWhere(wh, t, del, (id) => id === 3), 1);
    await del.commit();
    assert.deepEqual((await liveRows(wh, t)).map((r) => `${r.id}=${r.v}`), ['1=e1', '2=e2'], 'a row of the last statement is deleted by its position');
  });
});
