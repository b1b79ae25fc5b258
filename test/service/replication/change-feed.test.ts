/**
 * The change feed's answer for keyed tables (src/service/replication/change-feed.ts): what a
 * publication sends for blind upserts and deletes by key, on an input table (each commit key
 * by key, from the table at its parent and at itself; past 256 keys the snapshots are read
 * whole) and on a lookup table (its stored changelog, a key written twice sent twice); an
 * UPDATE that changes a key, sent as one update with the old key on both.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Catalog } from '../../../src/lake/catalog/catalog.js';
import { SqliteCatalog } from '../../../src/lake/catalog/sqlite/sqlite-catalog.js';
import { openStorage } from '../../../src/lake/storage/open-storage.js';
import { WarehouseImpl } from '../../../src/lake/warehouse/warehouse-impl.js';
import { commitEndLsn, commitLsn } from '../../../src/lake/index.js';
import type { LakeTransaction, TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { encodeKeyMoves, MAX_KEY_MOVE_RUNS } from '../../../src/lake/table/key-moves.js';
import { readCommittedTransactions } from '../../../src/service/replication/change-feed.js';
import { kvTable } from '../../lake/helpers/keyed-table.js';
import { tempWarehouse } from '../../lake/helpers/read-table.js';

/** The changes of every transaction committed after `after`, as "kind id v" lines. */
async function sent(wh: Warehouse, t: TableMetadata, after: bigint): Promise<string[][]> {
  const { transactions } = await readCommittedTransactions(wh, [t], commitLsn(after + 1n), 1000);
  return transactions.map((x) => x.changes.map((c) => `${c.kind} ${String(c.row[0])} ${String(c.row[1])}${c.oldKey === undefined ? '' : ` from ${String(c.oldKey[0])} ${String(c.oldKey[1])}`}`));
}

/** tx.update of (id, v) rows, each `[old id, old v, new id, new v]`. */
async function update(tx: LakeTransaction, t: TableMetadata, rows: readonly (readonly [number, string, number, string])[]): Promise<void> {
  await tx.update(t, 'main', [rows.map((r) => r[0]), rows.map((r) => r[1])], [rows.map((r) => r[2]), rows.map((r) => r[3])]);
}

async function commit(wh: Warehouse, t: TableMetadata, upserts: readonly [number, string][], deletes: readonly number[] = []): Promise<void> {
  const tx = await wh.begin();
  if (upserts.length > 0) await tx.upsert(t, 'main', [upserts.map((r) => r[0]), upserts.map((r) => r[1])]);
  if (deletes.length > 0) await tx.deleteKeys(t, 'main', [[...deletes]]);
  await tx.commit();
}

for (const producer of ['input', 'lookup'] as const) {
  test(`a ${producer} table's blind upserts of existing keys are sent as updates, deletes of nothing not at all`, async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await kvTable(wh, 't', { 'changelog-producer': producer });
      await commit(wh, t, [[1, 'a'], [2, 'b']]);
      const start = wh.resolveSnapshot(t)!.id;
      await commit(wh, t, [[1, 'A'], [3, 'c']], [2, 99]);
      await commit(wh, t, [[3, 'x'], [3, 'y']]);
      assert.deepEqual(await sent(wh, t, start), [
        ['update 1 A', 'insert 3 c', 'delete 2 null'],
        // One statement writing a key twice: a lookup table stored both changes, an input table's commit is sent as what it did.
        producer === 'lookup' ? ['update 3 x', 'update 3 y'] : ['update 3 y'],
      ]);
    } finally {
      await cleanup();
    }
  });
}

test('an input table commit of more than 256 keys reads the snapshots whole and sends the same', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kvTable(wh, 't');
    const ids = Array.from({ length: 400 }, (_, i) => i);
    await commit(wh, t, ids.filter((i) => i % 2 === 0).map((i) => [i, 'old']));
    const start = wh.resolveSnapshot(t)!.id;
    await commit(wh, t, ids.map((i) => [i, 'new']), [1001]);
    const [changes] = await sent(wh, t, start);
    assert.deepEqual(changes, ids.map((i) => `${i % 2 === 0 ? 'update' : 'insert'} ${i} new`));
  } finally {
    await cleanup();
  }
});

for (const producer of ['input', 'lookup'] as const) {
  test(`a ${producer} table's UPDATE that changes keys is sent as updates carrying the old key, not as deletes and inserts`, async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await kvTable(wh, 't', { 'changelog-producer': producer });
      await commit(wh, t, [[1, 'a'], [2, 'b'], [3, 'c'], [4, 'd']]);
      const start = wh.resolveSnapshot(t)!.id;
      let tx = await wh.begin();
      // One statement: 1 moves to 11, 2 keeps its key, 3 moves to 13.
      await update(tx, t, [[1, 'a', 11, 'a'], [2, 'b', 2, 'B'], [3, 'c', 13, 'C']]);
      await tx.commit();
      tx = await wh.begin();
      // A statement rolled back to a savepoint records nothing; the next one's key change is sent.
      await update(tx, t, [[11, 'a', 21, 'a']]);
      const mark = tx.savepoint();
      await update(tx, t, [[2, 'B', 22, 'B']]);
      await tx.rollbackTo(mark);
      await update(tx, t, [[4, 'd', 24, 'd']]);
      await tx.commit();
      // A delete then an insert stay what they are.
      await commit(wh, t, [[5, 'e']], [13]);
      assert.deepEqual(await sent(wh, t, start), [
        ['update 11 a from 1 null', 'update 2 B', 'update 13 C from 3 null'],
        ['update 21 a from 11 null', 'update 24 d from 4 null'],
        ['insert 5 e', 'delete 13 null'],
      ]);
    } finally {
      await cleanup();
    }
  });

  test(`a ${producer} table's key changes across partitions pair each old key with its own new row`, async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await wh.createTable({
        namespace: 'public', name: 'p', primaryKey: ['g', 'id'], properties: { 'changelog-producer': producer },
        partitionBy: [{ sourceColumn: 'g', transform: { kind: 'identity' }, name: 'g' }],
        columns: [
          { name: 'g', type: { kind: 'text' }, nullable: false }, { name: 'id', type: { kind: 'int4' }, nullable: false },
          { name: 'v', type: { kind: 'text' }, nullable: true },
        ],
      });
      let tx = await wh.begin();
      await tx.insert(t, 'main', [['x', 'y', 'x'], [1, 2, 3], ['a', 'b', 'c']]);
      await tx.commit();
      const start = wh.resolveSnapshot(t)!.id;
      // The -D rows are stored by old partition (x1, x3, y2), the +I rows by new (y11, then x12, x13):
      // pairing the n-th delete with the n-th insert would give x3 the row of x12.
      tx = await wh.begin();
      await tx.update(t, 'main', [['x', 'y', 'x'], [1, 2, 3], ['a', 'b', 'c']], [['y', 'x', 'x'], [11, 12, 13], ['a', 'b', 'c']]);
      await tx.commit();
      const { transactions } = await readCommittedTransactions(wh, [t], commitLsn(start + 1n), 1000);
      const show = (r: readonly unknown[] | undefined) => (r === undefined ? '-' : r.map(String).join(','));
      assert.deepEqual(transactions.map((x) => x.changes.map((c) => `${c.kind} ${show(c.row)} from ${show(c.oldKey)}`).sort()), [[
        'update x,12,b from y,2,null', 'update x,13,c from x,3,null', 'update y,11,a from x,1,null',
      ]]);
    } finally {
      await cleanup();
    }
  });
}

test('key moves are recorded as runs, and not at all past the cap on runs', () => {
  assert.equal(encodeKeyMoves([]), undefined);
  assert.equal(encodeKeyMoves([0, 10, 1, 11, 2, 12, 5, 3]), '0:10:3,5:3:1');
  const scattered = Array.from({ length: MAX_KEY_MOVE_RUNS }, (_, k) => [2 * k, 10 * k]).flat();
  assert.equal(encodeKeyMoves(scattered)!.split(',').length, MAX_KEY_MOVE_RUNS);
  assert.equal(encodeKeyMoves([...scattered, 10 * MAX_KEY_MOVE_RUNS, 1]), undefined);
});

/** A catalog that counts, per method, the rows (array, Map or Set entries) it hands out. */
function countingCatalog(inner: Catalog, rows: Map<string, number>): Catalog {
  const size = (v: unknown): number => (Array.isArray(v) ? v.length : v instanceof Map || v instanceof Set ? v.size : v === undefined ? 0 : 1);
  return new Proxy(inner, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        const r: unknown = (v as (...a: unknown[]) => unknown).apply(target, args);
        rows.set(String(prop), (rows.get(String(prop)) ?? 0) + size(r));
        return r;
      };
    },
  });
}

/** A warehouse in a temp dir whose catalog counts the rows each method hands out (`rows`, by method). */
function countingWarehouse(): { wh: WarehouseImpl; rows: Map<string, number>; cleanup(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'floe-feed-'));
  const rows = new Map<string, number>();
  const storage = { kind: 'local', root: dir } as const;
  const wh = new WarehouseImpl(dir, countingCatalog(new SqliteCatalog(join(dir, 'catalog.db')), rows), openStorage(storage), storage, undefined, 60_000);
  return {
    wh, rows,
    async cleanup() {
      await wh.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test("a change feed's poll reads the snapshots after its position, not the tables' history", async () => {
  const { wh, rows, cleanup } = countingWarehouse();
  try {
    // A lookup table: its commits are read from their own rows, with no scan of the table.
    const t = await kvTable(wh, 't', { 'changelog-producer': 'lookup' });
    const other = await kvTable(wh, 'other');
    const history = 300;
    for (let i = 0; i < history; i++) {
      await commit(wh, t, [[i, 'old']]);
      if (i % 10 === 0) await commit(wh, other, [[i, 'other']]);
    }
    // The catalog's range read: the table's snapshots with ids in the range, the other table's left out.
    const ids = wh.listSnapshots(t).map((x) => x.id);
    assert.deepEqual(wh.listSnapshots(t, { from: ids[10]!, to: ids[40]! }).map((x) => x.id), ids.slice(10, 41));
    assert.deepEqual(wh.listSnapshots(t, { from: ids[10]! + 1n, to: ids[40]! - 1n }).map((x) => x.id), ids.slice(11, 40));
    const seen = commitEndLsn(wh.resolveSnapshot(t)!.id);
    const snapshotRows = () => (rows.get('listSnapshots') ?? 0) + (rows.get('ancestors') ?? 0) + (rows.get('getSnapshot') ?? 0);

    rows.clear();
    const idle = await readCommittedTransactions(wh, [t], seen, 64);
    assert.deepEqual(idle.transactions, []);
    assert.equal(idle.end, seen);
    const idleRows = [...rows.values()].reduce((a, b) => a + b, 0);
    assert.ok(idleRows <= 2, `an idle poll read ${idleRows} rows: ${JSON.stringify([...rows])}`);

    await commit(wh, t, [[history, 'new']]);
    rows.clear();
    const busy = await readCommittedTransactions(wh, [t], idle.end, 64);
    assert.deepEqual(busy.transactions.map((x) => x.changes.map((c) => `${c.kind} ${String(c.row[0])} ${String(c.row[1])}`)), [[`insert ${history} new`]]);
    assert.ok(snapshotRows() <= 10, `a poll that found one commit read ${snapshotRows()} snapshot rows: ${JSON.stringify([...rows])}`);
  } finally {
    await cleanup();
  }
});

test('a slot far behind reads its backlog a piece at a time, each transaction whole and once', async () => {
  const { wh, rows, cleanup } = countingWarehouse();
  try {
    const a = await kvTable(wh, 'a', { 'changelog-producer': 'lookup' });
    const b = await kvTable(wh, 'b', { 'changelog-producer': 'lookup' });
    const quiet = await kvTable(wh, 'quiet', { 'changelog-producer': 'lookup' });
    const from = commitEndLsn(wh.resolveSnapshot(quiet)!.id);
    // A backlog of 120 transactions: some write a, some b, some both (a snapshot each, one seq), so cuts fall inside them.
    for (let i = 0; i < 120; i++) {
      const tx = await wh.begin();
      if (i % 3 !== 1) await tx.upsert(a, 'main', [[i], [`a${i}`]]);
      if (i % 3 !== 0) await tx.upsert(b, 'main', [[i], [`b${i}`]]);
      await tx.commit();
    }
    const shape = (x: { changes: readonly { table: TableMetadata; row: readonly unknown[] }[] }) => x.changes.map((c) => `${c.table.name}:${String(c.row[1])}`).join(' ');
    const whole = await readCommittedTransactions(wh, [a, b, quiet], from, 10_000);
    assert.equal(whole.transactions.length, 120);
    for (const max of [1, 2, 5, 16]) {
      const pieces: string[] = [];
      let at = from;
      let reads = 0;
      let mostRows = 0;
      for (;;) {
        rows.clear();
        const r = await readCommittedTransactions(wh, [a, b, quiet], at, max);
        mostRows = Math.max(mostRows, rows.get('listSnapshots') ?? 0);
        reads++;
        pieces.push(...r.transactions.map(shape));
        if (r.end === at) break;
        assert.ok(r.end > at);
        at = r.end;
        assert.ok(reads < 1000, 'the reads make progress');
      }
      assert.deepEqual(pieces, whole.transactions.map(shape), `at most ${max} snapshots a read`);
      assert.equal(at, whole.end);
      // Each of the three tables lists at most max + 1 snapshots, not the backlog.
      assert.ok(mostRows <= 3 * (max + 1), `a read of at most ${max} listed ${mostRows} snapshots`);
    }
  } finally {
    await cleanup();
  }
});

for (const noisy of ['a', 'b'] as const) {
  test(`a read cut inside a transaction leaves it whole for the next read (snapshots on another branch of ${noisy})`, async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const tables = { a: await kvTable(wh, 'a', { 'changelog-producer': 'lookup' }), b: await kvTable(wh, 'b', { 'changelog-producer': 'lookup' }) };
      await wh.createBranch(tables[noisy], 'dev');
      const from = commitEndLsn(wh.resolveSnapshot(tables.b)!.id);
      // Per round: `noisy` lists 4 snapshots on dev, which are not sent, before a transaction on both tables,
      // so a read of at most 4 stops inside that transaction, whichever table's snapshot got the lower id.
      for (let i = 0; i < 6; i++) {
        for (let k = 0; k < 4; k++) {
          const dev = await wh.begin();
          await dev.upsert(tables[noisy], 'dev', [[100 * i + k], ['dev']]);
          await dev.commit();
        }
        const both = await wh.begin();
        await both.upsert(tables.a, 'main', [[i], [`a${i}`]]);
        await both.upsert(tables.b, 'main', [[i], [`b${i}`]]);
        await both.commit();
      }
      const shape = (x: { changes: readonly { table: TableMetadata; row: readonly unknown[] }[] }) => x.changes.map((c) => `${c.table.name}:${String(c.row[1])}`).sort().join(' ');
      const whole = await readCommittedTransactions(wh, [tables.a, tables.b], from, 10_000);
      assert.deepEqual(whole.transactions.map(shape), Array.from({ length: 6 }, (_, i) => `a:a${i} b:b${i}`));
      const pieces: string[] = [];
      for (let at = from, reads = 0; ; reads++) {
        assert.ok(reads < 100, 'the reads make progress');
        const r = await readCommittedTransactions(wh, [tables.a, tables.b], at, 4);
        pieces.push(...r.transactions.map(shape));
        if (r.end === at) break;
        at = r.end;
      }
      assert.deepEqual(pieces, whole.transactions.map(shape));
    } finally {
      await cleanup();
    }
  });
}
