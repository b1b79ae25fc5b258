import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openWarehouse } from '../../../src/lake/index.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const taker = fileURLToPath(new URL('./sequence-taker.ts', import.meta.url));

/** Runs a taker child; with killAfterMs it is SIGKILLed then. Resolves to the values it printed. */
function runTaker(dir: string, id: number, count: number | undefined, killAfterMs?: number): Promise<bigint[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', taker, dir, String(id), ...(count === undefined ? [] : [String(count)])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (killAfterMs !== undefined && timer === undefined) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (killAfterMs === undefined ? code !== 0 : signal !== 'SIGKILL') reject(new Error(`taker ended with ${code ?? signal}: ${err}`));
      // Only whole lines count: a line cut by the kill was never handed out in full.
      else resolve(out.split('\n').filter((l) => /^v -?\d+$/.test(l)).map((l) => BigInt(l.slice(2))));
    });
  });
}

function assertDistinct(values: readonly bigint[]): void {
  const seen = new Set<bigint>();
  for (const v of values) {
    assert.ok(!seen.has(v), `value ${v} was handed out twice`);
    seen.add(v);
  }
}

test('two warehouses on one directory hand out disjoint values', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-seq-'));
  const a = await openWarehouse({ path: dir });
  const b = await openWarehouse({ path: dir });
  const { sequence } = await a.createSequence({ namespace: 'public', name: 's', options: {} });
  const values: bigint[] = [];
  for (let i = 0; i < 500; i++) values.push(i % 3 === 0 ? b.nextSequenceValue(sequence!.id) : a.nextSequenceValue(sequence!.id));
  assertDistinct(values);
  // setval in one is seen by the other: its block is stale.
  a.setSequenceValue(sequence!.id, 10_000n, true);
  assert.equal(b.nextSequenceValue(sequence!.id), 10_001n);
  // b now holds a block from 10 001 on; a reserves the next one.
  assert.ok(a.nextSequenceValue(sequence!.id) > 10_001n);
  await a.close();
  await b.close();
});

test('two processes calling nextval concurrently get disjoint values', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-seq-'));
  const w = await openWarehouse({ path: dir });
  const { sequence } = await w.createSequence({ namespace: 'public', name: 's', options: {} });
  await w.close();
  const [x, y] = await Promise.all([runTaker(dir, sequence!.id, 2000), runTaker(dir, sequence!.id, 2000)]);
  assert.equal(x.length, 2000);
  assert.equal(y.length, 2000);
  assertDistinct([...x, ...y]);
  // A clean close gives back unused values: the next process continues without a gap.
  const after = await openWarehouse({ path: dir });
  const max = [...x, ...y].reduce((m, v) => (v > m ? v : m), 0n);
  assert.equal(after.nextSequenceValue(sequence!.id), max + 1n);
  await after.close();
});

test('a process killed with SIGKILL mid-run never makes a later one repeat a value', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-seq-'));
  const w = await openWarehouse({ path: dir });
  const { sequence } = await w.createSequence({ namespace: 'public', name: 's', options: { cache: 5n } });
  await w.close();
  const all: bigint[] = [];
  for (let round = 0; round < 4; round++) {
    all.push(...await runTaker(dir, sequence!.id, undefined, 50 + Math.floor(Math.random() * 150)));
    assertDistinct(all);
  }
  const last = await runTaker(dir, sequence!.id, 100);
  all.push(...last);
  assertDistinct(all);
  assert.ok(all.length > 100);
});
