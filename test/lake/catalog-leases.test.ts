import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FloeError } from '../../src/common/floe-error.js';
import type { SqlCatalog } from '../../src/lake/catalog/sql-catalog.js';
import { forEachCatalogBackend } from '../harness/catalog-backends.js';

/*
 * Leases in the catalog, on both catalog databases. A durable replication slot is marked
 * with the connection that streams it, so another process refuses it; and one process at a
 * time runs a subscription: the one holding its runner lease in the
 * catalog. The lease is taken atomically across processes, kept by heartbeats, taken over
 * once its holder stops heartbeating, and given up on stop. A table's copy is recorded once:
 * a second copy's commit (a runner that lost its lease mid-copy) fails with 40001.
 */

function subscription(c: SqlCatalog, name: string): number {
  return c.createSubscription({
    name, conninfo: 'host=127.0.0.1', publications: ['p'], slotName: name, enabled: true, options: {},
    tables: [{ sourceSchema: 'public', sourceName: 'src', tableId: 16384, state: 'init' }],
  }).id;
}

forEachCatalogBackend((backend) => {
  test('runner leases: one holder across processes, heartbeats, take-over after the lease, release, drop', () => {
    const place = backend().place();
    const a = place.connect();
    const b = place.connectAsAnotherProcess();
    try {
      const id = subscription(a, 's1');
      const lease = 10_000_000n;
      assert.equal(a.claimSubscriptionRunner(id, 'host-a:1', 1_000_000n, lease), true);
      assert.equal(b.claimSubscriptionRunner(id, 'host-b:2', 2_000_000n, lease), false, 'a live lease refuses another owner');
      assert.equal(a.claimSubscriptionRunner(id, 'host-a:1', 9_000_000n, lease), true, 'its owner heartbeats it');
      assert.equal(b.claimSubscriptionRunner(id, 'host-b:2', 18_000_000n, lease), false, 'nine seconds after the heartbeat: still held');
      assert.deepEqual(b.listSubscriptionRunners(), [{ subscriptionId: id, owner: 'host-a:1', heartbeatMicros: 9_000_000n }]);
      assert.equal(b.claimSubscriptionRunner(id, 'host-b:2', 19_000_001n, lease), true, 'past the lease: taken over');
      assert.equal(a.claimSubscriptionRunner(id, 'host-a:1', 19_500_000n, lease), false, 'the old holder\'s heartbeat finds it taken');
      a.releaseSubscriptionRunner(id, 'host-a:1');
      assert.equal(a.listSubscriptionRunners()[0]?.owner, 'host-b:2', 'a release by a former holder changes nothing');
      b.releaseSubscriptionRunner(id, 'host-b:2');
      assert.deepEqual(a.listSubscriptionRunners(), []);
      assert.equal(a.claimSubscriptionRunner(id, 'host-a:1', 19_600_000n, lease), true, 'released: taken at once');
      a.dropSubscription(id);
      assert.deepEqual(b.listSubscriptionRunners(), [], 'DROP SUBSCRIPTION drops its lease');
      assert.equal(b.claimSubscriptionRunner(id, 'host-b:2', 30_000_000n, lease), false, 'a dropped subscription cannot be taken');
    } finally {
      place.dispose();
    }
  });

  test('a table\'s copy is recorded once: a second copy of it fails 40001 and leaves the first', () => {
    const place = backend().place();
    const a = place.connect();
    const b = place.connectAsAnotherProcess();
    try {
      const id = subscription(a, 's2');
      const synced = (lsn: bigint) => ({ subscriptionId: id, synced: { lsn, tables: [{ schema: 'public', name: 'src' }] } });
      a.recordSubscriptionProgress(synced(100n), 1n);
      assert.throws(() => b.recordSubscriptionProgress(synced(200n), 2n),
        (e) => e instanceof FloeError && e.sqlstate === '40001' && /copied by another runner/.test(e.message));
      assert.deepEqual(b.listSubscriptions()[0]!.tables.map((t) => [t.state, t.syncLsn]), [['ready', 100n]]);
    } finally {
      place.dispose();
    }
  });

  test('replication slot holders: a live mark of another connection is returned, renewed by its holder, lapses, is released and dropped with the slot', () => {
    const place = backend().place();
    const a = place.connect();
    const b = place.connectAsAnotherProcess();
    try {
      a.replication.createSlot({ name: 's1', plugin: 'pgoutput', database: 'floe', restartLsn: 1n, confirmedFlushLsn: 1n, createdMicros: 1n });
      const lease = 10_000_000n;
      assert.equal(a.replication.holdSlot('s1', 'host-a:1:x', 41, 1_000_000n, lease), undefined);
      assert.equal(b.replication.holdSlot('s1', 'host-b:2:y', 77, 2_000_000n, lease), 41, 'held: the holder\'s pid');
      assert.equal(a.replication.holdSlot('s1', 'host-a:1:x', 42, 2_000_000n, lease), 41, 'another connection of the same process is another holder');
      assert.equal(a.replication.holdSlot('s1', 'host-a:1:x', 41, 5_000_000n, lease), undefined, 'renewed');
      assert.deepEqual(b.replication.listSlotHolders(), [{ slotName: 's1', owner: 'host-a:1:x', pid: 41, heartbeatMicros: 5_000_000n }]);
      assert.equal(b.replication.holdSlot('s1', 'host-b:2:y', 77, 15_000_001n, lease), undefined, 'lapsed: taken');
      a.replication.releaseSlot('s1', 'host-a:1:x', 41);
      assert.equal(a.replication.listSlotHolders()[0]?.pid, 77, 'a former holder\'s release changes nothing');
      b.replication.releaseSlot('s1', 'host-b:2:y', 77);
      assert.deepEqual(a.replication.listSlotHolders(), []);
      a.replication.holdSlot('s1', 'host-a:1:x', 41, 16_000_000n, lease);
      assert.equal(b.replication.dropSlot('s1'), true);
      assert.deepEqual(a.replication.listSlotHolders(), [], 'dropping the slot drops its mark');
    } finally {
      place.dispose();
    }
  });
});
