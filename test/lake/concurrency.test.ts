import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isFloeError } from '../../src/common/floe-error.js';
import { openWarehouse } from '../../src/lake/index.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

const writerScript = fileURLToPath(new URL('./helpers/concurrent-writer.ts', import.meta.url));

function runWriter(dir: string, id: number, commits: number, optimizeEvery: number): Promise<{ writer: number; i: number; seq: string }[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writerScript, dir, String(id), String(commits), String(optimizeEvery)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`writer ${id} exited ${code}: ${err}`));
      else resolve(out.trim().split('\n').map((l) => JSON.parse(l)));
    });
  });
}

test('two processes write the same table at once: every blind upsert commits, ordered by start seq', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'shared', primaryKey: ['id'],
      columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
    });
    const [a, b] = await Promise.all([runWriter(dir, 1, 25, 7), runWriter(dir, 2, 25, 0)]);
    assert.equal(a.length, 25);
    assert.equal(b.length, 25);
    const rows = await readRows(wh, { table: t });
    assert.equal(rows.length, 51);
    for (const r of [...a, ...b]) assert.ok(rows.some((x) => x['id'] === BigInt(r.writer * 100_000 + r.i) && x['v'] === `${r.writer}:${r.i}`));
    // The shared key holds the write of the highest start seq, not the last commit.
    const top = [...a, ...b].reduce((m, r) => (BigInt(r.seq) > BigInt(m.seq) ? r : m));
    assert.deepEqual(rows.find((x) => x['id'] === 0n), { id: 0n, v: `${top.writer}:${top.i}` });
    await wh.optimize(t);
    assert.deepEqual(await readRows(wh, { table: t }), rows);
  } finally { await cleanup(); }
});

test('a read-modify-write commit overlapping a key committed after its snapshot fails with 40001; blind writes do not', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'acct', primaryKey: ['id'],
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'bal', type: { kind: 'int4' }, nullable: false }],
    });
    const seed = await wh.begin();
    await seed.upsert(t, 'main', columnsOf(t, [{ id: 1, bal: 100 }, { id: 2, bal: 100 }]));
    await seed.commit();

    const rmw = await wh.begin();
    rmw.markReadModifyWrite(t, 'main');
    const seen = await readRows(wh, { table: t, txn: rmw });
    assert.deepEqual(seen, [{ id: 1, bal: 100 }, { id: 2, bal: 100 }]);
    const other = await wh.begin();
    await other.upsert(t, 'main', columnsOf(t, [{ id: 1, bal: 50 }]));
    await other.commit();
    // Disjoint key: fine.
    const rmw2 = await wh.begin();
    rmw2.markReadModifyWrite(t, 'main');
    await readRows(wh, { table: t, txn: rmw2 });
    const blind = await wh.begin();
    await blind.upsert(t, 'main', columnsOf(t, [{ id: 1, bal: 1 }]));
    await rmw.update(t, 'main', columnsOf(t, [{ id: 1, bal: 100 }]), columnsOf(t, [{ id: 1, bal: 90 }]));
    // It sees its own write.
    assert.deepEqual(await readRows(wh, { table: t, txn: rmw }), [{ id: 1, bal: 90 }, { id: 2, bal: 100 }]);
    await assert.rejects(rmw.commit(), (e: unknown) => isFloeError(e) && e.sqlstate === '40001');
    assert.equal(rmw.state, 'aborted');
    await rmw2.update(t, 'main', columnsOf(t, [{ id: 2, bal: 100 }]), columnsOf(t, [{ id: 2, bal: 110 }]));
    await rmw2.commit();
    await blind.commit();
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1, bal: 1 }, { id: 2, bal: 110 }]);
  } finally { await cleanup(); }
});

test('a transaction without heartbeats is aborted as stale and cannot commit; the watermark moves past it', async () => {
  const { wh, dir, cleanup } = await tempWarehouse({ staleTransactionMs: 200 });
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'kv', primaryKey: ['id'],
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
    });
    // Heartbeats far apart make it stale to a second warehouse handle.
    const stale = await wh.begin({ heartbeatMs: 60_000 });
    await stale.upsert(t, 'main', columnsOf(t, [{ id: 1, v: 'stale' }]));
    const w = await wh.begin();
    await w.upsert(t, 'main', columnsOf(t, [{ id: 2, v: 'live' }]));
    await w.commit();
    await new Promise((r) => setTimeout(r, 400));
    const other = await openWarehouse({ path: dir, staleTransactionMs: 200 });
    try {
      const r = await other.optimize(other.getTable('public', 'kv')!);
      assert.ok(r.lowWatermark > w.seq, 'stale transaction no longer holds the watermark');
      assert.equal(r.changeFilesFolded, 1);
    } finally { await other.close(); }
    await assert.rejects(stale.commit(), (e: unknown) => isFloeError(e) && e.sqlstate === '40001');
    assert.deepEqual(await readRows(wh, { table: t }), [{ id: 2, v: 'live' }]);
  } finally { await cleanup(); }
});
