import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FloeError } from '../../src/common/floe-error.js';
import { AdvisoryLockTable } from '../../src/session/advisory-lock-table.js';

const key = { classid: 0, objid: 5, objsubid: 1 as const };
const opts = (over: Partial<{ shared: boolean; xact: boolean; wait: boolean; signal: AbortSignal; lockTimeoutMs: number }> = {}) =>
  ({ shared: false, xact: false, wait: true, signal: undefined, lockTimeoutMs: 0, ...over });

test('waiters are granted in arrival order; a shared newcomer queues behind a waiting exclusive', async () => {
  const t = new AdvisoryLockTable();
  assert.equal(await t.acquire(1, key, opts({ shared: true })), true);
  const order: number[] = [];
  const excl = t.acquire(2, key, opts()).then(() => order.push(2));
  await new Promise((r) => setImmediate(r));
  // Shared would be compatible with the holder, but the exclusive waiter came first.
  assert.equal(await t.acquire(3, key, opts({ shared: true, wait: false })), false);
  const shared = t.acquire(3, key, opts({ shared: true })).then(() => order.push(3));
  assert.ok(t.release(1, key, true));
  await excl;
  assert.deepEqual(order, [2]);
  assert.ok(t.release(2, key, false));
  await shared;
  assert.deepEqual(order, [2, 3]);
  assert.deepEqual(t.rows().map((r) => [r.pid, r.mode, r.granted]), [[3, 'ShareLock', true]]);
});

test('a wait ends with lock_timeout (55P03) or the signal, and leaves no waiter behind', async () => {
  const t = new AdvisoryLockTable();
  await t.acquire(1, key, opts());
  await assert.rejects(t.acquire(2, key, opts({ lockTimeoutMs: 30 })), (e: FloeError) => e.sqlstate === '55P03' && e.message === 'canceling statement due to lock timeout');
  const abort = new AbortController();
  const waiting = t.acquire(2, key, opts({ signal: abort.signal }));
  abort.abort(new FloeError('57014', 'canceling statement due to user request'));
  await assert.rejects(waiting, (e: FloeError) => e.sqlstate === '57014');
  assert.deepEqual(t.rows().map((r) => [r.pid, r.granted]), [[1, true]]);
});

test('transaction holds go at transaction end, session holds are reentrant and stay', async () => {
  const t = new AdvisoryLockTable();
  await t.acquire(1, key, opts());
  await t.acquire(1, key, opts());
  await t.acquire(1, key, opts({ xact: true }));
  t.releaseAll(1, 'xact');
  assert.equal(await t.acquire(2, key, opts({ wait: false })), false);
  assert.ok(t.release(1, key, false));
  assert.equal(await t.acquire(2, key, opts({ wait: false })), false);
  assert.ok(t.release(1, key, false));
  assert.equal(t.release(1, key, false), false);
  assert.equal(await t.acquire(2, key, opts({ wait: false })), true);
  t.releaseAll(2, 'both');
  assert.deepEqual(t.rows(), []);
});
