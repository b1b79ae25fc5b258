import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { isLogPath } from '../../src/lake/log/log-locator.js';
import { LogTieringService, type LogTieringWarehouse } from '../../src/service/log-tiering/log-tiering-service.js';
import { columnsOf, readRows, tempWarehouse } from '../lake/helpers/read-table.js';
import { changeFilesToLogFiles } from '../lake/log/log-file-helper.js';

async function table(wh: Warehouse, name: string, properties: Record<string, string>): Promise<TableMetadata> {
  const t = await wh.createTable({
    namespace: 'public', name, primaryKey: ['id'], properties,
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
  for (let i = 0; i < 3; i++) {
    const tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, [{ id: i, v: `v${i}` }, { id: 100 + i, v: 'x' }]));
    await tx.commit();
  }
  return t;
}

const logFiles = (wh: Warehouse, t: TableMetadata): number => wh.listFiles(t).filter((f) => isLogPath(f.path)).length;

test('the tiering service tiers a table once its oldest log file passes log.tier-interval, or its log files log.tier-size', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const slow = await table(wh, 'slow', { 'log.tier-interval': '10s' });
    const big = await table(wh, 'big', { 'log.tier-interval': '1h', 'log.tier-size': '100' });
    const quiet = await table(wh, 'quiet', { 'log.tier-interval': '1h' });
    for (const t of [slow, big, quiet]) await changeFilesToLogFiles(dir, t);
    let now = BigInt(Date.now()) * 1000n;
    const debug: object[] = [];
    const service = new LogTieringService(wh, {
      clock: { nowMicros: () => now, setTimer: () => () => undefined },
      logger: { debug: (o) => debug.push(o), info: () => undefined, warn: () => undefined },
    });
    const expected = await Promise.all([slow, big, quiet].map((t) => readRows(wh, { table: t })));
    let round = await service.runOnce();
    assert.equal(round.tablesTiered, 1, 'only the table past its tier-size');
    assert.equal(logFiles(wh, big), 0);
    assert.ok(logFiles(wh, slow) > 0 && logFiles(wh, quiet) > 0);
    now += 11_000_000n;
    round = await service.runOnce();
    assert.equal(round.tablesTiered, 1, 'the table past its tier-interval');
    assert.equal(logFiles(wh, slow), 0);
    assert.ok(logFiles(wh, quiet) > 0);
    assert.ok(debug.some((o) => (o as { table?: string }).table === 'public.slow'), 'what it did is in the debug log');
    assert.deepEqual(await Promise.all([slow, big, quiet].map((t) => readRows(wh, { table: t }))), expected);
  } finally { await cleanup(); }
});

test('the service runs rounds on its timer and stops', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const t = await table(wh, 't', { 'log.tier-size': '1' });
    await changeFilesToLogFiles(dir, t);
    const service = new LogTieringService(wh, { pollMs: 10 });
    service.start();
    const deadline = Date.now() + 20_000;
    while (logFiles(wh, t) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await service.stop();
    assert.equal(logFiles(wh, t), 0);
  } finally { await cleanup(); }
});

test('a table an optimizer holds waits for a later round: until the claim is released, or its holder stops heartbeating', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const held = await table(wh, 'held', { 'log.tier-size': '1' });
    const abandoned = await table(wh, 'abandoned', { 'log.tier-size': '1' });
    const free = await table(wh, 'free', { 'log.tier-size': '1' });
    for (const t of [held, abandoned, free]) await changeFilesToLogFiles(dir, t);
    let now = BigInt(Date.now()) * 1000n;
    const lease = 60_000_000n;
    const claim = (t: TableMetadata, heartbeatMicros: bigint): void => {
      assert.ok(wh.tryClaimOptimizing(t.id, 'another-process', heartbeatMicros, lease));
      wh.saveOptimizingState({
        tableId: t.id, status: 'executing', statusSinceMicros: heartbeatMicros, owner: 'another-process', heartbeatMicros,
        lastMinorMicros: undefined, lastMajorMicros: undefined, lastFullMicros: undefined, consecutiveFailures: 0, nextAttemptMicros: undefined,
      });
    };
    claim(held, now);
    claim(abandoned, now - lease - 1n);
    const service = new LogTieringService(wh, { clock: { nowMicros: () => now, setTimer: () => () => undefined }, optimizerLeaseMicros: lease });
    const round = await service.runOnce();
    assert.equal(round.tablesTiered, 2, 'the free table and the one whose holder stopped heartbeating');
    assert.equal(logFiles(wh, free), 0);
    assert.equal(logFiles(wh, abandoned), 0);
    assert.ok(logFiles(wh, held) > 0, 'the held table waits');
    // The holder finishes: its claim goes back to idle.
    const state = wh.listOptimizingStates().find((s) => s.tableId === held.id)!;
    wh.saveOptimizingState({ ...state, status: 'idle', heartbeatMicros: now });
    now += 1_000_000n;
    assert.equal((await service.runOnce()).tablesTiered, 1);
    assert.equal(logFiles(wh, held), 0);
  } finally { await cleanup(); }
});

test('a round releases log segments at most every releaseEveryMs, and a forced round always does', async () => {
  let releases = 0;
  const warehouse = {
    listTables: () => [], listOptimizingStates: () => [],
    releaseLogSegments: async () => { releases++; return 0; },
  } as unknown as LogTieringWarehouse;
  let now = 1_800_000_000_000_000n;
  const service = new LogTieringService(warehouse, { clock: { nowMicros: () => now, setTimer: () => () => undefined }, releaseEveryMs: 30_000 });
  await service.runOnce();
  assert.equal(releases, 1, 'the first round releases');
  now += 29_000_000n;
  await service.runOnce();
  assert.equal(releases, 1, 'not again within 30 s');
  await service.runOnce(true);
  assert.equal(releases, 2, 'a forced round releases');
  now += 29_000_000n;
  await service.runOnce();
  assert.equal(releases, 2, '30 s are counted from the last release');
  now += 2_000_000n;
  await service.runOnce();
  assert.equal(releases, 3);
});
