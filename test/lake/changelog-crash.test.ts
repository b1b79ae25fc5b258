/**
 * Crash safety of changelog-producer = lookup: a writer process committing blind upserts and
 * deletes through the log store is SIGKILLed again and again; after each kill the warehouse
 * is opened (replaying the log) and the whole changelog, replayed from an empty table, must
 * meet every before-image as the current row and end at the table's contents. A before-image
 * committed apart from its change would break the chain at the next commit of its key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openWarehouse } from '../../src/lake/index.js';
import { RandomStream } from '../../src/tools/tpch/random-stream.js';
import { changeTexts, replayChangelog } from './helpers/changelog-rows.js';
import { readRows, tempWarehouse } from './helpers/read-table.js';
import { kvTable } from './helpers/keyed-table.js';

const writer = fileURLToPath(new URL('./helpers/changelog-writer-child.ts', import.meta.url));
const KILLS = Number(process.env['FLOE_CHANGELOG_CRASH_KILLS'] ?? 5);
const SEED = Number(process.env['FLOE_CHANGELOG_CRASH_SEED'] ?? Date.now() % 2 ** 31);

/** Runs the writer until `delayMs` after its first acknowledged commit, then SIGKILLs it; returns how many commits it acknowledged. */
function runAndKill(dir: string, seed: number, delayMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, dir, String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let acks = 0;
    let err = '';
    const kill = () => child.kill('SIGKILL');
    const deadline = setTimeout(kill, 60_000);
    child.stdout.on('data', (d: Buffer) => {
      const before = acks;
      acks += d.toString().split('\n').filter((l) => l === 'ack').length;
      if (before === 0 && acks > 0) setTimeout(kill, delayMs);
    });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('exit', (code, signal) => {
      clearTimeout(deadline);
      if (signal === 'SIGKILL' && acks > 0) resolve(acks);
      else reject(new Error(`writer ended with ${code ?? signal} after ${acks} commits:\n${err}`));
    });
  });
}

test(`lookup changelog crash: SIGKILL a writer ${KILLS} times (seed ${SEED}); the changelog chains to the table's contents`, { timeout: 600_000 }, async () => {
  const stream = new RandomStream(SEED);
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    await kvTable(wh, 'kv', { 'changelog-producer': 'lookup' });
    await wh.close();
    let commits = 0;
    let replayed = 0;
    for (let k = 0; k < KILLS; k++) {
      commits += await runAndKill(dir, Math.floor(stream.next() * 2 ** 31), Math.floor(stream.next() * 400));
      const reopened = await openWarehouse({ path: dir, log: false });
      try {
        replayed += reopened.logReplay?.commits ?? 0;
        const t = reopened.getTable('public', 'kv')!;
        const head = reopened.resolveSnapshot(t)!.id;
        const state = replayChangelog(new Map(), await changeTexts(reopened, t, undefined, head));
        const rows = (await readRows(reopened, { table: t })).map((r) => [r['id'] as number, r['v'] as string] as const);
        const byId = (a: readonly [number, string], b: readonly [number, string]) => a[0] - b[0];
        assert.deepEqual([...state].sort(byId), [...rows].sort(byId), `after kill ${k + 1}`);
      } finally {
        await reopened.close();
      }
    }
    console.log(`seed ${SEED}: ${KILLS} kills, ${commits} acknowledged commits, ${replayed} replayed from the log`);
    assert.ok(commits >= KILLS);
  } finally {
    await cleanup();
  }
});
