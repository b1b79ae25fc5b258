/**
 * A writer process streams INSERTs, DELETEs and UPDATEs into an append table while this
 * process compacts it over and over (minor, major, full): no write of the writer may fail,
 * and the table ends as the writer's schedule says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { OptimizeKind } from '../../src/lake/index.js';
import { tempWarehouse } from './helpers/read-table.js';
import { createAppendTable, liveRows } from './helpers/append-table.js';
import { deletedAt, updatedAt } from './helpers/append-writer-schedule.js';

test('compactions racing a writer process never fail its deletes and updates', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const t = await createAppendTable(wh, 's', { 'self-optimizing.major.trigger.duplicate-ratio': '0.05' });
    const rounds = 40;
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./helpers/append-writer-child.ts', import.meta.url)), dir, 's', String(rounds)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    let running = true;
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => { running = false; resolve(code); }));
    const kinds: OptimizeKind[] = ['minor', 'major', 'full'];
    let rewrites = 0;
    for (let i = 0; running; i++) {
      const r = await wh.optimize(t, { kind: kinds[i % 3]! });
      if (r.snapshotId !== undefined) rewrites++;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.equal(await exited, 0, err);
    assert.ok(rewrites > 0, 'the compactions ran while the writer wrote');
    const expected = new Map<number, string>();
    for (let i = 0; i < rounds; i++) {
      for (let k = 0; k < 5; k++) expected.set(i * 5 + k, `v${i * 5 + k}`);
      const del = deletedAt(i);
      if (del !== undefined) expected.delete(del);
      const upd = updatedAt(i);
      if (upd !== undefined) expected.set(upd, `u${i}`);
    }
    assert.deepEqual(await liveRows(wh, t), [...expected].sort((a, b) => a[0] - b[0]).map(([id, v]) => ({ id, v })));
    await wh.optimize(t, { kind: 'full' });
    assert.equal(wh.listFiles(t).length, 1);
  } finally { await cleanup(); }
});
