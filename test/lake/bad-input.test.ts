import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, existsSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isFloeError } from '../../src/common/floe-error.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { executeScanTask } from '../../src/lake/index.js';
import { createScanPool } from '../../src/exec/index.js';
import { FileSlice } from '../../src/lake/storage/file-slice.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

function sqlstate(code: string | string[], text?: RegExp) {
  const codes = Array.isArray(code) ? code : [code];
  return (e: unknown) => {
    assert.ok(isFloeError(e), `not a FloeError: ${String(e)}`);
    assert.ok(codes.includes(e.sqlstate), `sqlstate ${e.sqlstate} (${e.message}), expected ${codes.join('|')}`);
    if (text !== undefined) assert.match(e.message, text);
    return true;
  };
}

async function kv(wh: Warehouse): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name: 'kv', primaryKey: ['id'],
    columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'n', type: { kind: 'int4' }, nullable: false }, { name: 's', type: { kind: 'text' }, nullable: true }],
  });
}

function dataFiles(dir: string, t: TableMetadata): string[] {
  const d = join(dir, 'data', String(t.id));
  return existsSync(d) ? readdirSync(d) : [];
}

test('NULL key, NULL in NOT NULL column and type mismatch are typed errors that write nothing', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    const head = wh.resolveSnapshot(t)!.id;
    const tx = await wh.begin();
    await assert.rejects(tx.upsert(t, 'main', [[1n, null], [1, 2], ['a', 'b']]), sqlstate('23502', /id/));
    await assert.rejects(tx.deleteKeys(t, 'main', [[null]]), sqlstate('23502'));
    await assert.rejects(tx.upsert(t, 'main', [[1n, 2n], [1, null], ['a', 'b']]), sqlstate('23502', /"n"/));
    await assert.rejects(tx.upsert(t, 'main', [[1n, 2n], ['x', 2], ['a', 'b']]), sqlstate(['42804', '22P02'], /"n"/));
    await assert.rejects(tx.upsert(t, 'main', [[1n, 2n], [1, 2], ['a', 5]]), sqlstate(['42804', '22P02'], /"s"/));
    // A good row after the failures, in the same transaction, splits nothing in half.
    await assert.rejects(tx.upsert(t, 'main', [[3n], [3]]), sqlstate('42601'));
    assert.deepEqual(dataFiles(dir, t), []);
    await tx.upsert(t, 'main', [[5n], [5], ['ok']]);
    await tx.commit();
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 5n, n: 5, s: 'ok' }]);
    assert.equal(wh.listFiles(t).length, 1);
    assert.notEqual(wh.resolveSnapshot(t)!.id, head);
  } finally { await cleanup(); }
});

test('unknown table, column, schema and ref', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    await assert.rejects(wh.planScan({ table: t, projection: ['nope'] }), sqlstate('42703', /nope/));
    await assert.rejects(wh.planScan({ table: t, filters: [{ column: 'nope', op: '=', value: 1 }] }), sqlstate('42703'));
    await assert.rejects(wh.createTable({ namespace: 'public', name: 'bad', columns: [{ name: 'a', type: { kind: 'int4' }, nullable: true }], primaryKey: ['b'] }), sqlstate('42703'));
    await assert.rejects(wh.createTable({ namespace: 'nowhere', name: 'x', columns: [{ name: 'a', type: { kind: 'int4' }, nullable: true }] }), sqlstate('3F000'));
    await assert.rejects(wh.createTable({ namespace: 'public', name: 'kv', columns: [{ name: 'a', type: { kind: 'int4' }, nullable: true }] }), sqlstate('42P07'));
    await assert.rejects(wh.dropTable('public', 'missing'), sqlstate('42P01'));
    await assert.rejects(wh.planScan({ table: t, at: { kind: 'ref', name: 'nobranch' } }), sqlstate('42704', /nobranch/));
    const tx = await wh.begin();
    await assert.rejects(tx.upsert(t, 'nobranch', [[1n], [1], ['a']]), sqlstate('42704'));
    await tx.abort();
    await wh.createBranch(t, 'b');
    await assert.rejects(wh.createBranch(t, 'b'), sqlstate('42710'));
    await wh.createTag(t, 'tg');
    await assert.rejects(wh.createTag(t, 'tg'), sqlstate('42710'));
    await wh.dropTable('public', 'kv');
    assert.equal(wh.getTable('public', 'kv'), undefined);
    await assert.rejects(wh.planScan({ table: t }), sqlstate('42P01'));
  } finally { await cleanup(); }
});

test('time travel older than retention and before the first snapshot', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    const tx = await wh.begin();
    await tx.upsert(t, 'main', [[1n], [1], ['a']]);
    const s1 = (await tx.commit())!;
    const tx2 = await wh.begin();
    await tx2.upsert(t, 'main', [[1n], [2], ['b']]);
    await tx2.commit();
    await wh.expireSnapshots(t, { olderThanMicros: BigInt(Date.now() + 1000) * 1000n, retainLast: 1 });
    await assert.rejects(wh.planScan({ table: t, at: { kind: 'snapshot', id: s1.id } }), sqlstate('22023', /retention/));
    await assert.rejects(wh.planScan({ table: t, at: { kind: 'timestamp', micros: s1.committedAtMicros } }), sqlstate('22023', /retention/));
    await assert.rejects(wh.planScan({ table: t, at: { kind: 'timestamp', micros: 5n } }), sqlstate('22023', /first snapshot/));
  } finally { await cleanup(); }
});

test('a missing or corrupt data file is an error naming the file', async () => {
  // Without the log store, so the commit writes a Parquet change file.
  const { wh, dir, cleanup } = await tempWarehouse({ log: false });
  try {
    const t = await kv(wh);
    const tx = await wh.begin();
    await tx.upsert(t, 'main', [[1n], [1], ['a']]);
    await tx.commit();
    const [f] = wh.listFiles(t);
    writeFileSync(join(dir, f!.path), 'this is not parquet');
    const plan = await wh.planScan({ table: t });
    const drain = async () => { for await (const b of executeScanTask(plan.tasks[0]!)) void b; };
    await assert.rejects(drain(), sqlstate(['XX001', '58030'], new RegExp(f!.path.replace(/[.]/g, '\\.'))));
    rmSync(join(dir, f!.path));
    await assert.rejects(drain(), sqlstate('58030', new RegExp(`${f!.path.replace(/[.]/g, '\\.')}.*file is missing`)));
    // The same in a pool worker, which reads synchronously.
    const pool = createScanPool({ threads: 1 });
    try {
      const inWorker = async () => { for await (const b of pool.run(plan.tasks[0]!)) void b; };
      await assert.rejects(inWorker(), sqlstate('58030', /file is missing/));
    } finally { await pool.close(); }
  } finally { await cleanup(); }
});

test('a data file deleted or cut short after the scan opened it is a FloeError naming it', async () => {
  const { dir, cleanup } = await tempWarehouse();
  try {
    const gone = new FileSlice(join(dir, 'gone.parquet'), 0, 10, 'data/1/gone.parquet');
    await assert.rejects(gone.arrayBuffer(), sqlstate('58030', /"data\/1\/gone\.parquet": file is missing/));
    writeFileSync(join(dir, 'short.parquet'), '12345');
    const short = new FileSlice(join(dir, 'short.parquet'), 0, 10, 'data/1/short.parquet');
    await assert.rejects(short.arrayBuffer(), sqlstate('XX001', /"data\/1\/short\.parquet": unexpected end of file/));
    assert.equal(Buffer.from(await short.slice(1, 4).arrayBuffer()).toString(), '234');
  } finally { await cleanup(); }
});
