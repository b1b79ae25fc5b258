import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Housekeeping } from '../../src/service/optimizing/housekeeping.js';
import { InlineOptimizingService } from '../../src/service/optimizing/inline-optimizing-service.js';
import { OptimizingScheduler } from '../../src/service/optimizing/optimizing-scheduler.js';
import type { ServiceLogger } from '../../src/service/optimizing/optimizing-warehouse.js';
import { FakeClock, FakeOptimizingWarehouse, keyedMetrics } from './fake-optimizing-warehouse.js';

/** The log lines every optimize and housekeeping process leaves, whoever ran it. */

interface Line { readonly level: 'debug' | 'info' | 'warn'; readonly msg: string; readonly fields: Record<string, unknown> }

function recordingLogger(): { logger: ServiceLogger; lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: Line['level']) => (obj: object, msg?: string) => { lines.push({ level, msg: msg ?? '', fields: obj as Record<string, unknown> }); };
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn') }, lines };
}

test('CALL optimize inline: a start line, then an end line with kind, outcome, duration and what it read and wrote; a failure is a warning', async () => {
  const clock = new FakeClock();
  const wh = new FakeOptimizingWarehouse(clock);
  const t = wh.addTable('t', {}, keyedMetrics({ changeFiles: 20 }));
  const { logger, lines } = recordingLogger();
  const service = new InlineOptimizingService(wh, { clock, owner: 'me', logger });
  const report = await service.optimizeNow(t, 'minor');
  assert.deepEqual(lines.map((l) => [l.level, l.msg]), [['info', 'optimize started'], ['info', 'optimize finished']]);
  assert.deepEqual(lines[0]!.fields, { table: 'public.t', kind: 'minor', trigger: 'call' });
  const end = lines[1]!.fields;
  assert.deepEqual(
    [end.table, end.kind, end.trigger, end.outcome, end.files_in, end.bytes_in, end.rows_in, end.files_out, end.bytes_out, end.rows_out],
    ['public.t', 'minor', 'call', 'success', report.filesIn, report.bytesIn, report.rowsIn, report.filesOut, report.bytesOut, report.rowsOut],
  );
  assert.equal(end.files_in, 2);
  assert.equal(typeof end.duration_ms, 'number');

  wh.optimizeBehaviour.set(t.id, async () => { throw new Error('no space left on device'); });
  await assert.rejects(service.optimizeNow(t), /no space left/);
  const failed = lines.at(-1)!;
  assert.deepEqual([failed.level, failed.msg, failed.fields.outcome, failed.fields.kind, failed.fields.error],
    ['warn', 'optimize failed', 'failed', 'minor', 'no space left on device']);
});

test('the scheduler\'s processes say their optimizer group and trigger, on its threads or inline when its group has none', async () => {
  for (const threads of [1, 0]) {
    const clock = new FakeClock();
    const wh = new FakeOptimizingWarehouse(clock);
    const t = wh.addTable('t', {}, keyedMetrics({ changeFiles: 1 }));
    const { logger, lines } = recordingLogger();
    const scheduler = new OptimizingScheduler({ warehouse: wh, clock, owner: 'me', defaultThreads: threads, logger });
    scheduler.start();
    const call = scheduler.optimizeNow(t, 'major');
    await clock.advance(1000);
    await call;
    await scheduler.stop();
    const ends = lines.filter((l) => l.msg === 'optimize finished');
    assert.equal(ends.length, 1, `threads ${threads}`);
    assert.deepEqual([ends[0]!.fields.group, ends[0]!.fields.trigger, ends[0]!.fields.kind, ends[0]!.fields.outcome], ['default', 'call', 'major', 'success']);
  }
});

test('housekeeping: each expiry and orphan removal ends with a line, debug when it removed nothing, info when it did, a warning when it failed', async () => {
  const clock = new FakeClock();
  const wh = new FakeOptimizingWarehouse(clock);
  wh.addTable('t');
  const { logger, lines } = recordingLogger();
  let expired = 0;
  const realExpire = wh.expireSnapshots.bind(wh);
  wh.expireSnapshots = async (table, opts) => ({ ...(await realExpire(table, opts)), expiredSnapshots: expired, deletedFiles: expired * 2 });
  const hk = new Housekeeping({ warehouse: wh, clock, random: () => 0, checkEveryMs: 1000, orphansEveryMs: 60_000, logger });
  hk.start();
  await clock.advance(1000);
  const first = lines.filter((l) => l.msg === 'housekeeping finished');
  assert.deepEqual(first.map((l) => [l.level, l.fields.kind, l.fields.table, l.fields.outcome]), [
    ['debug', 'expire-snapshots', 'public.t', 'success'], ['debug', 'remove-orphan-files', 'public.t', 'success'],
  ]);
  assert.deepEqual([first[0]!.fields.expired_snapshots, first[0]!.fields.deleted_files, typeof first[0]!.fields.duration_ms], [0, 0, 'number']);
  expired = 3;
  await clock.advance(60_000);
  const expiry = lines.filter((l) => l.msg === 'housekeeping finished' && l.fields.kind === 'expire-snapshots').at(-1)!;
  assert.deepEqual([expiry.level, expiry.fields.expired_snapshots, expiry.fields.deleted_files], ['info', 3, 6]);
  wh.housekeepingError = new Error('catalog is locked');
  await clock.advance(60_000);
  const failure = lines.find((l) => l.level === 'warn')!;
  assert.deepEqual([failure.msg, failure.fields.kind, failure.fields.outcome, failure.fields.err], ['housekeeping failed; backing off', 'expire-snapshots', 'failed', 'catalog is locked']);
  await hk.stop();
});
