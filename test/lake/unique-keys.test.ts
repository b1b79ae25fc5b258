import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFloeError } from '../../src/common/floe-error.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

/** LakeTransaction.insert on a keyed table is PostgreSQL's INSERT: a live key is 23505 (check-unique-keys.ts). */

const fails = (code: string, detail?: string) => (e: unknown) => {
  assert.ok(isFloeError(e), String(e));
  assert.equal(e.sqlstate, code, `${e.sqlstate} ${e.message}`);
  if (detail !== undefined) assert.equal(e.detail, detail);
  return true;
};

async function keyed(wh: Warehouse, name = 'k'): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name, primaryKey: ['id'],
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
}

async function commitWith(wh: Warehouse, fn: (tx: Awaited<ReturnType<Warehouse['begin']>>) => Promise<void>): Promise<void> {
  const tx = await wh.begin();
  try { await fn(tx); await tx.commit(); } catch (e) { await tx.abort(); throw e; }
}

const ids = async (wh: Warehouse, t: TableMetadata) => (await readRows(wh, { table: t })).map((r) => [r.id, r.v]).sort((a, b) => Number(a[0]) - Number(b[0]));

test('insert of a live key, or a key twice in one call, is 23505 and writes nothing of the call', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await keyed(wh);
    await commitWith(wh, (tx) => tx.insert(t, 'main', columnsOf(t, [{ id: 1, v: 'a' }, { id: 2, v: 'b' }])));
    await assert.rejects(commitWith(wh, (tx) => tx.insert(t, 'main', columnsOf(t, [{ id: 3, v: 'c' }, { id: 1, v: 'x' }]))),
      fails('23505', 'Key (id)=(1) already exists.'));
    await assert.rejects(commitWith(wh, (tx) => tx.insert(t, 'main', columnsOf(t, [{ id: 7, v: 'c' }, { id: 7, v: 'x' }]))),
      fails('23505', 'Key (id)=(7) already exists.'));
    // earlier statement of the same transaction
    await assert.rejects(commitWith(wh, async (tx) => {
      await tx.insert(t, 'main', columnsOf(t, [{ id: 8, v: 'c' }]));
      await tx.insert(t, 'main', columnsOf(t, [{ id: 8, v: 'd' }]));
    }), fails('23505', 'Key (id)=(8) already exists.'));
    assert.deepEqual(await ids(wh, t), [[1, 'a'], [2, 'b']]);
    // a deleted key may be inserted again, in the same transaction or a later one
    await commitWith(wh, async (tx) => {
      await tx.deleteKeys(t, 'main', [[1]]);
      await tx.insert(t, 'main', columnsOf(t, [{ id: 1, v: 'again' }]));
    });
    await commitWith(wh, (tx) => tx.deleteKeys(t, 'main', [[2]]));
    await commitWith(wh, (tx) => tx.insert(t, 'main', columnsOf(t, [{ id: 2, v: 'B' }])));
    assert.deepEqual(await ids(wh, t), [[1, 'again'], [2, 'B']]);
    // upsert stays blind
    await commitWith(wh, (tx) => tx.upsert(t, 'main', columnsOf(t, [{ id: 2, v: 'up' }, { id: 2, v: 'up2' }])));
    assert.deepEqual(await ids(wh, t), [[1, 'again'], [2, 'up2']]);
  } finally { await cleanup(); }
});

test('the check sees base files after optimize, split nodes, and composite keys', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'c', primaryKey: ['a', 'b'], properties: { 'write.target-file-size': '4000' },
      columns: [{ name: 'a', type: { kind: 'int8' }, nullable: false }, { name: 'b', type: { kind: 'text' }, nullable: false }, { name: 'v', type: { kind: 'int4' }, nullable: true }],
    });
    const rows = Array.from({ length: 3000 }, (_, i) => ({ a: BigInt(i % 50), b: `k${i}`, v: i }));
    await commitWith(wh, (tx) => tx.insert(t, 'main', columnsOf(t, rows)));
    await wh.optimize(t);
    await wh.optimize(t);
    assert.ok(wh.bucketTree(t).filter((n) => n.isFrontier).length > 1, 'the node split');
    await assert.rejects(commitWith(wh, (tx) => tx.insert(t, 'main', columnsOf(t, [{ a: 7n, b: 'k2507', v: 0 }]))),
      fails('23505', 'Key (a, b)=(7, k2507) already exists.'));
    await commitWith(wh, (tx) => tx.insert(t, 'main', columnsOf(t, [{ a: 8n, b: 'k2507', v: 0 }])));
    assert.equal((await readRows(wh, { table: t })).length, 3001);
  } finally { await cleanup(); }
});

test('two transactions inserting the same new key: the later commit fails 23505', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await keyed(wh);
    await commitWith(wh, (tx) => tx.insert(t, 'main', columnsOf(t, [{ id: 1, v: 'a' }])));
    for (const firstCommits of ['older', 'younger'] as const) {
      const id = firstCommits === 'older' ? 10 : 11;
      const a = await wh.begin();
      const b = await wh.begin();
      await a.insert(t, 'main', columnsOf(t, [{ id, v: 'A' }]));
      await b.insert(t, 'main', columnsOf(t, [{ id, v: 'B' }]));
      const [first, second] = firstCommits === 'older' ? [a, b] : [b, a];
      await first.commit();
      await assert.rejects(second.commit(), fails('23505', `Key (id)=(${id}) already exists.`));
      assert.equal(second.state, 'aborted');
      assert.deepEqual((await ids(wh, t)).find((r) => r[0] === id), [id, first === a ? 'A' : 'B']);
    }
  } finally { await cleanup(); }
});

test('an insert a younger transaction has deleted in the meantime fails 40001 instead of vanishing', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await keyed(wh);
    const older = await wh.begin();
    await older.insert(t, 'main', columnsOf(t, [{ id: 5, v: 'mine' }]));
    const younger = await wh.begin();
    await younger.deleteKeys(t, 'main', [[5]]);
    await younger.commit();
    await assert.rejects(older.commit(), fails('40001'));
    // a younger delete already visible when the key is first checked
    const old2 = await wh.begin();
    const young2 = await wh.begin();
    await young2.deleteKeys(t, 'main', [[6]]);
    await young2.commit();
    await assert.rejects(old2.insert(t, 'main', columnsOf(t, [{ id: 6, v: 'x' }])), fails('40001'));
    await old2.abort();
  } finally { await cleanup(); }
});

test('update that moves keys is delete + insert checked at the end of the call', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await keyed(wh);
    await commitWith(wh, (tx) => tx.insert(t, 'main', columnsOf(t, [{ id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 3, v: 'c' }, { id: 9, v: 'z' }])));
    const before = columnsOf(t, [{ id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 3, v: 'c' }]);
    await commitWith(wh, (tx) => tx.update(t, 'main', before, columnsOf(t, [{ id: 2, v: 'a' }, { id: 3, v: 'b' }, { id: 4, v: 'c' }])));
    assert.deepEqual(await ids(wh, t), [[2, 'a'], [3, 'b'], [4, 'c'], [9, 'z']]);
    // a collision with a key outside the updated set
    await assert.rejects(commitWith(wh, (tx) => tx.update(t, 'main', columnsOf(t, [{ id: 4, v: 'c' }]), columnsOf(t, [{ id: 9, v: 'c' }]))),
      fails('23505', 'Key (id)=(9) already exists.'));
    // two rows moved onto one key
    await assert.rejects(commitWith(wh, (tx) => tx.update(t, 'main', columnsOf(t, [{ id: 2, v: 'a' }, { id: 3, v: 'b' }]), columnsOf(t, [{ id: 5, v: 'a' }, { id: 5, v: 'b' }]))),
      fails('23505', 'Key (id)=(5) already exists.'));
    // a swap
    await commitWith(wh, (tx) => tx.update(t, 'main', columnsOf(t, [{ id: 2, v: 'a' }, { id: 3, v: 'b' }]), columnsOf(t, [{ id: 3, v: 'a' }, { id: 2, v: 'b' }])));
    assert.deepEqual(await ids(wh, t), [[2, 'b'], [3, 'a'], [4, 'c'], [9, 'z']]);
    const changes = await wh.readChanges(t, undefined, wh.resolveSnapshot(t)!.id);
    const last = changes.filter((c) => c.snapshotId === wh.resolveSnapshot(t)!.id).flatMap((c) => c.batch.toArray().map((r) => `${r._change_type} ${r.id} ${r.v}`));
    assert.deepEqual(last, ['-D 2 a', '-D 3 b', '+I 3 a', '+I 2 b']);
  } finally { await cleanup(); }
});

test('ROLLBACK TO SAVEPOINT forgets the inserts after it', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await keyed(wh);
    const tx = await wh.begin();
    const mark = tx.savepoint();
    await tx.insert(t, 'main', columnsOf(t, [{ id: 1, v: 'a' }]));
    await tx.rollbackTo(mark);
    await tx.insert(t, 'main', columnsOf(t, [{ id: 1, v: 'b' }]));
    await tx.commit();
    assert.deepEqual(await ids(wh, t), [[1, 'b']]);
  } finally { await cleanup(); }
});
