import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFloeError } from '../../src/common/floe-error.js';
import { SEQ_LEASE_BLOCK, SeqLease } from '../../src/lake/catalog/seq-lease.js';
import { forEachCatalogBackend } from '../harness/catalog-backends.js';
import { createKeyedTable, oneChangeFileWrite as write } from '../harness/catalog-rows.js';

/*
 * Transaction seqs: what beginTxn promises whether a seq comes from a write of its own
 * (PostgreSQL) or from the connection's lease (SQLite, src/lake/catalog/seq-lease.ts). The
 * low watermark never passes a transaction that may still commit, and a transaction that
 * begins after another's commit orders after it.
 */

/** The end of a synchronous run: the catalog reads the database's version once per run. */
const nextRun = (): Promise<void> => new Promise((r) => setImmediate(r));

forEachCatalogBackend((backend) => {
  test('seqs grow; the low watermark stays at or below every open transaction and passes each once it commits or ends', async () => {
    const place = backend().place();
    const c = place.connect();
    try {
      const t = createKeyedTable(c, 't');
      await nextRun();
      const a = c.beginTxn('a', process.pid, 1n);
      const b = c.beginTxn('b', process.pid, 2n);
      const d = c.beginTxn('d', process.pid, 3n);
      assert.ok(a < b && b < d, `${a} < ${b} < ${d}`);
      assert.ok(c.lowWatermark() <= a);
      // SQLite: one row for the lease, whatever the number of transactions; PostgreSQL: one each.
      assert.equal(c.listTxns().length, backend().name === 'sqlite' ? 1 : 3);
      assert.ok(c.listTxns().some((r) => r.startedMicros <= 1n), 'a row starts no later than the oldest open transaction');

      c.commit([write(t, b, 'b.parquet')], 'b', 4n);
      assert.ok(c.lowWatermark() <= a, 'a is still open');
      c.endTxn('a', 5n);
      const w = c.lowWatermark();
      assert.ok(w > a && w <= d, `after a ends: ${a} < ${w} <= ${d}`);
      c.commit([write(t, d, 'd.parquet')], 'd', 5n);
      assert.ok(c.lowWatermark() > d, 'nothing open');
      // A commit that fails leaves its transaction open: it may retry.
      const e = c.beginTxn('e', process.pid, 6n);
      assert.throws(() => c.commit([write(t, e, 'e.parquet'), { ...write(t, e, 'e2.parquet'), expectHead: 0n }], 'e', 7n),
        (err: unknown) => isFloeError(err) && err.sqlstate === '40001');
      assert.ok(c.lowWatermark() <= e, 'the failed commit still holds the watermark');
      c.commit([write(t, e, 'e.parquet')], 'e', 8n);
      assert.ok(c.lowWatermark() > e);
    } finally {
      place.dispose();
    }
  });

  test('a transaction that begins after another connection\'s commit takes a higher seq than it', async () => {
    const place = backend().place();
    const c = place.connect();
    const sameThread = place.connect();
    const otherProcess = place.connectAsAnotherProcess();
    try {
      const t = createKeyedTable(c, 't');
      await nextRun();
      const first = c.beginTxn('first', process.pid, 1n);
      const other = otherProcess.beginTxn('other', 4242, 2n);
      otherProcess.commit([write(t, other, 'other.parquet')], 'other', 3n);
      await nextRun();
      const later = c.beginTxn('later', process.pid, 4n);
      assert.ok(later > other && other > first, `${first} < ${other} < ${later}`);
      // Another catalog of this thread, within one synchronous run.
      const mine = sameThread.beginTxn('mine', process.pid, 5n);
      sameThread.commit([write(t, mine, 'mine.parquet')], 'mine', 6n);
      const after = c.beginTxn('after', process.pid, 7n);
      assert.ok(after > mine && mine > later, `${later} < ${mine} < ${after}`);
    } finally {
      place.dispose();
    }
  });

  test('a closed connection leaves no transaction row behind to hold the watermark', async () => {
    const place = backend().place();
    const c = place.connect();
    const other = place.connectAsAnotherProcess();
    try {
      const t = createKeyedTable(c, 't');
      const seq = c.beginTxn('a', process.pid, 1n);
      c.commit([write(t, seq, 'a.parquet')], 'a', 2n);
      c.close();
      await nextRun();
      assert.deepEqual(other.listTxns(), []);
      assert.ok(other.lowWatermark() > seq);
    } finally {
      place.dispose();
    }
  });

  test('transactions whose row another process aborted as stale fail to commit (40001); later ones commit', async () => {
    const place = backend().place();
    const c = place.connect();
    const other = place.connectAsAnotherProcess();
    try {
      const t = createKeyedTable(c, 't');
      await nextRun();
      const stale = c.beginTxn('stale', process.pid, 1n);
      assert.deepEqual(other.abortStaleTxns(10n).length, 1);
      await nextRun();
      assert.throws(() => c.commit([write(t, stale, 'stale.parquet')], 'stale', 20n), (err: unknown) => isFloeError(err) && err.sqlstate === '40001');
      assert.equal(c.heartbeatTxn('stale', 21n), false);
      const next = c.beginTxn('next', process.pid, 22n);
      assert.ok(c.lowWatermark() <= next);
      c.commit([write(t, next, 'next.parquet')], 'next', 23n);
      assert.ok(c.lowWatermark() > next);
      // An idle lease's row is written again before its block is used once more.
      const beat = (): bigint => c.listTxns().reduce((m, r) => (r.heartbeatMicros > m ? r.heartbeatMicros : m), 0n);
      c.beginTxn('idle', process.pid, 100_000_000n, 1_000_000n);
      assert.equal(beat(), 100_000_000n);
    } finally {
      place.dispose();
    }
  });
});

test('a lease row write counts toward the block\'s freshness only once its catalog transaction commits', () => {
  const fresh = 15_000_000n;
  const written = (committed: boolean): bigint | undefined => {
    const lease = new SeqLease();
    lease.renewed('a', 100n, SEQ_LEASE_BLOCK, 0n, 'v');
    lease.writing(10_000_000n);
    lease.settle(committed);
    // 20 s after the block was taken, 10 s after the later write.
    return lease.take('b', 20_000_000n, 'v', fresh);
  };
  assert.equal(written(true), 101n, 'the committed write keeps the block fresh');
  assert.equal(written(false), undefined, 'a rolled-back write does not: the row may have been aborted meanwhile');
});
