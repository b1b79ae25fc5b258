/**
 * The change feed's answer for keyed tables (src/service/replication/change-feed.ts): what a
 * publication sends for blind upserts and deletes by key, on an input table (each commit key
 * by key, from the table at its parent and at itself; past 256 keys the snapshots are read
 * whole) and on a lookup table (its stored changelog, a key written twice sent twice).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commitLsn } from '../../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { readCommittedTransactions } from '../../../src/service/replication/change-feed.js';
import { kvTable } from '../../lake/helpers/keyed-table.js';
import { tempWarehouse } from '../../lake/helpers/read-table.js';

/** The changes of every transaction committed after `after`, as "kind id v" lines. */
async function sent(wh: Warehouse, t: TableMetadata, after: bigint): Promise<string[][]> {
  const { transactions } = await readCommittedTransactions(wh, [t], commitLsn(after + 1n), 1000);
  return transactions.map((x) => x.changes.map((c) => `${c.kind} ${String(c.row[0])} ${String(c.row[1])}`));
}

async function commit(wh: Warehouse, t: TableMetadata, upserts: readonly [number, string][], deletes: readonly number[] = []): Promise<void> {
  const tx = await wh.begin();
  if (upserts.length > 0) await tx.upsert(t, 'main', [upserts.map((r) => r[0]), upserts.map((r) => r[1])]);
  if (deletes.length > 0) await tx.deleteKeys(t, 'main', [[...deletes]]);
  await tx.commit();
}

for (const producer of ['input', 'lookup'] as const) {
  test(`a ${producer} table's blind upserts of existing keys are sent as updates, deletes of nothing not at all`, async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await kvTable(wh, 't', { 'changelog-producer': producer });
      await commit(wh, t, [[1, 'a'], [2, 'b']]);
      const start = wh.resolveSnapshot(t)!.id;
      await commit(wh, t, [[1, 'A'], [3, 'c']], [2, 99]);
      await commit(wh, t, [[3, 'x'], [3, 'y']]);
      assert.deepEqual(await sent(wh, t, start), [
        ['update 1 A', 'insert 3 c', 'delete 2 null'],
        // One statement writing a key twice: a lookup table stored both changes, an input table's commit is sent as what it did.
        producer === 'lookup' ? ['update 3 x', 'update 3 y'] : ['update 3 y'],
      ]);
    } finally {
      await cleanup();
    }
  });
}

test('an input table commit of more than 256 keys reads the snapshots whole and sends the same', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kvTable(wh, 't');
    const ids = Array.from({ length: 400 }, (_, i) => i);
    await commit(wh, t, ids.filter((i) => i % 2 === 0).map((i) => [i, 'old']));
    const start = wh.resolveSnapshot(t)!.id;
    await commit(wh, t, ids.map((i) => [i, 'new']), [1001]);
    const [changes] = await sent(wh, t, start);
    assert.deepEqual(changes, ids.map((i) => `${i % 2 === 0 ? 'update' : 'insert'} ${i} new`));
  } finally {
    await cleanup();
  }
});
