/**
 * The change feed of an append table whose commits went through the log store: what a
 * publication sends is read from log-located base files and the deletion vectors on them,
 * whole rows for deletes (REPLICA IDENTITY FULL), one transaction per commit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commitLsn, isLogPath } from '../../../src/lake/index.js';
import { readCommittedTransactions } from '../../../src/service/replication/change-feed.js';
import { createAppendTable, deleteWhere, insertIds, updateWhere } from '../../lake/helpers/append-table.js';
import { tempWarehouse } from '../../lake/helpers/read-table.js';

test('an append table committed through the log sends its inserts, deletes and updates', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await createAppendTable(wh, 'a');
    await insertIds(wh, t, [1, 2]);
    const start = wh.resolveSnapshot(t)!.id;
    await insertIds(wh, t, [3, 4]);
    let tx = await wh.begin();
    await deleteWhere(wh, t, tx, (id) => id === 2 || id === 3);
    await tx.commit();
    tx = await wh.begin();
    await updateWhere(wh, t, tx, (id) => id === 4, 'new');
    await tx.commit();
    assert.ok(wh.listFiles(t).every((f) => isLogPath(f.path)), 'every commit stayed in the log');
    const { transactions } = await readCommittedTransactions(wh, [t], commitLsn(start + 1n), 1000);
    assert.deepEqual(transactions.map((x) => x.changes.map((c) => `${c.kind} ${c.row.map(String).join(',')}`).sort()), [
      ['insert 3,v3', 'insert 4,v4'],
      ['delete 2,v2', 'delete 3,v3'],
      ['delete 4,v4', 'insert 4,new'],
    ]);
  } finally {
    await cleanup();
  }
});
