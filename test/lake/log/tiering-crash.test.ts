import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { isLogPath } from '../../../src/lake/log/log-locator.js';
import { columnsOf, readRows, tempWarehouse } from '../helpers/read-table.js';
import { changeFilesToLogFiles } from './log-file-helper.js';

/*
 * Killing tiering at any point leaves the table readable and equal: a child tiers the
 * table's log files in a loop and is SIGKILLed at a random moment (before, between and
 * during its swaps); then every snapshot of the table must read as before.
 */

const child = fileURLToPath(new URL('./tier-loop-child.ts', import.meta.url));
const ROUNDS = Number(process.env['FLOE_TIER_CRASH_ROUNDS'] ?? 6);

/** Starts the child, kills it after a random number of swap reports (plus a random few ms); resolves with the swaps seen. */
function tierAndKill(dir: string, name: string, killAfterSwaps: number, extraMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, dir, name], { stdio: ['ignore', 'pipe', 'pipe'] });
    let swaps = 0;
    let err = '';
    let armed = false;
    const kill = (): void => { if (!armed) { armed = true; setTimeout(() => p.kill('SIGKILL'), extraMs); } };
    const deadline = setTimeout(() => p.kill('SIGKILL'), 60_000);
    let buf = '';
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line === 'swap') swaps++;
        if ((line === 'swap' && swaps >= killAfterSwaps) || line === 'idle' || (line === 'ready' && killAfterSwaps === 0)) kill();
      }
    });
    p.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    p.on('exit', (code, signal) => {
      clearTimeout(deadline);
      if (signal === 'SIGKILL') resolve(swaps);
      else reject(new Error(`tiering child exited with ${code}: ${err}`));
    });
  });
}

async function snapshotsRead(wh: Warehouse, t: TableMetadata): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const s of wh.listSnapshots(t)) out.push(await readRows(wh, { table: t, at: { kind: 'snapshot', id: s.id } }));
  out.push(await readRows(wh, { table: t }));
  for (const id of [0, 5, 17]) out.push(await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: id }] }));
  return out;
}

test('tiering killed at random moments leaves every snapshot reading the same', { timeout: 600_000 }, async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 't', primaryKey: ['id'], properties: { 'bucket.target-rows': '6' },
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
    });
    let k = 0;
    let swapsSeen = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // A few more commits, as log files, on top of what earlier rounds tiered (and once folded).
      if (round === 2) await wh.optimize(t);
      for (let c = 0; c < 4; c++, k++) {
        const tx = await wh.begin();
        const rows = Array.from({ length: 6 }, (_, i) => ({ id: (k * 7 + i * 3) % 24, v: `r${round}c${c}i${i}` }));
        await tx.upsert(t, 'main', columnsOf(t, rows));
        if (k % 5 === 4) await tx.deleteKeys(t, 'main', [[(k * 5) % 24]]);
        await tx.commit();
      }
      await changeFilesToLogFiles(dir, t);
      const before = await snapshotsRead(wh, t);
      const logFiles = wh.listFiles(t).filter((f) => isLogPath(f.path)).length;
      swapsSeen += await tierAndKill(dir, 't', Math.floor(Math.random() * 4), Math.floor(Math.random() * 4));
      assert.deepEqual(await snapshotsRead(wh, t), before, `round ${round}: a snapshot reads differently after the kill`);
      assert.ok(logFiles > 0);
    }
    assert.ok(swapsSeen > 0, 'some kills came after swaps began');
    // Whatever the kills left, tiering to the end still reads the same.
    const before = await snapshotsRead(wh, t);
    await wh.tierLogFiles(t);
    assert.equal(wh.listFiles(t).filter((f) => isLogPath(f.path)).length, 0);
    assert.deepEqual(await snapshotsRead(wh, t), before);
  } finally { await cleanup(); }
});
