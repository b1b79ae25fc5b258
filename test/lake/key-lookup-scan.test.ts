import { test } from 'node:test';
import assert from 'node:assert/strict';
import { optimizingSettings } from '../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';
import type { Row } from './helpers/read-table.js';

/**
 * A scan given the full keys a join needs (ScanRequest.keyLookup) reads only the nodes,
 * files and row groups they hash into and returns, for every one of those keys, exactly
 * what a full scan returns for it: through base files split in nodes and row groups, a
 * delta fold's deletion vectors, and pending updates, deletes and inserts.
 */

const ROWS = 80_000;

async function write(wh: Warehouse, t: TableMetadata, rows: readonly Row[], deletes: readonly (readonly unknown[])[] = []): Promise<void> {
  const tx = await wh.begin();
  if (rows.length > 0) await tx.upsert(t, 'main', columnsOf(t, rows));
  if (deletes.length > 0) await tx.deleteKeys(t, 'main', [deletes.map((k) => k[0]), deletes.map((k) => k[1])]);
  await tx.commit();
}

const keyOf = (a: bigint, i: number): unknown[] => [a, `k${i}`];
const idOf = (r: Row): string => `${r['a']}|${r['b']}`;

/** A small random generator, so that a failure repeats. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

test('a key lookup reads what a full scan reads for its keys, and skips the nodes and row groups no key hashes into', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    // A target size that splits the base into several nodes of more than one row group each.
    const t = await wh.createTable({
      namespace: 'public', name: 'kl', primaryKey: ['a', 'b'], properties: { 'self-optimizing.target-size': String(1280 * 1024) },
      columns: [
        { name: 'a', type: { kind: 'int8' }, nullable: false }, { name: 'b', type: { kind: 'text' }, nullable: false },
        { name: 'v', type: { kind: 'int4' }, nullable: true },
      ],
    });
    await write(wh, t, Array.from({ length: ROWS }, (_, i) => ({ a: BigInt(i % 50), b: `k${i}`, v: i })));
    await wh.optimize(t, { kind: 'full' });
    // Updates folded into the base as deletion vectors (a minor optimize's delta fold, the
    // scheduler's interval trigger due at once), then pending changes.
    await write(wh, t, Array.from({ length: 400 }, (_, j) => ({ a: BigInt((j * 97) % 50), b: `k${j * 97}`, v: -j })));
    await wh.optimize(t, { triggers: { ...optimizingSettings(t), minorFileCount: 1000, minorIntervalMs: 0 } });
    await write(wh, t, Array.from({ length: 300 }, (_, j) => ({ a: BigInt((j * 31) % 50), b: `k${j * 31}`, v: 1_000_000 + j })));
    await write(wh, t, [], Array.from({ length: 200 }, (_, j) => keyOf(BigInt((j * 53 + 1) % 50), j * 53 + 1)));
    await write(wh, t, Array.from({ length: 100 }, (_, j) => ({ a: 7n, b: `new${j}`, v: j })));

    const table = wh.getTableById(t.id)!;
    const whole = await wh.planScan({ table });
    const everything = await readRows(wh, { table });
    const byKey = new Map(everything.map((r) => [idOf(r), r]));
    assert.ok(whole.tasks.length >= 2, `the base is split into nodes (${whole.tasks.length} tasks)`);
    assert.ok(whole.tasks.some((task) => task.changeFiles.length > 0), 'some node has pending change files');
    assert.ok(whole.tasks.some((task) => task.baseFiles.some((f) => (f.deletedPositions?.length ?? 0) > 0)), 'some base file has a deletion vector');

    const next = random(42);
    for (let round = 0; round < 6; round++) {
      const n = [1, 3, 20, 200, 1500, 9][round]!;
      const keys: unknown[][] = [];
      for (let j = 0; j < n; j++) {
        const i = Math.floor(next() * ROWS * 1.01);
        keys.push(keyOf(BigInt(i % 50), i));
      }
      keys.push([7n, 'new3'], [3n, 'absent'], [null, 'k1'], keys[0]!);
      const wanted = new Set(keys.filter((k) => k[0] !== null).map((k) => `${k[0]}|${k[1]}`));
      const expected = [...wanted].map((id) => byKey.get(id)).filter((r) => r !== undefined);
      const plan = await wh.planScan({ table, keyLookup: keys });
      // A base row group is a key-hash range: each key's rows are in one row group of its node.
      for (const task of plan.tasks) {
        assert.ok(task.keyHashes !== undefined && task.keyHashes.length > 0, `round ${round}: every task has its node's keys`);
        for (const f of task.baseFiles) assert.ok((f.rowGroups?.length ?? Infinity) <= task.keyHashes.length, `round ${round}: ${f.rowGroups?.length} row groups of a base file for ${task.keyHashes.length} keys`);
      }
      if (n === 1) assert.ok(plan.stats.rowGroupsPruned > 0, `round ${round}: ${wanted.size} keys skip row groups`);
      // In a worker (no cache), and through the row-group cache three times: a first read
      // hashes the rows, the second builds each batch's key index, the third looks keys up.
      for (const cacheRowGroups of [false, true, true, true]) {
        const got = (await readRows(wh, { table, keyLookup: keys }, { cacheRowGroups })).filter((r) => wanted.has(idOf(r)));
        assert.deepEqual(got, expected.sort((x, y) => (JSON.stringify(x, big) < JSON.stringify(y, big) ? -1 : 1)).map((r) => r), `round ${round}, ${n} keys, cache ${cacheRowGroups}`);
      }
    }
    // A scan's key lookup does not narrow a full-key point read: the point read's key wins.
    const point = await readRows(wh, { table, filters: [{ column: 'a', op: '=', value: 7n }, { column: 'b', op: '=', value: 'new3' }], keyLookup: [[1n, 'k1']] });
    assert.deepEqual(point.map((r) => r['v']), [3]);
  } finally {
    await cleanup();
  }
});

function big(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v;
}

test('a key lookup on a text key with a filter on that key reads the key as text, merged or not', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await wh.createTable({
      namespace: 'public', name: 'items', primaryKey: ['sku'],
      columns: [{ name: 'sku', type: { kind: 'text' }, nullable: false }, { name: 'price', type: { kind: 'int4' }, nullable: true }],
    });
    const tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, Array.from({ length: 40_000 }, (_, i) => ({ sku: `sku-${i}`, price: i }))));
    await tx.commit();
    await wh.optimize(t, { kind: 'full' });
    const table = wh.getTableById(t.id)!;
    const keys = [['sku-5'], ['sku-17'], ['sku-39999'], ['sku-20000'], ['nope']];
    const filters = [{ column: 'sku', op: '>' as const, value: 'sku-17' }];
    const wanted = (rows: readonly Row[]) => rows.filter((r) => keys.some((k) => k[0] === r['sku']));
    const expected = wanted(await readRows(wh, { table, filters }));
    assert.deepEqual(expected.map((r) => r['sku']), ['sku-20000', 'sku-39999', 'sku-5']);
    for (const cacheRowGroups of [false, true, true, true]) {
      assert.deepEqual(wanted(await readRows(wh, { table, filters, keyLookup: keys }, { cacheRowGroups })), expected, `unmerged, cache ${cacheRowGroups}`);
    }
    const change = await wh.begin();
    await change.upsert(t, 'main', columnsOf(t, [{ sku: 'sku-5', price: -5 }, { sku: 'sku-6', price: -6 }]));
    await change.commit();
    const merged = wanted(await readRows(wh, { table, filters }));
    assert.deepEqual(merged.map((r) => r['price']), [20000, 39999, -5]);
    for (const cacheRowGroups of [false, true, true]) {
      assert.deepEqual(wanted(await readRows(wh, { table, filters, keyLookup: keys }, { cacheRowGroups })), merged, `merged, cache ${cacheRowGroups}`);
    }
  } finally {
    await cleanup();
  }
});
