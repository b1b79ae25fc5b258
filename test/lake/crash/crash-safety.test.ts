import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openWarehouse } from '../../../src/lake/index.js';
import type { Warehouse } from '../../../src/lake/index.js';
import { transpiledNodeArgs } from '../../harness/transpiled-child.js';
import { readRows, tempWarehouse } from '../helpers/read-table.js';
import { expectedRows, uniqueKey } from './crash-model.js';

const writer = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
const KILLS = Number(process.env['FLOE_CRASH_KILLS'] ?? 50);

function spawnWriter(dir: string): ChildProcess {
  return spawn(process.execPath, [...transpiledNodeArgs(writer), dir], { stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Starts a loaded writer at `first`, kills it at a random moment, returns the acknowledged commits. */
function runAndKill(child: ChildProcess, first: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const acks: number[] = [];
    let buf = '';
    let err = '';
    let armed = false;
    const kill = () => child.kill('SIGKILL');
    const deadline = setTimeout(kill, 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = /^ack (\d+)$/.exec(line);
        if (m !== null) acks.push(Number(m[1]));
      }
      if (!armed) {
        armed = true;
        // A random moment once the writer is going: mid-commit, mid-optimize, mid-expire.
        setTimeout(kill, Math.floor(Math.random() * 200));
      }
    });
    child.stderr!.on('data', (d) => { err += d; });
    child.on('exit', (code, signal) => {
      clearTimeout(deadline);
      if (signal !== 'SIGKILL') reject(new Error(`writer exited on its own (${code}): ${err}`));
      else resolve(acks);
    });
    child.stdin!.write(`go ${first}\n`);
  });
}

async function check(wh: Warehouse, dir: string, acked: number): Promise<number> {
  const t = wh.getTable('public', 'crash')!;
  // At most the one commit in flight at the kill can be committed without an ack.
  const rows = await readRows(wh, { table: t });
  const got = new Map(rows.map((r) => [r['id'] as bigint, r['v'] as string]));
  const last = got.has(uniqueKey(acked + 1)) ? acked + 1 : acked;
  assert.deepEqual(got, expectedRows(last), `table after commit ${last}`);
  // No readable reference to a missing file, on any ref or retained snapshot.
  for (const s of wh.listSnapshots(t)) {
    for (const f of wh.listFiles(t, { kind: 'snapshot', id: s.id })) {
      // A log file's bytes lie in its log segment (the path up to '#').
      assert.ok(existsSync(join(dir, f.path.split('#')[0]!)), `snapshot ${s.id} references missing ${f.path}`);
    }
  }
  return last;
}

/** One chain of kills against its own warehouse; returns the last committed i. */
async function killChain(kills: number): Promise<void> {
  const { wh, dir, cleanup } = await tempWarehouse();
  await wh.createTable({
    namespace: 'public', name: 'crash', primaryKey: ['id'],
    columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
  await wh.close();
  try {
    let next = 0;
    let acked = -1;
    // Children load their modules (most of their start-up) ahead, two at a time on the
    // machine's two cores; a loaded child touches nothing until it is told "go".
    const loaded = [spawnWriter(dir), spawnWriter(dir)];
    try {
      for (let k = 0; k < kills; k++) {
        const current = loaded.shift()!;
        if (k + loaded.length + 1 < kills) loaded.push(spawnWriter(dir));
        const acks = await runAndKill(current, next);
        if (acks.length > 0) acked = acks[acks.length - 1]!;
        const reopened = await openWarehouse({ path: dir });
        try {
          next = (await check(reopened, dir, acked)) + 1;
        } finally { await reopened.close(); }
      }
    } finally {
      // Also when a check fails: a waiting child would keep the test process alive.
      for (const c of loaded) c.kill('SIGKILL');
    }
    assert.ok(acked >= kills, 'the writer made progress between kills');
    const final = await openWarehouse({ path: dir, staleTransactionMs: 1 });
    try {
      const t = final.getTable('public', 'crash')!;
      await final.optimize(t);
      await final.expireSnapshots(t, { olderThanMicros: BigInt(Date.now()) * 1000n, retainLast: 1 });
      await check(final, dir, next - 1);
    } finally { await final.close(); }
  } finally { await cleanup(); }
}

test(`crash safety: SIGKILL a writing, optimizing child ${KILLS} times; acknowledged commits survive whole`, { timeout: 600_000 }, async () => {
  await killChain(KILLS);
});
