/**
 * A crash mid-commit of the self-optimizing service, deterministically (issue 23). A child
 * process runs the real OptimizingScheduler and SIGKILLs itself
 * - at 'commit': the base files are written, the one catalog transaction has not run;
 * - at 'done': the catalog transaction ran, the history and the claim's release have not.
 * Either way the table reads exactly what was committed, no snapshot names a missing file,
 * and the dead process's claim keeps the table (status as it died), as another host sees
 * it, only until its lease runs out: a new scheduler (fake clock) leaves it alone before,
 * optimizes it after, and records the run (this host sees the process gone at once); orphan cleanup then removes what the dead optimizer wrote.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openWarehouse } from '../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { OptimizingScheduler } from '../../src/service/optimizing/optimizing-scheduler.js';
import { isAbandoned } from '../../src/service/optimizing/optimizing-claim.js';
import type { ServiceClock } from '../../src/service/optimizing/service-clock.js';
import { readRows } from '../lake/helpers/read-table.js';

const child = fileURLToPath(new URL('./kill-at-phase-child.ts', import.meta.url));
const LEASE_MS = 60_000;

/** A clock that moves only when told; its timers never fire (ticks are called by hand). */
function fakeClock(startMicros: bigint): ServiceClock & { advance(ms: number): void } {
  let now = startMicros;
  return { nowMicros: () => now, setTimer: () => () => undefined, advance: (ms) => { now += BigInt(ms) * 1000n; } };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Commit i: upsert key i % 5 and key 100 + i; every third commit deletes key 100 + i - 1. */
async function commitStream(wh: Warehouse, table: TableMetadata, from: number, to: number, expected: Map<bigint, string>): Promise<void> {
  for (let i = from; i < to; i++) {
    const tx = await wh.begin();
    const keys = [BigInt(i % 5), BigInt(100 + i)];
    await tx.upsert(table, 'main', [keys, [`a${i}`, `b${i}`]]);
    expected.set(keys[0]!, `a${i}`).set(keys[1]!, `b${i}`);
    if (i % 3 === 0 && i > 0) {
      await tx.deleteKeys(table, 'main', [[BigInt(100 + i - 1)]]);
      expected.delete(BigInt(100 + i - 1));
    }
    await tx.commit();
  }
}

async function readTable(wh: Warehouse, table: TableMetadata): Promise<Map<bigint, string>> {
  const rows = await readRows(wh, { table });
  return new Map(rows.map((r) => [r['id'] as bigint, r['v'] as string]));
}

function checkFiles(wh: Warehouse, table: TableMetadata, dir: string): void {
  for (const s of wh.listSnapshots(table)) {
    for (const f of wh.listFiles(table, { kind: 'snapshot', id: s.id })) {
      if (f.path !== '') assert.ok(existsSync(join(dir, f.path.split('#')[0]!)), `snapshot ${s.id} references missing ${f.path}`);
    }
  }
}

/** Data files on disk that no retained snapshot names. */
function unreferenced(wh: Warehouse, table: TableMetadata, dir: string): string[] {
  const named = new Set(wh.listSnapshots(table).flatMap((s) => wh.listFiles(table, { kind: 'snapshot', id: s.id }).map((f) => f.path)));
  const prefix = `data/${table.id}`;
  const onDisk = existsSync(join(dir, prefix)) ? readdirSync(join(dir, prefix)).map((f) => `${prefix}/${f}`) : [];
  return onDisk.filter((f) => !named.has(f));
}

function runChild(dir: string, phase: string): Promise<{ pid: number; signal: NodeJS.Signals | null; code: number | null; out: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, ['--import', 'tsx', child, dir, phase], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    c.stdout.on('data', (d) => { out += d; });
    c.stderr.on('data', (d) => { out += d; });
    c.on('exit', (code, signal) => resolve({ pid: c.pid!, signal, code, out }));
  });
}

for (const phase of ['commit', 'done'] as const) {
  test(`optimizer killed at '${phase}': the table is as committed, and the service recovers once the lease runs out`, { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), `floe-kill-${phase}-`));
    try {
      const expected = new Map<bigint, string>();
      let headBefore: bigint | undefined;
      let table: TableMetadata;
      {
        const wh = await openWarehouse({ path: dir });
        table = await wh.createTable({
          namespace: 'public', name: 'kv', primaryKey: ['id'],
          columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
          properties: { 'self-optimizing.minor.trigger.file-count': '2', 'self-optimizing.target-size': '2KB' },
        });
        await commitStream(wh, table, 0, 8, expected);
        headBefore = wh.resolveSnapshot(table)?.id;
        await wh.close();
      }

      const killed = await runChild(dir, phase);
      assert.equal(killed.signal, 'SIGKILL', `the child killed itself at '${phase}' (exit ${killed.code}):\n${killed.out}`);

      const wh = await openWarehouse({ path: dir, staleTransactionMs: 200 });
      try {
        const head = wh.resolveSnapshot(table)!;
        if (phase === 'commit') {
          assert.equal(head.id, headBefore, 'no optimize snapshot: the commit never ran');
          assert.ok(unreferenced(wh, table, dir).some((f) => f.includes('/base-')), 'the dead optimizer left its base files behind');
        } else {
          assert.equal(head.operation, 'optimize', 'the optimize snapshot is committed');
          assert.equal(head.parentId, headBefore);
        }
        assert.deepEqual(await readTable(wh, table), expected, 'the table reads exactly what was committed');
        checkFiles(wh, table, dir);
        // The dead process still holds the table, as it died; nothing recorded its run.
        const state = wh.listOptimizingStates().find((s) => s.tableId === table.id);
        assert.equal(state?.status, 'committing');
        assert.equal(state?.owner, `${hostname()}:${killed.pid}`);
        assert.deepEqual(wh.listOptimizingRuns({ tableId: table.id }), []);
        // This host sees at once that the owner's process is gone; another host has only the
        // lease to go by. The rest plays that host.
        assert.equal(isAbandoned(state, BigInt(Date.now()) * 1000n, BigInt(LEASE_MS) * 1000n), true, 'on its own host a dead owner lets go at once');
        wh.saveOptimizingState({ ...state, owner: `another-host:${killed.pid}` });

        // More commits make a minor due again (after 'done' the earlier ones are folded).
        await commitStream(wh, table, 8, 12, expected);
        const headDue = wh.resolveSnapshot(table)!.id;
        const clock = fakeClock(BigInt(Date.now()) * 1000n);
        const scheduler = new OptimizingScheduler({ warehouse: wh, clock, leaseMs: LEASE_MS });
        scheduler.tick();
        await scheduler.idle();
        assert.equal(wh.resolveSnapshot(table)!.id, headDue, 'within the lease the dead owner keeps the table');
        assert.deepEqual(wh.listOptimizingRuns({ tableId: table.id }), []);

        // The dead optimizer's open transaction goes stale (200 ms here, 60 s by default).
        await sleep(300);
        clock.advance(LEASE_MS + 1);
        scheduler.tick();
        await scheduler.idle();
        const runs = wh.listOptimizingRuns({ tableId: table.id });
        assert.equal(runs.length, 1, `one run after the lease ran out: ${JSON.stringify(runs, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
        assert.equal(runs[0]!.status, 'success', runs[0]!.error);
        const after = wh.resolveSnapshot(table)!;
        assert.equal(after.operation, 'optimize');
        assert.equal(after.parentId, headDue);
        const state2 = wh.listOptimizingStates().find((s) => s.tableId === table.id);
        assert.equal(state2?.status, 'idle');
        assert.equal(state2?.consecutiveFailures, 0);
        assert.deepEqual(await readTable(wh, table), expected, 'the table reads the same after the new optimize');
        await scheduler.stop();

        // Orphan cleanup removes what the dead optimizer wrote, and only that.
        const orphans = unreferenced(wh, table, dir);
        const { deletedFiles } = await wh.removeOrphanFiles(table, { olderThanMicros: BigInt(Date.now() + 1000) * 1000n });
        assert.deepEqual(deletedFiles.sort(), orphans.sort());
        assert.deepEqual(unreferenced(wh, table, dir), []);
        checkFiles(wh, table, dir);
        assert.deepEqual(await readTable(wh, table), expected);
      } finally { await wh.close(); }
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });
}
