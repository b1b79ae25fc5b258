import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openWarehouse } from '../../src/lake/index.js';
import type { Warehouse } from '../../src/lake/index.js';
import { readRows, tempWarehouse } from './helpers/read-table.js';
import { kvTable } from './helpers/keyed-table.js';

// CDC in's exactly-once rule in the lake (issue 27): a subscription's position is stored in
// the same catalog transaction as the rows it covers, through the log store or straight to
// the catalog, and survives a reopen (the log's replay path applies the same requests).

async function subscribe(wh: Warehouse, tableId: number) {
  return wh.createSubscription({
    name: 's', conninfo: 'host=x', publications: ['p'], slotName: 's', enabled: true, options: {},
    tables: [{ sourceSchema: 'public', sourceName: 't', tableId, state: 'init' }],
  });
}

for (const log of [undefined, false] as const) {
  test(`progress commits with its data and never moves back (${log === false ? 'no log' : 'log store'})`, async () => {
    const { wh, dir, cleanup } = await tempWarehouse(log === false ? { log } : {});
    let reopened: Warehouse | undefined;
    try {
      const t = await kvTable(wh, 't');
      const sub = await subscribe(wh, t.id);
      assert.equal(sub.appliedLsn, 0n);

      // The copy: rows and the table's sync state in one commit.
      let tx = await wh.begin();
      await tx.upsert(t, 'main', [[1, 2], ['a', 'b']]);
      tx.recordSubscriptionProgress({ subscriptionId: sub.id, synced: { lsn: 500n, tables: [{ schema: 'public', name: 't' }] } });
      await tx.commit();
      let now = wh.listSubscriptions()[0]!;
      assert.deepEqual(now.tables.map((x) => [x.state, x.syncLsn]), [['ready', 500n]]);
      assert.equal(now.appliedLsn, 0n, 'a copy does not move the applied position');

      // A streamed batch: rows and the applied LSN together.
      tx = await wh.begin();
      await tx.deleteKeys(t, 'main', [[1]]);
      tx.recordSubscriptionProgress({ subscriptionId: sub.id, appliedLsn: 900n, appliedSourceMicros: 123n });
      await tx.commit();
      now = wh.listSubscriptions()[0]!;
      assert.equal(now.appliedLsn, 900n);
      assert.equal(now.appliedSourceMicros, 123n);

      // An aborted batch stores nothing, and an older position never lowers the stored one.
      tx = await wh.begin();
      await tx.upsert(t, 'main', [[3], ['c']]);
      tx.recordSubscriptionProgress({ subscriptionId: sub.id, appliedLsn: 1000n });
      await tx.abort();
      assert.equal(wh.listSubscriptions()[0]!.appliedLsn, 900n);
      tx = await wh.begin();
      tx.recordSubscriptionProgress({ subscriptionId: sub.id, appliedLsn: 800n });
      await tx.commit();
      assert.equal(wh.listSubscriptions()[0]!.appliedLsn, 900n);

      // Source transactions that wrote nothing Floe keeps: the position alone.
      tx = await wh.begin();
      tx.recordSubscriptionProgress({ subscriptionId: sub.id, appliedLsn: 1200n });
      await tx.commit();
      assert.equal(wh.listSubscriptions()[0]!.appliedLsn, 1200n);

      await wh.close();
      reopened = await openWarehouse({ path: dir, ...(log === false ? { log } : {}) });
      const again = reopened.listSubscriptions()[0]!;
      assert.equal(again.appliedLsn, 1200n);
      assert.deepEqual((await readRows(reopened, { table: reopened.getTable('public', 't')! })).map((r) => r.id), [2]);
    } finally {
      await reopened?.close();
      await cleanup().catch(() => undefined);
    }
  });
}

test('subscriptions: names are unique, ALTER moves the generation and keeps table states, DROP removes', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kvTable(wh, 't');
    const u = await kvTable(wh, 'u');
    const sub = await subscribe(wh, t.id);
    await assert.rejects(async () => subscribe(wh, t.id), (e: Error & { sqlstate?: string }) => e.sqlstate === '42710');
    const tx = await wh.begin();
    tx.recordSubscriptionProgress({ subscriptionId: sub.id, synced: { lsn: 7n, tables: [{ schema: 'public', name: 't' }] } });
    await tx.commit();
    const altered = wh.alterSubscription('s', {
      enabled: false,
      tables: [{ sourceSchema: 'public', sourceName: 't', tableId: t.id, state: 'init' }, { sourceSchema: 'public', sourceName: 'u', tableId: u.id, state: 'init' }],
    });
    assert.equal(altered.generation, sub.generation + 1);
    assert.equal(altered.enabled, false);
    assert.deepEqual(altered.tables.map((x) => [x.sourceName, x.state, x.syncLsn]), [['t', 'ready', 7n], ['u', 'init', 0n]]);
    wh.saveSubscriptionError(sub.id, 'boom');
    assert.equal(wh.listSubscriptions()[0]!.lastError, 'boom');
    assert.throws(() => wh.alterSubscription('nope', { enabled: true }), (e: Error & { sqlstate?: string }) => e.sqlstate === '42704');
    wh.dropSubscription(sub.id);
    assert.deepEqual(wh.listSubscriptions(), []);
  } finally {
    await cleanup();
  }
});
