import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import assert from 'node:assert/strict';
import type { OptimizeOptions, OptimizeResult, TableMetadata } from '../../src/lake/index.js';
import { OptimizingScheduler } from '../../src/service/optimizing/optimizing-scheduler.js';
import type { OptimizingSchedulerOptions } from '../../src/service/optimizing/optimizing-scheduler.js';
import { FakeClock, FakeOptimizingWarehouse, keyedMetrics, settle } from './fake-optimizing-warehouse.js';

const MIN = 60_000;

function setup(opts: Partial<OptimizingSchedulerOptions> = {}) {
  const clock = new FakeClock();
  const wh = new FakeOptimizingWarehouse(clock);
  const scheduler = new OptimizingScheduler({ warehouse: wh, clock, owner: 'me', ...opts });
  return { clock, wh, scheduler };
}

/** An optimize that never finishes on its own (it only ends when aborted, if `honourAbort`). */
function hanging(honourAbort: boolean) {
  return (_t: unknown, opts: { signal?: AbortSignal }) => new Promise<OptimizeResult>((_, reject) => {
    if (honourAbort) opts.signal?.addEventListener('abort', () => reject(opts.signal!.reason as Error));
  });
}

test('each trigger makes the right kind due; a table with nothing to do is left alone', async () => {
  const { clock, wh, scheduler } = setup({ defaultThreads: 4 });
  const quiet = wh.addTable('quiet', {}, keyedMetrics({ changeFiles: 2 }));
  const fileCount = wh.addTable('file_count', { 'self-optimizing.minor.trigger.file-count': '4' }, keyedMetrics({ changeFiles: 4 }));
  const duplicates = wh.addTable('duplicates', {}, keyedMetrics({ changeFiles: 2, changeRows: 500, baseRows: 1000, baseBytes: 64 << 20 }));
  // the same share of a node under target / fragment-ratio (128MB / 8): minor's triggers look after it
  const smallDuplicates = wh.addTable('small_duplicates', {}, keyedMetrics({ changeFiles: 2, changeRows: 500, baseRows: 1000, baseBytes: 1 << 20 }));
  const full = wh.addTable('full', { 'self-optimizing.full.trigger.interval': '1h' }, keyedMetrics({ changeFiles: 1 }));
  scheduler.start();
  await clock.advance(0);
  await scheduler.idle();
  assert.deepEqual(wh.optimizedKinds(quiet), []);
  assert.deepEqual(wh.optimizedKinds(fileCount), ['minor']);
  assert.deepEqual(wh.optimizedKinds(duplicates), ['major']);
  assert.deepEqual(wh.optimizedKinds(smallDuplicates), []);
  assert.deepEqual(wh.optimizedKinds(full), ['full']);
  // The scheduler's processes pass the triggers, so the optimizer works only the due nodes.
  assert.ok(wh.optimizeCalls.every((c) => c.triggers));
  await scheduler.stop();
});

test('the minor interval fires with time alone, without a new commit', async () => {
  const { clock, wh, scheduler } = setup();
  const t = wh.addTable('t', { 'self-optimizing.minor.trigger.interval': '5min' }, keyedMetrics({ changeFiles: 1, oldestChangeMicros: clock.nowMicros() }));
  scheduler.start();
  await clock.advance(4 * MIN);
  assert.deepEqual(wh.optimizedKinds(t), []);
  await clock.advance(MIN + 1000);
  await scheduler.idle();
  assert.deepEqual(wh.optimizedKinds(t), ['minor']);
  await scheduler.stop();
});

test('a disabled table is skipped, and runs once enabled', async () => {
  const { clock, wh, scheduler } = setup();
  const t = wh.addTable('t', { 'self-optimizing.enabled': 'false' }, keyedMetrics({ changeFiles: 50 }));
  scheduler.start();
  await clock.advance(5000);
  assert.deepEqual(wh.optimizedKinds(t), []);
  assert.equal(scheduler.tables()[0]!.status, 'idle');
  wh.tablesById.set(t.id, { ...t, properties: {} });
  await clock.advance(1000);
  await scheduler.idle();
  assert.deepEqual(wh.optimizedKinds(t), ['minor']);
  await scheduler.stop();
});

test('metrics are re-read only when the head moves or files are swapped in place', async () => {
  const { clock, wh, scheduler } = setup();
  const t = wh.addTable('t', {}, keyedMetrics({ changeFiles: 1 }));
  scheduler.start();
  await clock.advance(0);
  const reads = wh.metricsReads;
  await clock.advance(10_000);
  assert.equal(wh.metricsReads, reads, 'ten ticks without a commit read no metrics');
  wh.commit(t, keyedMetrics({ changeFiles: 2 }));
  await clock.advance(1000);
  assert.equal(wh.metricsReads, reads + 1);
  // Tiering swaps the log files for one tiered file: no new head, a new file epoch.
  wh.swapFilesInPlace(t, keyedMetrics({ changeFiles: 1 }));
  await clock.advance(1000);
  assert.equal(wh.metricsReads, reads + 2);
  assert.equal(scheduler.tables()[0]!.readAmplification, 1, 'the table is shown with its files after the swap');
  await scheduler.stop();
});

test('after a compaction, which swaps files without moving the head, the table is judged by fresh metrics: no rerun, no pause', async () => {
  const { clock, wh, scheduler } = setup();
  const t = wh.addTable('big', {}, keyedMetrics({ changeFiles: 20 }));
  wh.optimizeBehaviour.set(t.id, async (table, opts) => {
    wh.metrics.set(table.id, keyedMetrics({ changeFiles: 1 })); // the head stays where it was
    return { kind: opts.kind ?? 'minor', snapshotId: undefined, nodesOptimized: 0, nodesSplit: 0, nodesMerged: 0, changeFilesFolded: 0,
      changeFilesCompacted: 20, baseFilesWritten: 0, filesIn: 20, bytesIn: 2000, rowsIn: 20, filesOut: 1, bytesOut: 1000, rowsOut: 20, lowWatermark: 0n, conflicts: 0 };
  });
  scheduler.start();
  await clock.advance(1000);
  await scheduler.idle();
  assert.equal(wh.optimizedKinds(t).length, 1);
  await clock.advance(5000);
  await scheduler.idle();
  assert.equal(wh.optimizedKinds(t).length, 1, 'stale metrics would have run it again, for nothing');
  // Changes pile up again: served at once, not after a nothing-done pause.
  wh.commit(t, keyedMetrics({ changeFiles: 20 }));
  await clock.advance(1000);
  await scheduler.idle();
  assert.equal(wh.optimizedKinds(t).length, 2);
  await scheduler.stop();
});

test('a run that did nothing is retried once the low watermark passes the one it planned at; runs that keep doing nothing back off', async () => {
  const { clock, wh, scheduler } = setup();
  const t = wh.addTable('big', {}, keyedMetrics({ changeFiles: 20 }));
  // Due by its change files, but they are above the watermark the run plans at: nothing to do.
  const nothing = async (_table: TableMetadata, opts: OptimizeOptions): Promise<OptimizeResult> => ({
    kind: opts.kind ?? 'minor', snapshotId: undefined, nodesOptimized: 0, nodesSplit: 0, nodesMerged: 0, changeFilesFolded: 0,
    changeFilesCompacted: 0, baseFilesWritten: 0, filesIn: 0, bytesIn: 0, rowsIn: 0, filesOut: 0, bytesOut: 0, rowsOut: 0,
    lowWatermark: wh.watermark, conflicts: 0,
  });
  wh.optimizeBehaviour.set(t.id, nothing);
  wh.watermark = 5n;
  const runs = async (ms: number) => { await clock.advance(ms); await scheduler.idle(); return wh.optimizedKinds(t).length; };
  scheduler.start();
  assert.equal(await runs(1000), 1);
  assert.equal(await runs(5000), 1, 'the watermark has not moved: nothing more could be done');
  wh.watermark = 6n; // the long query ended
  assert.equal(await runs(1000), 2, 'retried at once, not after a fixed 30 s');
  wh.watermark = 7n;
  assert.equal(await runs(1000), 2, 'the second run in a row that did nothing pauses 2 s');
  assert.equal(await runs(1000), 3);
  // The watermark stays: looked at again only after 30 s.
  assert.equal(await runs(29_000), 3);
  assert.equal(await runs(2000), 4);
  // A run that does something ends the streak: the next nothing-done run pauses 1 s again.
  wh.optimizeBehaviour.delete(t.id);
  wh.watermark = 8n;
  await runs(31_000);
  const afterWork = wh.optimizedKinds(t).length;
  wh.optimizeBehaviour.set(t.id, nothing);
  wh.commit(t, keyedMetrics({ changeFiles: 20 }));
  assert.equal(await runs(1000), afterWork + 1);
  wh.watermark = 9n;
  assert.equal(await runs(1000), afterWork + 2, 'a streak of one: 1 s');
  await scheduler.stop();
});

test('metrics with changes above the low watermark are re-read once the watermark passes them, without a commit', async () => {
  const { clock, wh, scheduler } = setup();
  const t = wh.addTable('t', {}, { ...keyedMetrics({ changeFiles: 3, foldable: 1 }), nextFoldableSeq: 10n });
  wh.watermark = 9n;
  scheduler.start();
  await clock.advance(0);
  const reads = wh.metricsReads;
  await clock.advance(5000);
  assert.equal(wh.metricsReads, reads, 'the watermark is still at or below the next change');
  wh.watermark = 10n;
  await clock.advance(1000);
  assert.equal(wh.metricsReads, reads, 'a change at seq 10 is foldable only below a watermark past it');
  wh.metrics.set(t.id, keyedMetrics({ changeFiles: 3 }));
  wh.watermark = 11n;
  await clock.advance(1000);
  assert.equal(wh.metricsReads, reads + 1);
  await clock.advance(5000);
  assert.equal(wh.metricsReads, reads + 1, 'every change foldable: nothing waits on the watermark');
  await scheduler.stop();
});

/** Three due tables in a one-thread group; returns the order they ran in. */
async function pickOrder(policy: 'quota' | 'balanced', configure: (wh: FakeOptimizingWarehouse, clock: FakeClock) => void): Promise<string[]> {
  const { clock, wh, scheduler } = setup({ defaultThreads: 1 });
  wh.groupRows.set('default', { name: 'default', threads: 1, schedulingPolicy: policy });
  configure(wh, clock);
  scheduler.start();
  for (let i = 0; i < 10 && wh.optimizeCalls.length < wh.tablesById.size; i++) {
    await clock.advance(1000);
    await scheduler.idle();
  }
  await scheduler.stop();
  return wh.optimizeCalls.map((c) => wh.tablesById.get(c.tableId)!.name);
}

test('quota: the lowest occupation/quota goes first; a table over its quota waits while others are pending', async () => {
  const order = await pickOrder('quota', (wh, clock) => {
    const now = clock.nowMicros();
    // All under read-amplification.max (16): no breach to jump the queue.
    const busy = wh.addTable('busy', { 'self-optimizing.quota': '0.1' }, keyedMetrics({ changeFiles: 15 }));
    const some = wh.addTable('some', { 'self-optimizing.quota': '0.5' }, keyedMetrics({ changeFiles: 13 }));
    wh.addTable('fresh', { 'self-optimizing.quota': '0.5' }, keyedMetrics({ changeFiles: 13 }));
    // The last hour's history: busy used 12 min of the thread (occupation 0.2 ≥ its quota 0.1),
    // some used 6 min (0.1 of a 0.5 quota), fresh nothing.
    const run = (tableId: number, minutes: number) => wh.recordOptimizingRun({
      tableId, kind: 'minor', status: 'success', trigger: 'scheduler', startedMicros: now - 30n * 60_000_000n, durationMs: minutes * MIN,
      nodes: 1, splits: 0, filesIn: 0, bytesIn: 0, rowsIn: 0, filesOut: 0, bytesOut: 0, rowsOut: 0, snapshotId: undefined, error: undefined,
    });
    run(busy.id, 12);
    run(some.id, 6);
  });
  assert.deepEqual(order, ['fresh', 'some', 'busy'], 'over quota runs last, once nothing else wants the thread');
});

test('balanced: the longest wait since the last optimize goes first, ties to the most pending change files', async () => {
  const order = await pickOrder('balanced', (wh, clock) => {
    const now = clock.nowMicros();
    const recent = wh.addTable('recent', {}, keyedMetrics({ changeFiles: 15 }));
    const old = wh.addTable('old', {}, keyedMetrics({ changeFiles: 13 }));
    wh.addTable('never_small', {}, keyedMetrics({ changeFiles: 13 }));
    wh.addTable('never_big', {}, keyedMetrics({ changeFiles: 14 }));
    const state = (tableId: number, last: bigint) => wh.saveOptimizingState({
      tableId, status: 'idle', statusSinceMicros: last, owner: 'x', heartbeatMicros: last, lastMinorMicros: last,
      lastMajorMicros: undefined, lastFullMicros: undefined, consecutiveFailures: 0, nextAttemptMicros: undefined,
    });
    state(recent.id, now - 60_000_000n);
    state(old.id, now - 3_600_000_000n);
  });
  assert.deepEqual(order, ['never_big', 'never_small', 'old', 'recent']);
});

for (const policy of ['quota', 'balanced'] as const) {
  test(`${policy}: a read-amplification breach goes first`, async () => {
    const order = await pickOrder(policy, (wh) => {
      // file-count due but under the target, and never optimized: first by either policy's own rule.
      wh.addTable('due', { 'self-optimizing.minor.trigger.file-count': '2' }, keyedMetrics({ changeFiles: 3 }));
      const breach = wh.addTable('breach', { 'self-optimizing.read-amplification.max': '8', 'self-optimizing.quota': '0.01' }, keyedMetrics({ changeFiles: 8 }));
      // It also used more than its quota this hour: only the breach rule puts it first.
      wh.recordOptimizingRun({
        tableId: breach.id, kind: 'minor', status: 'success', trigger: 'scheduler', startedMicros: wh.clock.nowMicros() - 600_000_000n, durationMs: 6 * MIN,
        nodes: 1, splits: 0, filesIn: 0, bytesIn: 0, rowsIn: 0, filesOut: 0, bytesOut: 0, rowsOut: 0, snapshotId: undefined, error: undefined,
      });
      wh.saveOptimizingState({
        tableId: breach.id, status: 'idle', statusSinceMicros: 0n, owner: 'x', heartbeatMicros: 0n, lastMinorMicros: wh.clock.nowMicros(),
        lastMajorMicros: undefined, lastFullMicros: undefined, consecutiveFailures: 0, nextAttemptMicros: undefined,
      });
    });
    assert.deepEqual(order, ['breach', 'due']);
  });
}

for (const policy of ['quota', 'balanced'] as const) {
  test(`${policy}: of several breaches, the one furthest over its target goes first`, async () => {
    const order = await pickOrder(policy, (wh) => {
      // Never optimized and the most change files: first by either policy's own rule, and only 1.25× its target.
      wh.addTable('slightly', { 'self-optimizing.read-amplification.max': '16' }, keyedMetrics({ changeFiles: 20 }));
      const far = wh.addTable('far', { 'self-optimizing.read-amplification.max': '8' }, keyedMetrics({ changeFiles: 18 }));
      wh.saveOptimizingState({
        tableId: far.id, status: 'idle', statusSinceMicros: 0n, owner: 'x', heartbeatMicros: 0n, lastMinorMicros: wh.clock.nowMicros(),
        lastMajorMicros: undefined, lastFullMicros: undefined, consecutiveFailures: 0, nextAttemptMicros: undefined,
      });
    });
    assert.deepEqual(order, ['far', 'slightly']);
  });
}

test('a planning error is recorded, backs off exponentially, never blocks another table, and resets on success', async () => {
  const { clock, wh, scheduler } = setup({ defaultThreads: 1 });
  const bad = wh.addTable('bad', {}, keyedMetrics({ changeFiles: 20 }));
  const good = wh.addTable('good', {}, keyedMetrics({ changeFiles: 13 }));
  let failing = true;
  wh.optimizeBehaviour.set(bad.id, async (table, opts) => {
    opts.onProgress?.({ phase: 'plan', nodesDone: 0, nodesTotal: 0 });
    if (failing) throw new Error('planning exploded');
    wh.optimizeBehaviour.delete(table.id);
    return wh.optimize(table, opts);
  });
  scheduler.start();
  await clock.advance(0);
  await scheduler.idle();
  // bad went first (more pending files) and failed; good ran on the next tick anyway.
  await clock.advance(100);
  await scheduler.idle();
  assert.deepEqual(wh.optimizedKinds(good), ['minor']);
  const failed = wh.runsOf(bad);
  assert.equal(failed.length, 1);
  assert.equal(failed[0]!.status, 'failed');
  assert.equal(failed[0]!.error, 'planning exploded');
  assert.equal(wh.states.get(bad.id)!.consecutiveFailures, 1);
  assert.equal(wh.states.get(bad.id)!.status, 'idle');
  // Back-off: 1 s, then 2 s, then 4 s between attempts (each at the first tick after it ends).
  for (let i = 0; i < 8; i++) {
    await clock.advance(1000);
    await scheduler.idle();
  }
  const started = wh.runsOf(bad).map((r) => Number(r.startedMicros) / 1e6);
  const gaps = started.slice(1).map((t, i) => t - started[i]!);
  assert.equal(gaps.length, 3, `attempts at ${started}`);
  gaps.forEach((g, i) => assert.ok(g >= 2 ** i && g < 2 ** i + 1.1, `gap ${i} was ${g} s`));
  assert.equal(wh.states.get(bad.id)!.consecutiveFailures, 4);
  failing = false;
  await clock.advance(8000);
  await scheduler.idle();
  assert.equal(wh.states.get(bad.id)!.consecutiveFailures, 0);
  assert.equal(wh.states.get(bad.id)!.nextAttemptMicros, undefined);
  assert.equal(wh.runsOf(bad).at(-1)!.status, 'success');
  await scheduler.stop();
});

test('a task error mid-execution is recorded with its text and the status returns to idle', async () => {
  const { clock, wh, scheduler } = setup();
  const t = wh.addTable('t', {}, keyedMetrics({ changeFiles: 20 }));
  const statuses: string[] = [];
  wh.optimizeBehaviour.set(t.id, async (_table, opts) => {
    opts.onProgress?.({ phase: 'plan', nodesDone: 0, nodesTotal: 1 });
    opts.onProgress?.({ phase: 'node', nodesDone: 0, nodesTotal: 1 });
    statuses.push(wh.states.get(t.id)!.status);
    throw new Error('worker died: out of memory');
  });
  scheduler.start();
  await clock.advance(0);
  await scheduler.idle();
  assert.deepEqual(statuses, ['executing']);
  const [run] = wh.runsOf(t);
  assert.equal(run!.status, 'failed');
  assert.equal(run!.error, 'worker died: out of memory');
  assert.equal(run!.trigger, 'scheduler');
  assert.equal(wh.states.get(t.id)!.status, 'idle');
  assert.equal(scheduler.tables()[0]!.healthScore < 100, true);
  await scheduler.stop();
});

test('a hanging process hits its deadline, is recorded, frees its thread, and the next table runs', async () => {
  for (const honourAbort of [true, false]) {
    const { clock, wh, scheduler } = setup({ defaultThreads: 1, deadlineMs: 10 * MIN, leaseMs: MIN });
    const stuck = wh.addTable('stuck', {}, keyedMetrics({ changeFiles: 30 }));
    const other = wh.addTable('other', {}, keyedMetrics({ changeFiles: 13 }));
    wh.optimizeBehaviour.set(stuck.id, hanging(honourAbort));
    scheduler.start();
    await clock.advance(9 * MIN);
    assert.deepEqual(wh.optimizedKinds(other), [], 'the one thread is busy with the stuck table');
    // The heartbeat keeps the claim alive while it runs (the lease is 1 min).
    assert.equal(wh.states.get(stuck.id)!.status, 'planning');
    assert.ok(clock.nowMicros() - wh.states.get(stuck.id)!.heartbeatMicros <= 60_000_000n);
    // Its retry (after the back-off) succeeds.
    wh.optimizeBehaviour.delete(stuck.id);
    await clock.advance(MIN + 1000);
    await scheduler.idle();
    await clock.advance(1000);
    await scheduler.idle();
    assert.deepEqual(wh.optimizedKinds(other), ['minor'], `honourAbort=${honourAbort}`);
    const [run] = wh.runsOf(stuck);
    assert.equal(run!.status, 'failed');
    assert.match(run!.error!, /deadline/);
    assert.equal(wh.runsOf(stuck).length, 2, 'retried after its back-off');
    await scheduler.stop();
  }
});

test('a claim abandoned by a dead process is retaken once its heartbeat lapses; a live one is left alone', async () => {
  const { clock, wh, scheduler } = setup({ leaseMs: MIN });
  const t = wh.addTable('t', {}, keyedMetrics({ changeFiles: 20 }));
  wh.saveOptimizingState({
    tableId: t.id, status: 'executing', statusSinceMicros: clock.nowMicros(), owner: 'dead-pid', heartbeatMicros: clock.nowMicros(),
    lastMinorMicros: undefined, lastMajorMicros: undefined, lastFullMicros: undefined, consecutiveFailures: 0, nextAttemptMicros: undefined,
  });
  scheduler.start();
  await clock.advance(30_000);
  assert.deepEqual(wh.optimizedKinds(t), [], 'a live claim of another process is respected');
  assert.equal(scheduler.tables()[0]!.status, 'executing');
  await clock.advance(31_000);
  await scheduler.idle();
  assert.deepEqual(wh.optimizedKinds(t), ['minor']);
  assert.equal(wh.states.get(t.id)!.owner, 'me');
  assert.equal(wh.states.get(t.id)!.status, 'idle');
  await scheduler.stop();
});

test('a claim held by a process of this host that is gone is retaken at once, without waiting out the lease', async () => {
  const { clock, wh, scheduler } = setup({ leaseMs: MIN });
  const held = (t: { id: number }, owner: string) => wh.saveOptimizingState({
    tableId: t.id, status: 'executing', statusSinceMicros: clock.nowMicros(), owner, heartbeatMicros: clock.nowMicros(),
    lastMinorMicros: undefined, lastMajorMicros: undefined, lastFullMicros: undefined, consecutiveFailures: 0, nextAttemptMicros: undefined,
  });
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  const orphaned = wh.addTable('orphaned', {}, keyedMetrics({ changeFiles: 20 }));
  const busy = wh.addTable('busy', {}, keyedMetrics({ changeFiles: 20 }));
  held(orphaned, `${hostname()}:${gone}`);
  held(busy, `${hostname()}:${process.pid}`);
  assert.deepEqual(scheduler.tables().map((r) => [r.table, r.status]), [['orphaned', 'pending'], ['busy', 'executing']], 'floe_optimizing reads the dead owner\'s claim as let go');
  scheduler.start();
  await clock.advance(1000);
  await scheduler.idle();
  assert.deepEqual([wh.optimizedKinds(orphaned), wh.optimizedKinds(busy)], [['minor'], []], 'a live process of this host keeps its claim');
  assert.equal(wh.states.get(orphaned.id)!.owner, 'me');
  await scheduler.stop();
});

test('a table naming a missing group stays pending, is reported once, and does not block others', async () => {
  const { clock, wh, scheduler } = setup();
  const lost = wh.addTable('lost', { 'self-optimizing.group': 'nope' }, keyedMetrics({ changeFiles: 30 }));
  const fine = wh.addTable('fine', {}, keyedMetrics({ changeFiles: 13 }));
  scheduler.start();
  await clock.advance(5000);
  await scheduler.idle();
  assert.deepEqual(wh.optimizedKinds(lost), []);
  assert.deepEqual(wh.optimizedKinds(fine), ['minor']);
  const runs = wh.runsOf(lost);
  assert.equal(runs.length, 1, 'reported once, not every tick');
  assert.equal(runs[0]!.error, 'optimizer group "nope" does not exist');
  assert.equal(scheduler.tables().find((r) => r.table === 'lost')!.status, 'pending');
  // Once the group exists, it runs there.
  scheduler.createGroup({ name: 'nope', threads: 1, schedulingPolicy: 'balanced' });
  await clock.advance(1000);
  await scheduler.idle();
  assert.deepEqual(wh.optimizedKinds(lost), ['minor']);
  await scheduler.stop();
});

test('groups: threads bound concurrent processes per group; each group runs on its own', async () => {
  const { clock, wh, scheduler } = setup({ defaultThreads: 1 });
  wh.groupRows.set('wide', { name: 'wide', threads: 2, schedulingPolicy: 'quota' });
  const tables = ['a', 'b', 'c'].map((n) => wh.addTable(n, { 'self-optimizing.group': 'wide' }, keyedMetrics({ changeFiles: 20 })));
  const d = wh.addTable('d', {}, keyedMetrics({ changeFiles: 20 }));
  // Each process waits until the test lets it finish (as the default optimize would).
  const releases = new Map<string, () => void>();
  for (const t of [...tables, d]) {
    wh.optimizeBehaviour.set(t.id, (table, opts) => new Promise<OptimizeResult>((resolve) => {
      releases.set(table.name, () => { wh.optimizeBehaviour.delete(table.id); void wh.optimize(table, opts).then(resolve); });
    }));
  }
  scheduler.start();
  await clock.advance(3000);
  assert.equal(wh.optimizeCalls.length, 3, 'two of wide, one of default');
  const g = Object.fromEntries(scheduler.groups().map((r) => [r.name, r]));
  assert.equal(g.wide!.tasksRunning, 2);
  assert.equal(g.wide!.tasksQueued, 1);
  assert.equal(g.default!.tasksRunning, 1);
  assert.equal(g.default!.tables, 1);
  assert.deepEqual([...releases.keys()].sort(), ['a', 'b', 'd']);
  releases.get('d')!();
  await clock.advance(1000);
  assert.equal(releases.has('c'), false, 'a free thread of default does not serve wide');
  releases.get('a')!();
  await clock.advance(1000);
  assert.equal(releases.has('c'), true, 'the freed thread of wide took its waiting table');
  for (const r of releases.values()) r();
  await scheduler.idle();
  await scheduler.stop();
});

test('CALL optimize runs on the group threads, bypasses triggers, and records trigger call', async () => {
  const { clock, wh, scheduler } = setup({ defaultThreads: 1 });
  const t = wh.addTable('t', { 'self-optimizing.enabled': 'false' }, keyedMetrics({ changeFiles: 1 }));
  scheduler.start();
  await clock.advance(0);
  const report = scheduler.optimizeNow(t, 'major');
  await clock.advance(100);
  const r = await report;
  assert.equal(r.kind, 'major');
  assert.equal(r.trigger, 'call');
  assert.equal(r.status, 'success');
  assert.deepEqual(wh.optimizeCalls, [{ tableId: t.id, kind: 'major', triggers: false, runNodeRewrite: false }]);
  assert.ok(wh.states.get(t.id)!.lastMajorMicros !== undefined);
  await scheduler.stop();
});

test('CALL optimize of a failing table throws its error and records it', async () => {
  const { clock, wh, scheduler } = setup();
  const t = wh.addTable('t');
  wh.optimizeBehaviour.set(t.id, async () => { throw new Error('disk full'); });
  scheduler.start();
  const rejected = assert.rejects(scheduler.optimizeNow(t), /disk full/);
  await clock.advance(100);
  await rejected;
  assert.equal(wh.runsOf(t)[0]!.error, 'disk full');
  await scheduler.stop();
});

test('stop aborts running processes, records them canceled with no back-off, releases their claims, and ticks no more', async () => {
  const { clock, wh, scheduler } = setup();
  const t = wh.addTable('t', {}, keyedMetrics({ changeFiles: 20 }));
  wh.optimizeBehaviour.set(t.id, hanging(true));
  scheduler.start();
  await clock.advance(0);
  assert.equal(wh.states.get(t.id)!.status, 'planning');
  await scheduler.stop();
  const state = wh.states.get(t.id)!;
  assert.equal(state.status, 'idle');
  assert.equal(state.consecutiveFailures, 0);
  assert.equal(state.nextAttemptMicros, undefined);
  assert.equal(state.lastMinorMicros, undefined);
  assert.equal(wh.runsOf(t)[0]!.status, 'canceled');
  assert.match(wh.runsOf(t)[0]!.error!, /stopping/);
  const calls = wh.optimizeCalls.length;
  wh.optimizeBehaviour.delete(t.id);
  await clock.advance(10_000);
  assert.equal(wh.optimizeCalls.length, calls);
});

test('worker pools: one per group with its threads, passed as runNodeRewrite, closed on stop', async () => {
  const made: { group: string; threads: number; closed: boolean }[] = [];
  const { clock, wh, scheduler } = setup({
    defaultThreads: 2,
    createPool: (g) => {
      const p = { group: g.name, threads: g.threads, closed: false };
      made.push(p);
      return { threads: g.threads, runNodeRewrite: async () => { throw new Error('not called by the fake optimize'); }, close: async () => { p.closed = true; } };
    },
  });
  wh.addTable('t', {}, keyedMetrics({ changeFiles: 20 }));
  scheduler.start();
  await clock.advance(0);
  await scheduler.idle();
  assert.deepEqual(wh.optimizeCalls.map((c) => c.runNodeRewrite), [true]);
  assert.deepEqual(made, [{ group: 'default', threads: 2, closed: false }]);
  await scheduler.stop();
  assert.equal(made[0]!.closed, true);
});

test('a tick survives a catalog that throws, and the service keeps going once it recovers', async () => {
  const { clock, wh, scheduler } = setup();
  const t = wh.addTable('t', {}, keyedMetrics({ changeFiles: 20 }));
  const real = wh.listOptimizingStates.bind(wh);
  let broken = true;
  wh.listOptimizingStates = () => { if (broken) throw new Error('database is locked'); return real(); };
  scheduler.start();
  await clock.advance(3000);
  assert.deepEqual(wh.optimizedKinds(t), []);
  broken = false;
  await clock.advance(1000);
  await scheduler.idle();
  assert.deepEqual(wh.optimizedKinds(t), ['minor']);
  await settle();
  await scheduler.stop();
});

test('altering a group\'s threads replaces its pool; the old one closes once its processes end', async () => {
  const made: { threads: number; closed: boolean }[] = [];
  const { clock, wh, scheduler } = setup({
    defaultThreads: 1,
    createPool: (g) => {
      const p = { threads: g.threads, closed: false };
      made.push(p);
      return { threads: g.threads, runNodeRewrite: async () => { throw new Error('not called by the fake optimize'); }, close: async () => { p.closed = true; } };
    },
  });
  const t = wh.addTable('t', {}, keyedMetrics({ changeFiles: 20 }));
  let finish!: () => void;
  wh.optimizeBehaviour.set(t.id, (table, opts) => new Promise<OptimizeResult>((resolve) => {
    finish = () => { wh.optimizeBehaviour.delete(table.id); void wh.optimize(table, opts).then(resolve); };
  }));
  scheduler.start();
  await clock.advance(0);
  assert.deepEqual(made, [{ threads: 1, closed: false }]);
  scheduler.alterGroup('default', { threads: 3 });
  wh.addTable('u', {}, keyedMetrics({ changeFiles: 20 }));
  await clock.advance(1000);
  assert.deepEqual(wh.optimizedKinds(wh.listTables()[1]!), ['minor']);
  assert.deepEqual(made.map((p) => p.threads), [1, 3], 'the new table runs on a pool of the new size');
  assert.equal(made[0]!.closed, false, 'the old pool still serves its running process');
  finish();
  await scheduler.idle();
  assert.equal(made[0]!.closed, true);
  await scheduler.stop();
  assert.equal(made[1]!.closed, true);
});

test('a scheduler registers in the optimizer list, heartbeats, reads as lost when it stops beating, and leaves at stop', async () => {
  const { clock, wh, scheduler } = setup({ leaseMs: MIN, groups: ['fast'] });
  scheduler.start();
  const [row] = scheduler.optimizers();
  assert.deepEqual([row?.id, row?.groups, row?.state, row?.pid], ['me', ['fast'], 'running', process.pid]);
  const started = row!.heartbeatMicros;
  await clock.advance(MIN / 2);
  assert.ok(scheduler.optimizers()[0]!.heartbeatMicros > started, 'heartbeats move last_heartbeat');
  // Forgotten by another process (as dead): the next beat registers it again.
  wh.dropOptimizer('me');
  await clock.advance(MIN / 4 + 1);
  assert.deepEqual(scheduler.optimizers().map((o) => o.id), ['me']);
  // A process that stopped beating (killed) reads as lost once its heartbeat passes the lease.
  wh.registerOptimizer({ id: 'dead:1', host: 'dead', pid: 1, groups: undefined, threads: 1, startedMicros: clock.nowMicros(), heartbeatMicros: clock.nowMicros() }, 0n);
  // One of this host whose process is gone reads as lost at once; one of another host only by its heartbeat.
  const gone = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
  wh.registerOptimizer({ id: 'gone', host: hostname(), pid: gone, groups: undefined, threads: 1, startedMicros: clock.nowMicros(), heartbeatMicros: clock.nowMicros() }, 0n);
  assert.deepEqual(scheduler.optimizers().map((o) => [o.id, o.state]), [['me', 'running'], ['dead:1', 'running'], ['gone', 'lost']]);
  await clock.advance(MIN + 1000);
  assert.deepEqual(scheduler.optimizers().map((o) => [o.id, o.state]), [['me', 'running'], ['dead:1', 'lost'], ['gone', 'lost']]);
  await scheduler.stop();
  assert.deepEqual(wh.listOptimizers().map((o) => o.id), ['dead:1', 'gone']);
});

test('with groups, a scheduler optimizes only the tables of those groups', async () => {
  const { clock, wh, scheduler } = setup({ groups: ['fast'] });
  wh.groupRows.set('fast', { name: 'fast', threads: 1, schedulingPolicy: 'quota' });
  const mine = wh.addTable('mine', { 'self-optimizing.group': 'fast' }, keyedMetrics({ changeFiles: 50 }));
  const other = wh.addTable('other', {}, keyedMetrics({ changeFiles: 50 }));
  scheduler.start();
  await clock.advance(0);
  await scheduler.idle();
  assert.deepEqual(wh.optimizedKinds(mine), ['minor']);
  assert.deepEqual(wh.optimizedKinds(other), []);
  await scheduler.stop();
});
