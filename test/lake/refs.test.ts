import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync, utimesSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isFloeError } from '../../src/common/floe-error.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

async function kv(wh: Warehouse): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name: 'kv', primaryKey: ['id'],
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
}

async function put(wh: Warehouse, t: TableMetadata, ref: string, rows: { id: number; v: string }[]): Promise<bigint> {
  const tx = await wh.begin();
  await tx.upsert(t, ref, columnsOf(t, rows));
  return (await tx.commit())!.id;
}

function sqlstate(code: string) {
  return (e: unknown) => isFloeError(e) && e.sqlstate === code;
}

test('branches: create from any snapshot, write, fast-forward (refusing non-ancestors), drop', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    const s1 = await put(wh, t, 'main', [{ id: 1, v: 'a' }]);
    await put(wh, t, 'main', [{ id: 2, v: 'b' }]);
    await wh.createBranch(t, 'old', { fromSnapshot: s1 });
    await wh.createBranch(t, 'dev');
    await assert.rejects(wh.createBranch(t, 'dev'), sqlstate('42710'));
    await wh.createBranch(t, 'dev', { ifNotExists: true });
    await put(wh, t, 'dev', [{ id: 3, v: 'dev' }]);
    await put(wh, t, 'old', [{ id: 9, v: 'old' }]);
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1, v: 'a' }, { id: 2, v: 'b' }]);
    assert.deepEqual(await readRows(wh, { table: t, at: { kind: 'ref', name: 'dev' } }), [{ id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 3, v: 'dev' }]);
    assert.deepEqual(await readRows(wh, { table: t, at: { kind: 'version', value: 'old' } }), [{ id: 1, v: 'a' }, { id: 9, v: 'old' }]);
    // Optimizing a branch does not touch main.
    await wh.optimize(t, { ref: 'dev' });
    assert.deepEqual(await readRows(wh, { table: t, at: { kind: 'ref', name: 'dev' } }), [{ id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 3, v: 'dev' }]);
    await assert.rejects(wh.fastForward(t, 'main', 'old'), sqlstate('55000'));
    await wh.fastForward(t, 'main', 'dev');
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 3, v: 'dev' }]);
    await wh.dropRef(t, 'old');
    await assert.rejects(wh.planScan({ table: t, at: { kind: 'ref', name: 'old' } }), sqlstate('42704'));
    await assert.rejects(wh.dropRef(t, 'old'), sqlstate('42704'));
    await wh.dropRef(t, 'old', { ifExists: true });
  } finally { await cleanup(); }
});

test('branchHeads: the head of a branch for every table that has it, moving with each commit', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    const other = await wh.createTable({ namespace: 'public', name: 'other', columns: [{ name: 'x', type: { kind: 'int4' }, nullable: true }] });
    await put(wh, t, 'main', [{ id: 1, v: 'a' }]);
    assert.equal(wh.branchHeads().get(t.id), wh.resolveSnapshot(t)!.id);
    assert.equal(wh.branchHeads('main').get(other.id), wh.resolveSnapshot(other)?.id);
    await wh.createBranch(t, 'dev');
    await wh.createTag(t, 'v1');
    const dev = await put(wh, t, 'dev', [{ id: 2, v: 'b' }]);
    assert.deepEqual([...wh.branchHeads('dev')], [[t.id, dev]]);
    assert.equal(wh.branchHeads('v1').size, 0, 'a tag is not a branch');
    const moved = await put(wh, t, 'main', [{ id: 3, v: 'c' }]);
    assert.equal(wh.branchHeads().get(t.id), moved);
    await wh.dropTable('public', 'other');
    assert.equal(wh.branchHeads().has(other.id), false);
  } finally { await cleanup(); }
});

test('tags are immutable, duplicate tags fail, version resolves id before name', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    const s1 = await put(wh, t, 'main', [{ id: 1, v: 'a' }]);
    await wh.createTag(t, 'v1');
    await assert.rejects(wh.createTag(t, 'v1'), sqlstate('42710'));
    await assert.rejects(wh.createBranch(t, 'v1'), sqlstate('42710'));
    await put(wh, t, 'main', [{ id: 1, v: 'b' }]);
    assert.deepEqual(await readRows(wh, { table: t, at: { kind: 'ref', name: 'v1' } }), [{ id: 1, v: 'a' }]);
    const tx = await wh.begin();
    await assert.rejects(tx.upsert(t, 'v1', columnsOf(t, [{ id: 5, v: 'x' }])), sqlstate('55000'));
    await tx.abort();
    // A tag named like a snapshot id: the id wins (Iceberg's rule).
    await wh.createTag(t, String(s1 + 1000n), { fromSnapshot: s1 });
    assert.equal(wh.resolveSnapshot(t, { kind: 'version', value: String(s1) })!.id, s1);
    assert.equal(wh.resolveSnapshot(t, { kind: 'version', value: String(s1 + 1000n) })!.id, s1);
    // A tag past its retention is dropped by expiration.
    await wh.createTag(t, 'brief', { retainMicros: 1n });
    await new Promise((r) => setTimeout(r, 5));
    await wh.expireSnapshots(t, { olderThanMicros: 0n });
    assert.equal(wh.listRefs(t).some((r) => r.name === 'brief'), false);
    assert.equal(wh.listRefs(t).some((r) => r.name === 'v1'), true);
    await wh.createTag(t, 'v1', { orReplace: true });
    assert.deepEqual(await readRows(wh, { table: t, at: { kind: 'ref', name: 'v1' } }), [{ id: 1, v: 'b' }]);
  } finally { await cleanup(); }
});

test('time travel by id and timestamp; rollback to snapshot and timestamp', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    const s1 = await put(wh, t, 'main', [{ id: 1, v: 'a' }]);
    const s1Time = wh.resolveSnapshot(t, { kind: 'snapshot', id: s1 })!.committedAtMicros;
    await new Promise((r) => setTimeout(r, 5));
    const s2 = await put(wh, t, 'main', [{ id: 2, v: 'b' }]);
    await put(wh, t, 'main', [{ id: 3, v: 'c' }]);
    assert.deepEqual(await readRows(wh, { table: t, at: { kind: 'timestamp', micros: s1Time } }), [{ id: 1, v: 'a' }]);
    await assert.rejects(wh.planScan({ table: t, at: { kind: 'timestamp', micros: 1n } }), sqlstate('22023'));
    await assert.rejects(wh.planScan({ table: t, at: { kind: 'snapshot', id: 999999n } }), sqlstate('42704'));
    await wh.rollbackToSnapshot(t, s2);
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1, v: 'a' }, { id: 2, v: 'b' }]);
    await wh.rollbackToTimestamp(t, s1Time);
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1, v: 'a' }]);
    // Writing after a rollback continues from the rolled-back head.
    await put(wh, t, 'main', [{ id: 4, v: 'd' }]);
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1, v: 'a' }, { id: 4, v: 'd' }]);
  } finally { await cleanup(); }
});

test('expiration keeps refs, retention and open transactions; deletes unreachable files; orphan cleanup has a grace period', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    const s1 = await put(wh, t, 'main', [{ id: 1, v: 'a' }]);
    await wh.createTag(t, 'keep', { fromSnapshot: s1 });
    const s2 = await put(wh, t, 'main', [{ id: 1, v: 'b' }]);
    const s3 = await put(wh, t, 'main', [{ id: 2, v: 'c' }]);
    await wh.optimize(t);
    const filesBefore = wh.listFiles(t, { kind: 'snapshot', id: s2 }).map((f) => f.path);
    const open = await wh.begin();
    await open.upsert(t, 'main', columnsOf(t, [{ id: 7, v: 'open' }]));
    // With a transaction open, everything since it began is kept.
    const far = BigInt(Date.now() + 60_000) * 1000n;
    const head = wh.resolveSnapshot(t)!.id;
    const r = await wh.expireSnapshots(t, { olderThanMicros: far });
    assert.ok(r.expiredSnapshots >= 2);
    assert.ok(r.deletedFiles >= 1);
    // The transaction's read snapshot survived: it still reads and commits.
    assert.deepEqual(await readRows(wh, { table: t, txn: open }), [{ id: 1, v: 'b' }, { id: 2, v: 'c' }, { id: 7, v: 'open' }]);
    await open.commit();
    const r2 = await wh.expireSnapshots(t, { olderThanMicros: far, retainLast: 1 });
    assert.equal(r2.expiredSnapshots, 1);
    await assert.rejects(wh.planScan({ table: t, at: { kind: 'snapshot', id: head } }), sqlstate('22023'));
    await assert.rejects(wh.planScan({ table: t, at: { kind: 'snapshot', id: s2 } }), sqlstate('22023'));
    await assert.rejects(wh.planScan({ table: t, at: { kind: 'snapshot', id: s3 } }), sqlstate('22023'));
    assert.ok(filesBefore.some((p) => !existsSync(join(dir, p))));
    // The tag still reads, and so does main.
    assert.deepEqual(await readRows(wh, { table: t, at: { kind: 'ref', name: 'keep' } }), [{ id: 1, v: 'a' }]);
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1, v: 'b' }, { id: 2, v: 'c' }, { id: 7, v: 'open' }]);
    for (const f of [...wh.listFiles(t), ...wh.listFiles(t, { kind: 'ref', name: 'keep' })]) assert.ok(existsSync(join(dir, f.path.split('#')[0]!)), f.path);

    // Orphans: an old unreferenced file goes, a young one stays, referenced files stay.
    const dataDir = join(dir, 'data', String(t.id));
    mkdirSync(dataDir, { recursive: true });
    const oldOrphan = join(dataDir, 'change-orphan-old.parquet');
    const youngOrphan = join(dataDir, 'change-orphan-young.parquet');
    writeFileSync(oldOrphan, 'x');
    writeFileSync(youngOrphan, 'x');
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(oldOrphan, past, past);
    const res = await wh.removeOrphanFiles(t, { olderThanMicros: BigInt(Date.now() - 600_000) * 1000n });
    assert.deepEqual(res.deletedFiles, [`data/${t.id}/change-orphan-old.parquet`]);
    assert.ok(existsSync(youngOrphan));
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1, v: 'b' }, { id: 2, v: 'c' }, { id: 7, v: 'open' }]);
  } finally { await cleanup(); }
});

test('expired snapshots are squashed out of the lineage; reads, branches and time travel stay right', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    const ids: bigint[] = [];
    for (let i = 0; i < 12; i++) ids.push(await put(wh, t, 'main', [{ id: i % 4, v: `v${i}` }]));
    await wh.createBranch(t, 'fork', { fromSnapshot: ids[5]! });
    await put(wh, t, 'fork', [{ id: 9, v: 'fork' }]);
    const midTime = wh.resolveSnapshot(t, { kind: 'snapshot', id: ids[7]! })!.committedAtMicros;
    await wh.optimize(t);
    await wh.expireSnapshots(t, { olderThanMicros: BigInt(Date.now() + 1000) * 1000n, retainLast: 2 });
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(join(dir, 'catalog.db'), { readonly: true });
    const rows = (db.prepare('SELECT COUNT(*) AS n FROM snapshots WHERE table_id = ?').get(t.id) as { n: number }).n;
    db.close();
    // main keeps 2, fork keeps 2 (its head and the fork point ids[5], which has two children).
    assert.ok(rows <= 5, `snapshot rows left: ${rows}`);
    const expected = [{ id: 0, v: 'v8' }, { id: 1, v: 'v9' }, { id: 2, v: 'v10' }, { id: 3, v: 'v11' }];
    assert.deepEqual(await readRows(wh, { table: t }), expected);
    assert.deepEqual(await readRows(wh, { table: t, at: { kind: 'ref', name: 'fork' } }),
      [{ id: 0, v: 'v4' }, { id: 1, v: 'v5' }, { id: 2, v: 'v2' }, { id: 3, v: 'v3' }, { id: 9, v: 'fork' }]);
    await assert.rejects(wh.planScan({ table: t, at: { kind: 'timestamp', micros: midTime } }), sqlstate('22023'));
    await put(wh, t, 'main', [{ id: 5, v: 'after' }]);
    await wh.optimize(t);
    assert.deepEqual(await readRows(wh, { table: t }), [...expected, { id: 5, v: 'after' }]);
  } finally { await cleanup(); }
});
