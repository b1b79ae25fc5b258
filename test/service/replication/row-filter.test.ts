/**
 * A filtered publication stream's changes (src/service/replication/row-filter.ts): PostgreSQL
 * 15's row-filter rules, an update turning into a delete or an insert as its row leaves or
 * enters what the role sees.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commitLsn, type TableMetadata } from '../../../src/lake/index.js';
import { readCommittedTransactions, type TableChange } from '../../../src/service/replication/change-feed.js';
import { filteredChanges } from '../../../src/service/replication/row-filter.js';
import { createAppendTable, deleteWhere, insertIds, updateWhere } from '../../lake/helpers/append-table.js';
import { kvTable } from '../../lake/helpers/keyed-table.js';
import { tempWarehouse } from '../../lake/helpers/read-table.js';

const keyed = { id: 1, name: 'docs', columns: [{ name: 'id' }, { name: 'owner' }], primaryKey: ['id'] } as unknown as TableMetadata;
const append = { id: 2, name: 'log', columns: [{ name: 'line' }, { name: 'owner' }], primaryKey: [] } as unknown as TableMetadata;

/** The role sees rows whose owner is alice; each batch's size is kept, to show one test per table and transaction. */
function aliceOnly(batches: number[]) {
  return () => async (rows: readonly (readonly unknown[])[]) => {
    batches.push(rows.length);
    return rows.map((r) => r[1] === 'alice');
  };
}

const show = (changes: readonly TableChange[]) =>
  changes.map((c) => `${c.table.name} ${c.kind} ${c.row.map(String).join(',')}${c.oldKey === undefined ? '' : ` from ${c.oldKey.map(String).join(',')}`}`);

test('an update is sent as what it does to the rows the role sees', async () => {
  const batches: number[] = [];
  const changes: TableChange[] = [
    { table: keyed, kind: 'update', row: [1, 'alice'], oldRow: [1, 'alice'] },
    { table: keyed, kind: 'update', row: [2, 'bob'], oldRow: [2, 'alice'] },
    { table: keyed, kind: 'update', row: [3, 'alice'], oldRow: [3, 'bob'] },
    { table: keyed, kind: 'update', row: [4, 'bob'], oldRow: [4, 'bob'] },
    // A key change leaving the view is a delete of the old key, entering it an insert of the new row.
    { table: keyed, kind: 'update', row: [6, 'bob'], oldKey: [5, null], oldRow: [5, 'alice'] },
    { table: keyed, kind: 'update', row: [8, 'alice'], oldKey: [7, null], oldRow: [7, 'bob'] },
    { table: keyed, kind: 'update', row: [10, 'alice'], oldKey: [9, null], oldRow: [9, 'alice'] },
  ];
  assert.deepEqual(show(await filteredChanges(changes, aliceOnly(batches))), [
    'docs update 1,alice',
    'docs delete 2,null',
    'docs insert 3,alice',
    'docs delete 5,null',
    'docs insert 8,alice',
    'docs update 10,alice from 9,null',
  ]);
  assert.deepEqual(batches, [14]);
});

test('inserts and deletes go by their row; a delete whose old row is unknown is withheld', async () => {
  const changes: TableChange[] = [
    { table: keyed, kind: 'insert', row: [1, 'alice'] },
    { table: keyed, kind: 'insert', row: [2, 'bob'] },
    { table: keyed, kind: 'delete', row: [1, null], oldRow: [1, 'alice'] },
    { table: keyed, kind: 'delete', row: [2, null], oldRow: [2, 'bob'] },
    { table: keyed, kind: 'delete', row: [3, null] },
    // An append table deletes by its whole row.
    { table: append, kind: 'delete', row: ['x', 'alice'], oldRow: ['x', 'alice'] },
    { table: append, kind: 'insert', row: ['y', 'bob'] },
  ];
  assert.deepEqual(show(await filteredChanges(changes, aliceOnly([]))), [
    'docs insert 1,alice',
    'docs delete 1,null',
    'log delete x,alice',
  ]);
});

test('an update whose old row is unknown goes by its new row and stays an update', async () => {
  const changes: TableChange[] = [
    { table: keyed, kind: 'update', row: [1, 'alice'] },
    { table: keyed, kind: 'update', row: [2, 'bob'] },
  ];
  assert.deepEqual(show(await filteredChanges(changes, aliceOnly([]))), ['docs update 1,alice']);
});

test('a table without a filter is sent whole, and is not tested', async () => {
  const batches: number[] = [];
  const filter = aliceOnly(batches)();
  const changes: TableChange[] = [
    { table: keyed, kind: 'insert', row: [1, 'bob'] },
    { table: append, kind: 'insert', row: ['y', 'bob'] },
    { table: append, kind: 'insert', row: ['z', 'alice'] },
  ];
  const sent = await filteredChanges(changes, (t) => (t === append ? filter : undefined));
  assert.deepEqual(show(sent), ['docs insert 1,bob', 'log insert z,alice']);
  assert.deepEqual(batches, [2]);
});

// What the filter decides on: each update's and delete's whole old row, from the lookup
// changelog's -U and -D, from an input table's parent snapshot, from an append table's -D.
for (const producer of ['input', 'lookup'] as const) {
  test(`a ${producer} table's updates and deletes carry the old row`, async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await kvTable(wh, 't', { 'changelog-producer': producer });
      let tx = await wh.begin();
      await tx.upsert(t, 'main', [[1, 2, 3], ['a', 'b', 'c']]);
      await tx.commit();
      const start = wh.resolveSnapshot(t)!.id;
      tx = await wh.begin();
      await tx.upsert(t, 'main', [[1], ['A']]);
      await tx.update(t, 'main', [[2], ['b']], [[12], ['B']]);
      await tx.deleteKeys(t, 'main', [[3]]);
      await tx.commit();
      const { transactions } = await readCommittedTransactions(wh, [t], commitLsn(start + 1n), 1000);
      assert.deepEqual(transactions.map((x) => x.changes.map((c) => `${c.kind} ${c.row.map(String).join(',')} was ${c.oldRow?.map(String).join(',')}`)), [
        ['update 1,A was 1,a', 'update 12,B was 2,b', 'delete 3,null was 3,c'],
      ]);
    } finally {
      await cleanup();
    }
  });
}

test("an append table's deletes, and the delete half of its updates, carry the old row", async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await createAppendTable(wh, 'a');
    await insertIds(wh, t, [1, 2]);
    const start = wh.resolveSnapshot(t)!.id;
    const tx = await wh.begin();
    await deleteWhere(wh, t, tx, (id) => id === 1);
    await updateWhere(wh, t, tx, (id) => id === 2, 'new');
    await tx.commit();
    const { transactions } = await readCommittedTransactions(wh, [t], commitLsn(start + 1n), 1000);
    assert.deepEqual(transactions.map((x) => x.changes.map((c) => `${c.kind} ${c.row.map(String).join(',')} was ${c.oldRow?.map(String).join(',')}`).sort()), [
      ['delete 1,v1 was 1,v1', 'delete 2,v2 was 2,v2', 'insert 2,new was undefined'],
    ]);
  } finally {
    await cleanup();
  }
});
