import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFloeError } from '../../../src/common/floe-error.js';
import { columnsOf, readRows, tempWarehouse } from '../helpers/read-table.js';
import { createAppendTable, deleteWhere, insertIds, liveRows } from '../helpers/append-table.js';
import type { TableMetadata, Warehouse } from '../../../src/lake/index.js';

async function kv(wh: Warehouse): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name: 't', primaryKey: ['id'],
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
}

async function insert(wh: Warehouse, t: TableMetadata, id: number, v: string): Promise<void> {
  const tx = await wh.begin();
  await tx.insert(t, 'main', [[id], [v]]);
  await tx.commit();
}

test('concurrent INSERTs of distinct keys all commit through one group commit, each with its own snapshot', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    const before = wh.listSnapshots(t).length;
    // All begin (and check their keys) before any commits: every one expects the same head
    // (more of them than a transaction's 20 commit attempts, were they serialized one per batch),
    // and all of them land in the log's batches together.
    const txs = await Promise.all(Array.from({ length: 40 }, () => wh.begin()));
    await Promise.all(txs.map((tx, i) => tx.insert(t, 'main', [[i], [`v${i}`]])));
    const results = await Promise.allSettled(txs.map((tx) => tx.commit()));
    assert.deepEqual(results.filter((r) => r.status === 'rejected'), []);
    assert.equal(wh.listSnapshots(t).length, before + 40);
    assert.equal((await readRows(wh, { table: t })).length, 40);
  } finally { await cleanup(); }
});

test('concurrent INSERTs of one key: exactly one commits, the others fail 23505 even when batched together', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh);
    await insert(wh, t, 100, 'seed');
    const txs = await Promise.all(Array.from({ length: 8 }, () => wh.begin()));
    // Distinct keys first, so each transaction's rebase candidates are real; then the shared key.
    await Promise.all(txs.map((tx, i) => tx.insert(t, 'main', [[i + 10, 7], [`v${i}`, `shared${i}`]])));
    const results = await Promise.allSettled(txs.map((tx) => tx.commit()));
    const ok = results.filter((r) => r.status === 'fulfilled');
    assert.equal(ok.length, 1, 'one insert of key 7 commits');
    for (const r of results) {
      if (r.status === 'rejected') assert.ok(isFloeError(r.reason) && r.reason.sqlstate === '23505', String(r.reason));
    }
    const rows = await readRows(wh, { table: t });
    assert.equal(rows.filter((r) => r['id'] === 7).length, 1);
    assert.equal(rows.length, 3, 'the seed, key 7 and the one winner\'s other key');
  } finally { await cleanup(); }
});

async function withUniqueValue(wh: Warehouse): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name: 'u', primaryKey: ['id'], constraints: [{ kind: 'unique', name: 'u_v_key', columns: ['v'] }],
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
}

test('concurrent INSERTs into a table with a UNIQUE column: distinct keys and values all commit, none fails 40001', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await withUniqueValue(wh);
    // More than a transaction's 20 commit attempts: serialized one per batch, the last would fail with 40001.
    const txs = await Promise.all(Array.from({ length: 40 }, () => wh.begin()));
    await Promise.all(txs.map((tx, i) => tx.insert(t, 'main', [[i], [`v${i}`]])));
    const results = await Promise.allSettled(txs.map((tx) => tx.commit()));
    assert.deepEqual(results.filter((r) => r.status === 'rejected'), []);
    assert.equal((await readRows(wh, { table: t })).length, 40);
  } finally { await cleanup(); }
});

test('concurrent INSERTs of one UNIQUE value under distinct keys: exactly one commits, the others fail 23505', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await withUniqueValue(wh);
    const txs = await Promise.all(Array.from({ length: 8 }, () => wh.begin()));
    // Each writes a value of its own and the shared one, so a rebase past an earlier commit is tempting but wrong.
    await Promise.all(txs.map((tx, i) => tx.insert(t, 'main', [[2 * i, 2 * i + 1], [`own${i}`, 'shared']])));
    const results = await Promise.allSettled(txs.map((tx) => tx.commit()));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'one holder of "shared" commits');
    for (const r of results) {
      if (r.status === 'rejected') assert.ok(isFloeError(r.reason) && r.reason.sqlstate === '23505', String(r.reason));
    }
    const rows = await readRows(wh, { table: t });
    assert.equal(rows.filter((r) => r['v'] === 'shared').length, 1);
    assert.equal(rows.length, 2);
  } finally { await cleanup(); }
});

test('append table: concurrent DELETEs of rows in distinct files commit among concurrent appends, none fails 40001', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await createAppendTable(wh, 'a');
    // One commit a row: each row in a log file of its own.
    for (let i = 0; i < 40; i++) await insertIds(wh, t, [i]);
    // More deleters than a transaction's 20 commit attempts: serialized one per batch, the last would fail with 40001.
    const deleters = await Promise.all(Array.from({ length: 40 }, () => wh.begin()));
    const appenders = await Promise.all(Array.from({ length: 40 }, () => wh.begin()));
    assert.deepEqual(await Promise.all(deleters.map((tx, i) => deleteWhere(wh, t, tx, (id) => id === i))), new Array(40).fill(1));
    await Promise.all(appenders.map((tx, i) => tx.insert(t, 'main', columnsOf(t, [{ id: 100 + i, v: 'new' }]))));
    const results = await Promise.allSettled([...deleters, ...appenders].map((tx) => tx.commit()));
    assert.deepEqual(results.filter((r) => r.status === 'rejected'), []);
    assert.deepEqual((await liveRows(wh, t)).map((r) => r.id), Array.from({ length: 40 }, (_, i) => 100 + i));
  } finally { await cleanup(); }
});

test('append table: concurrent DELETEs of two rows of one file both take effect (the second is merged at the first\'s head)', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await createAppendTable(wh, 'a');
    await insertIds(wh, t, [1, 2, 3]);
    const [a, b] = await Promise.all([wh.begin(), wh.begin()]);
    assert.equal(await deleteWhere(wh, t, a!, (id) => id === 1), 1);
    assert.equal(await deleteWhere(wh, t, b!, (id) => id === 2), 1);
    const results = await Promise.allSettled([a!.commit(), b!.commit()]);
    assert.deepEqual(results.filter((r) => r.status === 'rejected'), []);
    assert.deepEqual((await liveRows(wh, t)).map((r) => r.id), [3]);
  } finally { await cleanup(); }
});
