import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../../src/lake/index.js';
import { Housekeeping } from '../../src/service/optimizing/housekeeping.js';
import { FakeClock, FakeOptimizingWarehouse } from './fake-optimizing-warehouse.js';
import { columnsOf, readRows } from '../lake/helpers/read-table.js';

/** Every file under the warehouse's log directory (each writer's segments). */
function segmentFiles(dir: string): string[] {
  return (readdirSync(join(dir, 'log'), { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

test('housekeeping releases the log segments nothing points into once expiry has dropped their file rows, and no row is lost', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-hk-log-'));
  const wh = await openWarehouse({ path: dir, log: { segmentBytes: 16 * 1024, releaseGraceMs: 0 } });
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 't', primaryKey: ['id'], properties: { 'snapshot.retain-last': '1', 'snapshot.max-age': '1ms' },
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
    });
    const expected = new Map<number, string>();
    for (let i = 0; i < 60; i++) {
      const tx = await wh.begin();
      const rows = Array.from({ length: 10 }, (_, j) => ({ id: i * 10 + j, v: `${i}-${j}-${'x'.repeat(100)}` }));
      await tx.upsert(t, 'main', columnsOf(t, rows));
      await tx.commit();
      for (const r of rows) expected.set(r.id, r.v);
    }
    const before = segmentFiles(dir).length;
    assert.ok(before >= 4, `the commits filled several segments (${before})`);
    await wh.optimize(t); // every change folded: only old snapshots still point into the log
    const hk = new Housekeeping({ warehouse: wh, random: () => 0 });
    await hk.runOnce();
    const after = segmentFiles(dir).length;
    assert.ok(after < before, `segments released: ${before} → ${after}`);
    assert.ok(after >= 1, 'the segment being written stays');
    const rows = (await readRows(wh, { table: t }) as { id: number; v: string }[]).sort((a, b) => a.id - b.id);
    assert.deepEqual(rows, [...expected].sort((a, b) => a[0] - b[0]).map(([id, v]) => ({ id, v })));
  } finally {
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('housekeeping releases log segments once a minute, whatever the tables', async () => {
  const clock = new FakeClock();
  const wh = new FakeOptimizingWarehouse(clock);
  wh.addTable('t');
  const hk = new Housekeeping({ warehouse: wh, clock, random: () => 0.5, checkEveryMs: 10_000 });
  hk.start();
  await clock.advance(0);
  assert.equal(wh.segmentReleases, 1);
  await clock.advance(50_000);
  assert.equal(wh.segmentReleases, 1, 'not again within the minute');
  await clock.advance(20_000);
  assert.equal(wh.segmentReleases, 2);
  await hk.stop();
});
