import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFloeError } from '../../src/common/floe-error.js';
import { commitEndLsn, commitLsn, firstSnapshotFrom, formatLsn, parseLsn } from '../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { columnsOf, tempWarehouse } from './helpers/read-table.js';

async function kv(wh: Warehouse): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name: 'kv', primaryKey: ['id'],
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
}

async function put(wh: Warehouse, t: TableMetadata, rows: { id: number; v: string }[]): Promise<bigint> {
  const tx = await wh.begin();
  await tx.upsert(t, 'main', columnsOf(t, rows));
  return (await tx.commit())!.id;
}

test('synthetic LSNs: a commit is S/0, its end S/1, and streaming from an end starts at the next snapshot', () => {
  assert.equal(formatLsn(commitLsn(26n)), '1A/0');
  assert.equal(formatLsn(commitEndLsn(26n)), '1A/1');
  assert.equal(parseLsn('1A/1'), commitEndLsn(26n));
  assert.equal(parseLsn('0/0'), 0n);
  assert.equal(parseLsn('nonsense'), undefined);
  assert.equal(firstSnapshotFrom(commitEndLsn(26n)), 27n);
  assert.equal(firstSnapshotFrom(commitLsn(26n)), 26n);
  assert.equal(firstSnapshotFrom(0n), 0n);
});

test('slots are durable, move forward only, and hold back expiry of the snapshots they have not confirmed', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    const s1 = await put(wh, t, [{ id: 1, v: 'a' }]);
    const slotAt = commitEndLsn(wh.replication.lastSnapshotId());
    wh.replication.createSlot({ name: 'keep', plugin: 'pgoutput', database: 'floe', restartLsn: slotAt, confirmedFlushLsn: slotAt, createdMicros: 0n });
    assert.throws(
      () => wh.replication.createSlot({ name: 'keep', plugin: 'pgoutput', database: 'floe', restartLsn: 0n, confirmedFlushLsn: 0n, createdMicros: 0n }),
      (e: unknown) => isFloeError(e) && e.sqlstate === '42710',
    );
    const s2 = await put(wh, t, [{ id: 2, v: 'b' }]);
    const s3 = await put(wh, t, [{ id: 3, v: 'c' }]);
    const far = BigInt(Date.now() + 60_000) * 1000n;
    // Without the slot everything but the head would go; the slot keeps s2 and s3 and s1 (their parent).
    const r1 = await wh.expireSnapshots(t, { olderThanMicros: far });
    assert.equal(r1.expiredSnapshots, 1, 'only the table\'s empty first snapshot expires');
    for (const id of [s1, s2, s3]) await wh.planScan({ table: t, at: { kind: 'snapshot', id } });
    assert.deepEqual((await wh.readChanges(t, s1, s3)).map((c) => c.snapshotId), [s2, s3]);

    wh.replication.confirmSlot('keep', commitEndLsn(s3));
    wh.replication.confirmSlot('keep', commitEndLsn(s1));
    assert.equal(wh.replication.listSlots()[0]!.confirmedFlushLsn, commitEndLsn(s3), 'a slot never moves back');
    await put(wh, t, [{ id: 4, v: 'd' }]);
    const r2 = await wh.expireSnapshots(t, { olderThanMicros: far });
    assert.equal(r2.expiredSnapshots, 2, 's1 and s2 are confirmed; s3 stays as the parent of what is not');
    await assert.rejects(wh.planScan({ table: t, at: { kind: 'snapshot', id: s2 } }), (e: unknown) => isFloeError(e) && e.sqlstate === '22023');
    await wh.planScan({ table: t, at: { kind: 'snapshot', id: s3 } });

    assert.equal(wh.replication.dropSlot('keep'), true);
    assert.equal(wh.replication.dropSlot('keep'), false);
    assert.deepEqual(wh.replication.listSlots(), []);
  } finally {
    await cleanup();
  }
});
