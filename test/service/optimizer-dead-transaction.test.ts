/**
 * A process killed with a transaction open (a gateway SIGKILLed under a client's BEGIN)
 * leaves that transaction in the catalog, and its start seq holds the low watermark: no
 * change committed after it may be folded until it is aborted as stale. The scheduler
 * alone never aborts one (metrics read the watermark as it is, and only foldable changes
 * make a table due), so it is housekeeping's snapshot expiry (every minute) that sweeps
 * it; the service must then fold what was held back, with nobody calling anything
 * (issue 23: "make stuck impossible by design"). Both run here as `floe serve` composes
 * them, on one fake clock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openWarehouse } from '../../src/lake/index.js';
import { Housekeeping } from '../../src/service/optimizing/housekeeping.js';
import { OptimizingScheduler } from '../../src/service/optimizing/optimizing-scheduler.js';
import type { ServiceClock } from '../../src/service/optimizing/service-clock.js';
import { readRows } from '../lake/helpers/read-table.js';

const child = fileURLToPath(new URL('./die-in-transaction-child.ts', import.meta.url));
/** The lake's staleness runs on the real clock: kept short so the test waits little. */
const STALE_MS = 200;

function fakeClock(startMicros: bigint): ServiceClock & { advance(ms: number): void } {
  let now = startMicros;
  return { nowMicros: () => now, setTimer: () => () => undefined, advance: (ms) => { now += BigInt(ms) * 1000n; } };
}

test('a transaction left open by a killed process stops holding back optimizing: housekeeping sweeps it, the scheduler folds', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-dead-txn-'));
  try {
    const wh = await openWarehouse({ path: dir, staleTransactionMs: STALE_MS });
    const clock = fakeClock(BigInt(Date.now()) * 1000n);
    const scheduler = new OptimizingScheduler({ warehouse: wh, clock });
    const housekeeping = new Housekeeping({ warehouse: wh, clock, random: () => 0.5 });
    const look = async () => {
      await housekeeping.runOnce();
      scheduler.tick();
      await scheduler.idle();
    };
    try {
      const table = await wh.createTable({
        namespace: 'public', name: 'kv', primaryKey: ['id'],
        columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
        properties: { 'self-optimizing.minor.trigger.file-count': '2' },
      });
      const died = spawnSync(process.execPath, ['--import', 'tsx', child, dir], { encoding: 'utf8' });
      assert.equal(died.signal, 'SIGKILL', died.stderr);
      const expected = new Map<bigint, string>();
      for (let i = 0; i < 4; i++) {
        const tx = await wh.begin();
        await tx.upsert(table, 'main', [[BigInt(i)], [`v${i}`]]);
        await tx.commit();
        expected.set(BigInt(i), `v${i}`);
      }
      // Real time passes for the dead transaction's heartbeat to go stale.
      await new Promise((r) => setTimeout(r, STALE_MS + 100));
      await look();
      assert.equal(wh.optimizingMetrics(table).pendingChangeFiles, 4, 'held back by the dead transaction, nothing folds yet');

      // A minute on: housekeeping expires snapshots, which aborts the stale transaction,
      // and the scheduler re-reads metrics once the watermark passes the waiting changes.
      clock.advance(61_000);
      await look();
      if (wh.optimizingMetrics(table).pendingChangeFiles > 0) await look();
      assert.equal(wh.optimizingMetrics(table).pendingChangeFiles, 0, 'the commits behind the dead transaction were folded');
      const runs = wh.listOptimizingRuns({ tableId: table.id });
      assert.ok(runs.some((r) => r.status === 'success' && r.trigger === 'scheduler'), 'by the scheduler, on its own');
      const rows = await readRows(wh, { table });
      assert.deepEqual(new Map(rows.map((r) => [r['id'] as bigint, r['v'] as string])), expected, 'the dead transaction wrote nothing visible');
    } finally {
      await housekeeping.stop();
      await scheduler.stop();
      await wh.close();
    }
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
