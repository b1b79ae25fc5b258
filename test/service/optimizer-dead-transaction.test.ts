/**
 * A process killed with a transaction open (a gateway SIGKILLed under a client's BEGIN)
 * leaves that transaction in the catalog, and its start seq holds the low watermark: no
 * change committed after it may be folded. It goes stale once its heartbeat is older than
 * staleTransactionMs. The self-optimizing service must then fold what it held back on its
 * own — with nothing else running (no CALL optimize, no housekeeping by hand) — or a table
 * streaming into a gateway that crashed once would never be optimized again (issue 23:
 * "make stuck impossible by design").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openWarehouse } from '../../src/lake/index.js';
import { OptimizingScheduler } from '../../src/service/optimizing/optimizing-scheduler.js';
import { readRows } from '../lake/helpers/read-table.js';

const child = fileURLToPath(new URL('./die-in-transaction-child.ts', import.meta.url));
const STALE_MS = 200;

// todo until fixed: optimizingMetrics reads the low watermark without aborting stale
// transactions, the triggers count only foldable files, so the scheduler never starts the
// optimize whose first step (abortStaleTxns) would free the watermark. Fix in the metrics
// (sweep stale transactions before reading W, as optimizeTable does) or in the scheduler's tick.
const STUCK = 'the scheduler never sweeps a dead transaction, so it never folds past it (see the comment above)';

test('a transaction left open by a killed process stops holding back optimizing once stale', { timeout: 120_000, todo: STUCK }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-dead-txn-'));
  try {
    const wh = await openWarehouse({ path: dir, staleTransactionMs: STALE_MS });
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
      assert.equal(wh.optimizingMetrics(table).pendingChangeFiles, 4);
      // Real time must pass for the dead transaction's heartbeat to go stale.
      await new Promise((r) => setTimeout(r, STALE_MS + 100));
      const scheduler = new OptimizingScheduler({ warehouse: wh });
      try {
        // A few looks, as the running service would take: each may see more once the dead is swept.
        for (let i = 0; i < 3 && wh.optimizingMetrics(table).pendingChangeFiles > 0; i++) {
          scheduler.tick();
          await scheduler.idle();
        }
      } finally { await scheduler.stop(); }
      assert.equal(wh.optimizingMetrics(table).pendingChangeFiles, 0, 'the commits behind the dead transaction were folded');
      const rows = await readRows(wh, { table });
      assert.deepEqual(new Map(rows.map((r) => [r['id'] as bigint, r['v'] as string])), expected);
    } finally { await wh.close(); }
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
