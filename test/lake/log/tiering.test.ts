import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFloeError } from '../../../src/common/floe-error.js';
import { decodeKeyMoves } from '../../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { isLogPath } from '../../../src/lake/log/log-locator.js';
import { columnsOf, readRows, tempWarehouse, type Row } from '../helpers/read-table.js';
import { changeFilesToLogFiles, changeRows } from './log-file-helper.js';

/*
 * Tiering rewrites log files into Parquet change files holding several commits, in place.
 * It must change nothing any snapshot reads: every snapshot, time travel into the middle
 * of a tiered file's commits, a branch made between two of them, table_changes, the key
 * checks and the optimizer read the same before and after.
 */

const sqlstate = (code: string) => (e: unknown) => isFloeError(e) && e.sqlstate === code;

async function kv(wh: Warehouse, name: string): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name, primaryKey: ['id'], properties: { 'bucket.target-rows': '8' },
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
}

async function upsert(wh: Warehouse, t: TableMetadata, rows: readonly Row[], ref = 'main'): Promise<bigint> {
  const tx = await wh.begin();
  await tx.upsert(t, ref, columnsOf(t, rows));
  return (await tx.commit())!.id;
}

async function del(wh: Warehouse, t: TableMetadata, ids: readonly number[], ref = 'main'): Promise<bigint> {
  const tx = await wh.begin();
  await tx.deleteKeys(t, ref, [[...ids]]);
  return (await tx.commit())!.id;
}


/** main: c1..c2, branch b at c2, main: c3..c5, b: c6; all of it in log files (one base under c1's rows). */
async function history(wh: Warehouse, dir: string, t: TableMetadata): Promise<{ snaps: bigint[]; mid: bigint }> {
  const snaps: bigint[] = [];
  snaps.push(await upsert(wh, t, Array.from({ length: 30 }, (_, i) => ({ id: i, v: `a${i}` }))));
  await wh.optimize(t);
  snaps.push(await upsert(wh, t, [{ id: 1, v: 'b1' }, { id: 40, v: 'b40' }, { id: 41, v: 'b41' }]));
  const mid = snaps.at(-1)!;
  await wh.createBranch(t, 'b', { fromSnapshot: mid });
  snaps.push(await del(wh, t, [1, 2, 40]));
  snaps.push(await upsert(wh, t, [{ id: 1, v: 'c1' }, { id: 3, v: 'c3' }, { id: 50, v: 'c50' }]));
  snaps.push(await upsert(wh, t, [{ id: 3, v: 'd3' }, { id: 51, v: 'd51' }]));
  snaps.push(await upsert(wh, t, [{ id: 41, v: 'branch' }, { id: 60, v: 'branch' }], 'b'));
  await changeFilesToLogFiles(dir, t);
  return { snaps, mid };
}

async function everything(wh: Warehouse, t: TableMetadata, snaps: readonly bigint[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const id of snaps) out.push(await readRows(wh, { table: t, at: { kind: 'snapshot', id } }));
  out.push(await readRows(wh, { table: t }), await readRows(wh, { table: t, at: { kind: 'ref', name: 'b' } }));
  for (const id of [1, 2, 3, 40, 41, 60]) {
    out.push(await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: id }] }));
    out.push(await readRows(wh, { table: t, at: { kind: 'ref', name: 'b' }, filters: [{ column: 'id', op: '=', value: id }] }));
    out.push(await readRows(wh, { table: t, at: { kind: 'snapshot', id: snaps[2]! }, filters: [{ column: 'id', op: '=', value: id }] }));
  }
  out.push(changeRows(await wh.readChanges(t, undefined, snaps[4]!)), changeRows(await wh.readChanges(t, snaps[1], snaps[3]!)));
  out.push(changeRows(await wh.readChanges(t, undefined, snaps[5]!)));
  return out;
}

function tieredFiles(wh: Warehouse, t: TableMetadata, ref = 'main'): number {
  return wh.listFiles(t, { kind: 'ref', name: ref }).filter((f) => f.store === 'change' && !isLogPath(f.path)).length;
}

test('tiering changes no snapshot\'s result: time travel into a tiered file, a branch made between its commits, table_changes', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh, 't');
    const { snaps } = await history(wh, dir, t);
    const before = await everything(wh, t, snaps);
    const epoch = wh.fileEpochs().get(t.id) ?? 0;
    const head = wh.branchHeads().get(t.id);
    const result = await wh.tierLogFiles(t);
    assert.ok(result.filesIn > result.filesOut && result.filesOut > 0, JSON.stringify(result));
    // No new snapshot, so the head stays; the file epoch moves (the optimizer's metrics are re-read by it).
    assert.equal(wh.branchHeads().get(t.id), head);
    assert.ok((wh.fileEpochs().get(t.id) ?? 0) > epoch, 'the file epoch moved');
    assert.equal(wh.logBacklog(t).files, 0);
    assert.equal(wh.listFiles(t).filter((f) => isLogPath(f.path)).length, 0, 't$files lists no log file at the head');
    assert.ok(tieredFiles(wh, t) > 0 && tieredFiles(wh, t, 'b') > 0);
    assert.deepEqual(await everything(wh, t, snaps), before);
    // Tiering again finds nothing to do.
    assert.equal((await wh.tierLogFiles(t)).filesIn, 0);
  } finally { await cleanup(); }
});

test('tiered files fold through the optimizer, on main and on a branch that sees only some of their commits', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh, 't');
    const { snaps } = await history(wh, dir, t);
    const before = await everything(wh, t, snaps);
    await wh.tierLogFiles(t);
    await wh.optimize(t, { ref: 'b' });
    await wh.optimize(t);
    assert.equal(tieredFiles(wh, t), 0);
    assert.equal(tieredFiles(wh, t, 'b'), 0);
    const after = await everything(wh, t, snaps);
    assert.deepEqual(after.slice(0, snaps.length + 2), before.slice(0, snaps.length + 2));
  } finally { await cleanup(); }
});

test('key checks on tiered files: 23505 only for keys the branch sees; a pinned snapshot inside a tiered file conflicts only with newer commits', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh, 't');
    await history(wh, dir, t);
    // Two read-modify-write transactions pinned at main's head; then one more commit, by a
    // transaction that began before them (tiering takes only seqs below the low watermark).
    const theirs = await wh.begin();
    const clean = await wh.begin();
    clean.markReadModifyWrite(t, 'main');
    await clean.upsert(t, 'main', columnsOf(t, [{ id: 3, v: 'mine' }])); // 3 was written before the pin only
    const clash = await wh.begin();
    clash.markReadModifyWrite(t, 'main');
    await clash.upsert(t, 'main', columnsOf(t, [{ id: 70, v: 'mine' }]));
    await theirs.upsert(t, 'main', columnsOf(t, [{ id: 70, v: 'theirs' }]));
    await theirs.commit();
    await changeFilesToLogFiles(dir, t);
    await wh.tierLogFiles(t); // the pinned head's commit and the newer one now share tiered files
    await assert.rejects(clash.commit(), sqlstate('40001'));
    await clean.commit();
    // c3 inserted 50 on main only; b was branched before it.
    let tx = await wh.begin();
    await assert.rejects(tx.insert(t, 'main', columnsOf(t, [{ id: 50, v: 'x' }])), sqlstate('23505'));
    await tx.abort();
    tx = await wh.begin();
    await tx.insert(t, 'b', columnsOf(t, [{ id: 50, v: 'on b' }]));
    await assert.rejects(tx.insert(t, 'b', columnsOf(t, [{ id: 60, v: 'x' }])), sqlstate('23505'));
    await tx.abort();
    tx = await wh.begin();
    await tx.insert(t, 'b', columnsOf(t, [{ id: 50, v: 'on b' }]));
    await tx.commit();
    assert.deepEqual((await readRows(wh, { table: t, at: { kind: 'ref', name: 'b' }, filters: [{ column: 'id', op: '=', value: 50 }] })), [{ id: 50, v: 'on b' }]);
    assert.deepEqual((await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: 3 }] })), [{ id: 3, v: 'mine' }]);
  } finally { await cleanup(); }
});

test('expiring (and squashing) commits a tiered file holds leaves the head reading the same', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh, 't');
    for (let i = 0; i < 5; i++) await upsert(wh, t, [{ id: i, v: `v${i}` }, { id: 10 + i, v: `w${i}` }]);
    await del(wh, t, [2]);
    await changeFilesToLogFiles(dir, t);
    await wh.tierLogFiles(t);
    const head = await readRows(wh, { table: t });
    const point = await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: 3 }] });
    const r = await wh.expireSnapshots(t, { olderThanMicros: BigInt(Date.now() + 1000) * 1000n, retainLast: 1 });
    assert.ok(r.expiredSnapshots >= 4);
    assert.equal(wh.listSnapshots(t).length, 1);
    assert.deepEqual(await readRows(wh, { table: t }), head);
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: 3 }] }), point);
    await wh.optimize(t);
    assert.deepEqual(await readRows(wh, { table: t }), head);
  } finally { await cleanup(); }
});

/**
 * A commit's change rows as table_changes reads them, in order, and the (old id, new id) of
 * each key change its key-moves summary records, found by the rows' transaction offsets.
 */
async function commitChanges(wh: Warehouse, t: TableMetadata, sid: bigint): Promise<{ rows: unknown[]; moves: unknown[] }> {
  const snap = wh.listSnapshots(t).find((s) => s.id === sid)!;
  const byOffset = new Map<number, Row>();
  const rows: unknown[] = [];
  for (const piece of await wh.readChanges(t, snap.parentId, sid)) {
    changeRows([piece]).forEach((row, r) => {
      rows.push([row._change_type, row.id, row.v]);
      if (piece.firstOffset !== undefined) byOffset.set(piece.firstOffset + r, row);
    });
  }
  const moves = [...decodeKeyMoves(snap.summary)].map(([d, i]) => [byOffset.get(d)?.id, byOffset.get(i)?.id]);
  return { rows, moves: moves.sort((a, b) => Number(a[0]) - Number(b[0])) };
}

test('a key-changing UPDATE across partitions reads back paired and in its own order once tiered: tiered rows keep their transaction offsets', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    // Four partitions by a hash of the key: a key change mostly moves its row to another partition's file.
    const t = await wh.createTable({
      namespace: 'public', name: 't', primaryKey: ['id'], partitionBy: [{ sourceColumn: 'id', transform: { kind: 'bucket', buckets: 4 }, name: 'id_bucket' }],
      properties: {}, columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
    });
    await upsert(wh, t, Array.from({ length: 40 }, (_, i) => ({ id: i, v: `a${i}` })));
    await wh.optimize(t);
    const ids = [1, 2, 3, 4, 5, 6];
    const tx = await wh.begin();
    const before = ids.map((id) => ({ id, v: `a${id}` }));
    await tx.update(t, 'main', columnsOf(t, before), columnsOf(t, ids.map((id) => ({ id: 100 + id, v: `moved${id}` }))));
    const moved = (await tx.commit())!.id;
    await upsert(wh, t, [{ id: 7, v: 'later' }, { id: 200, v: 'later' }]);
    await changeFilesToLogFiles(dir, t);
    const files = wh.listFiles(t).filter((f) => f.store === 'change' && f.addedIn === moved);
    assert.ok(files.length >= 2 && files.every((f) => isLogPath(f.path)), `the update wrote log files of several partitions (${files.length})`);
    const logged = await commitChanges(wh, t, moved);
    assert.deepEqual(logged.moves, ids.map((id) => [id, 100 + id]));

    const result = await wh.tierLogFiles(t);
    assert.ok(result.filesOut >= 2, JSON.stringify(result));
    assert.equal(wh.logBacklog(t).files, 0);
    assert.deepEqual(await commitChanges(wh, t, moved), logged, 'the same rows, in the same order, with the same pairs');
  } finally { await cleanup(); }
});
