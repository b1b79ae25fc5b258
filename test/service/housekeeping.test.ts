import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Housekeeping, ORPHAN_GRACE_MS } from '../../src/service/optimizing/housekeeping.js';
import { FakeClock, FakeOptimizingWarehouse } from './fake-optimizing-warehouse.js';

const MIN = 60_000;

test('expiry every minute with the table\'s retain-last and max-age; orphans hourly with the grace', async () => {
  const clock = new FakeClock();
  const wh = new FakeOptimizingWarehouse(clock);
  const t = wh.addTable('t', { 'snapshot.retain-last': '3', 'snapshot.max-age': '10min' });
  const hk = new Housekeeping({ warehouse: wh, clock, random: () => 0.5 });
  hk.start();
  await clock.advance(29_000);
  assert.equal(wh.expireCalls.length, 0, 'the first run is spread over the period');
  await clock.advance(2000);
  assert.equal(wh.expireCalls.length, 1);
  assert.deepEqual(wh.expireCalls[0], { tableId: t.id, olderThanMicros: clock.nowMicros() - 1000_000n - 600_000_000n, retainLast: 3 });
  await clock.advance(10 * MIN);
  assert.equal(wh.expireCalls.length, 11);
  assert.equal(wh.orphanCalls.length, 0);
  await clock.advance(30 * MIN);
  assert.equal(wh.orphanCalls.length, 1);
  const call = wh.orphanCalls[0]!;
  assert.ok(ORPHAN_GRACE_MS >= 2 * 30 * MIN, 'the grace outlasts any optimize process');
  assert.ok(call.olderThanMicros <= clock.nowMicros() - BigInt(ORPHAN_GRACE_MS) * 1000n);
  await hk.stop();
});

test('a failing table backs off and does not stop the others', async () => {
  const clock = new FakeClock();
  const wh = new FakeOptimizingWarehouse(clock);
  const bad = wh.addTable('bad');
  const good = wh.addTable('good');
  const realExpire = wh.expireSnapshots.bind(wh);
  wh.expireSnapshots = async (table, opts) => {
    if (table.id === bad.id) { wh.expireCalls.push({ tableId: table.id, olderThanMicros: opts.olderThanMicros, retainLast: opts.retainLast }); throw new Error('catalog busy'); }
    return realExpire(table, opts);
  };
  const warnings: string[] = [];
  const hk = new Housekeeping({ warehouse: wh, clock, random: () => 0, checkEveryMs: 1000, logger: { info: () => undefined, debug: () => undefined, warn: (_o, m) => warnings.push(m ?? '') } });
  hk.start();
  await clock.advance(10_000);
  const badCalls = wh.expireCalls.filter((c) => c.tableId === bad.id).length;
  // Tries at 0, +1 s, +2 s, +4 s (back-off), where good ran once (its next is a minute away).
  assert.equal(badCalls, 4);
  assert.equal(wh.expireCalls.filter((c) => c.tableId === good.id).length, 1);
  assert.ok(warnings.every((w) => /backing off/.test(w)) && warnings.length === 4);
  await hk.stop();
});
