import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChangeBatch } from '../../../src/service/subscriptions/change-batch.js';
import { keyString } from '../../../src/service/subscriptions/value-identity.js';
import { readRows, tempWarehouse } from '../../lake/helpers/read-table.js';

// A batch's changes to a table without a key (REPLICA IDENTITY FULL source): each removal
// takes exactly one equal row, from the batch's own appended rows first, else from the
// table as the lake transaction sees it, across several writes of one transaction.

const BOTH = [0, 1];

test('removals take exactly one equal row each: appended in the batch, staged by an earlier write, or committed', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'bag', columns: [{ name: 'a', type: { kind: 'int4' }, nullable: true }, { name: 'b', type: { kind: 'text' }, nullable: true }],
    });
    assert.deepEqual(t.primaryKey, []);
    const sub = wh.createSubscription({
      name: 's', conninfo: 'host=x', publications: ['p'], slotName: 's', enabled: true, options: {},
      tables: [{ sourceSchema: 'public', sourceName: 'bag', tableId: t.id, state: 'ready' }],
    });
    const seed = await wh.begin();
    await seed.insert(t, 'main', [[1, 1, 1, null, null], ['x', 'x', 'x', null, null]]);
    await seed.commit();

    const missing: number[] = [];
    const batch = new ChangeBatch((table, rows) => { assert.equal(table.id, t.id); missing.push(rows); });
    batch.removeRow(t.id, [1, 'x'], BOTH);
    batch.append(t.id, [2, 'y'], BOTH);
    batch.removeRow(t.id, [2, 'y'], BOTH);
    assert.equal(batch.holdsKeyless(t.id), true);
    batch.removeRow(t.id, [null, null], BOTH);
    batch.removeRow(t.id, [9, 'none'], BOTH);
    batch.append(t.id, [3, 'z'], BOTH);
    batch.append(t.id, [3, 'z'], BOTH);
    await batch.flush(wh);
    assert.deepEqual(missing, [1], 'the row that never was');
    assert.equal(batch.holdsKeyless(t.id), false);

    // A second write in the same lake transaction sees the first one's rows and deletion vectors.
    batch.removeRow(t.id, [3, 'z'], BOTH);
    for (let i = 0; i < 3; i++) batch.removeRow(t.id, [1, 'x'], BOTH);
    batch.endTransaction(100n, 1n);
    await batch.commit(wh, sub.id);
    assert.deepEqual(missing, [1, 1], 'two of (1, x) were left for three removals');

    const rows = (await readRows(wh, { table: t })).map((r) => JSON.stringify([r.a, r.b])).sort();
    assert.deepEqual(rows, ['[3,"z"]', '[null,null]']);
    assert.equal(wh.listSubscriptions()[0]!.appliedLsn, 100n);
  } finally {
    await cleanup();
  }
});

test('value identity: NULL, NaN and the infinities are told apart; an object\'s fields in any order are one value', () => {
  assert.notEqual(keyString([NaN]), keyString([null]));
  assert.notEqual(keyString([Infinity]), keyString([-Infinity]));
  assert.notEqual(keyString([Infinity]), keyString([null]));
  assert.equal(keyString([null, 1]), keyString([null, 1]));
  assert.equal(keyString([{ months: 1, days: 2, micros: 3n }]), keyString([{ micros: 3n, days: 2, months: 1 }]));
  assert.notEqual(keyString([{ months: 1, days: 2, micros: 3n }]), keyString([{ months: 1, days: 2, micros: 4n }]));
});
