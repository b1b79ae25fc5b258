import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InlineOptimizingService } from '../../src/service/optimizing/inline-optimizing-service.js';
import { OptimizingScheduler } from '../../src/service/optimizing/optimizing-scheduler.js';
import { FakeClock, FakeOptimizingWarehouse, keyedMetrics } from './fake-optimizing-warehouse.js';

test('inline service: CALL optimize runs on the calling thread, records history and state; the views work; no background work', async () => {
  const clock = new FakeClock();
  const wh = new FakeOptimizingWarehouse(clock);
  const t = wh.addTable('t', { 'self-optimizing.read-amplification.max': '8' }, keyedMetrics({ changeFiles: 20, oldestChangeMicros: clock.nowMicros() - 30_000_000n }));
  const service = new InlineOptimizingService(wh, { clock, owner: 'me' });
  await clock.advance(60_000);
  assert.equal(wh.optimizeCalls.length, 0, 'nothing runs by itself');
  const [row] = service.tables();
  assert.equal(row!.status, 'pending');
  assert.equal(row!.readAmplification, 20);
  assert.equal(row!.readAmplificationMax, 8);
  assert.equal(row!.optimizingLagMs, 90_000);
  assert.ok(row!.healthScore < 60, String(row!.healthScore));
  const report = await service.optimizeNow(t, 'minor');
  assert.equal(report.trigger, 'call');
  assert.equal(report.status, 'success');
  assert.equal(report.filesIn, 2);
  assert.deepEqual(wh.optimizeCalls, [{ tableId: t.id, kind: 'minor', triggers: false, runNodeRewrite: false }]);
  assert.equal(service.history().length, 1);
  const after = service.tables()[0]!;
  assert.equal(after.status, 'idle');
  assert.equal(after.lastMinorMicros, clock.nowMicros());
  assert.equal(after.healthScore, 100);
  assert.deepEqual(service.groups().map((g) => [g.name, g.threads, g.tables]), [['default', 0, 1]]);
  wh.optimizeBehaviour.set(t.id, async () => { throw new Error('no space left on device'); });
  await assert.rejects(service.optimizeNow(t), /no space left/);
  assert.equal(service.history()[0]!.error, 'no space left on device');
  assert.equal(wh.states.get(t.id)!.consecutiveFailures, 1);
  assert.equal(wh.states.get(t.id)!.status, 'idle');
});

test('scheduler: a group with no threads runs CALL optimize inline', async () => {
  const clock = new FakeClock();
  const wh = new FakeOptimizingWarehouse(clock);
  const t = wh.addTable('t', {}, keyedMetrics({ changeFiles: 20 }));
  const scheduler = new OptimizingScheduler({ warehouse: wh, clock, owner: 'me', defaultThreads: 0 });
  scheduler.start();
  await clock.advance(5000);
  assert.equal(wh.optimizeCalls.length, 0, 'no threads: no background optimizing');
  const r = await scheduler.optimizeNow(t);
  assert.equal(r.trigger, 'call');
  assert.equal(wh.optimizeCalls.length, 1);
  await scheduler.stop();
});

test('group DDL through the service: default altered into the catalog, never dropped; a group in use is not dropped', () => {
  const clock = new FakeClock();
  const wh = new FakeOptimizingWarehouse(clock);
  const service = new InlineOptimizingService(wh, { clock, defaultThreads: 1 });
  service.alterGroup('default', { threads: 3 });
  assert.deepEqual(wh.listOptimizerGroups(), [{ name: 'default', threads: 3, schedulingPolicy: 'quota' }]);
  assert.throws(() => service.dropGroup('default'), (e: { sqlstate?: string }) => e.sqlstate === '2BP01');
  service.createGroup({ name: 'etl', threads: 2, schedulingPolicy: 'balanced' });
  wh.addTable('t', { 'self-optimizing.group': 'etl' });
  assert.throws(() => service.dropGroup('etl'), (e: { sqlstate?: string }) => e.sqlstate === '2BP01');
  assert.deepEqual(service.groups().map((g) => [g.name, g.threads, g.schedulingPolicy, g.tables]), [['default', 3, 'quota', 0], ['etl', 2, 'balanced', 1]]);
});
