/**
 * changelog-producer = lookup (docs/design-notes.md, "Complete changelogs"): blind upserts
 * and deletes by key store their before-images, so table_changes shows UPDATE_BEFORE /
 * UPDATE_AFTER for an upsert of an existing key and the whole row of a delete; the stored
 * changelog reads the same after folds, tiering and a crash; concurrent writers of a key
 * cannot both commit before-images of the same row.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { isFloeError } from '../../src/common/floe-error.js';
import { openWarehouse } from '../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { changesBySnapshot, changeTexts } from './helpers/changelog-rows.js';
import { deleteRows, kvTable, setProperties, upsertRows } from './helpers/keyed-table.js';
import { columnsOf, readRows } from './helpers/read-table.js';

const LOOKUP = { 'changelog-producer': 'lookup' };

async function withWarehouse(log: boolean, fn: (wh: Warehouse, dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-changelog-'));
  const wh = await openWarehouse({ path: dir, ...(log ? {} : { log: false }) });
  try {
    await fn(wh, dir);
  } finally {
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const head = (wh: Warehouse, t: TableMetadata): bigint => wh.resolveSnapshot(t)!.id;

for (const log of [true, false]) {
  describe(`changelog-producer (${log ? 'log store' : 'no log'})`, () => {
    test('the property takes input or lookup, 22023 otherwise', async () => {
      await withWarehouse(log, async (wh) => {
        await assert.rejects(kvTable(wh, 'bad', { 'changelog-producer': 'full-compaction' }), (e) => isFloeError(e) && e.sqlstate === '22023');
        const t = await kvTable(wh, 't');
        await assert.rejects(setProperties(wh, t, { 'changelog-producer': 'Lookup' }), (e) => isFloeError(e) && e.sqlstate === '22023');
        assert.equal((await setProperties(wh, t, LOOKUP)).properties['changelog-producer'], 'lookup');
      });
    });

    test('lookup: a blind upsert of a live key is -U/+U, of a new key +I; a delete by key carries the row; a delete of nothing is nothing', async () => {
      await withWarehouse(log, async (wh) => {
        const t = await kvTable(wh, 't', LOOKUP);
        const s0 = head(wh, t);
        await upsertRows(wh, t, [{ id: 1, v: 'a' }, { id: 2, v: 'b' }]);
        await upsertRows(wh, t, [{ id: 1, v: 'A' }, { id: 3, v: 'c' }]);
        await deleteRows(wh, t, [2, 99]);
        // One statement writing a key twice, and a delete then an upsert in one transaction.
        const tx = await wh.begin();
        await tx.upsert(t, 'main', columnsOf(t, [{ id: 3, v: 'x' }, { id: 3, v: 'y' }]));
        await tx.deleteKeys(t, 'main', [[1]]);
        await tx.upsert(t, 'main', columnsOf(t, [{ id: 1, v: 'again' }]));
        await tx.commit();
        assert.deepEqual([...(await changesBySnapshot(wh, t, s0, head(wh, t))).values()], [
          ['+I id=1 v=a', '+I id=2 v=b'],
          ['-U id=1 v=a', '+U id=1 v=A', '+I id=3 v=c'],
          ['-D id=2 v=b'],
          ['-U id=3 v=c', '+U id=3 v=x', '-U id=3 v=x', '+U id=3 v=y', '-D id=1 v=A', '+I id=1 v=again'],
        ]);
        assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1, v: 'again' }, { id: 3, v: 'y' }]);
      });
    });

    test('input (the default) stores what was written: +I for every upsert, -D with the key alone', async () => {
      await withWarehouse(log, async (wh) => {
        const t = await kvTable(wh, 't');
        const s0 = head(wh, t);
        await upsertRows(wh, t, [{ id: 1, v: 'a' }]);
        await upsertRows(wh, t, [{ id: 1, v: 'A' }]);
        await deleteRows(wh, t, [1, 99]);
        assert.deepEqual(await changeTexts(wh, t, s0, head(wh, t)), ['+I id=1 v=a', '+I id=1 v=A', '-D id=1 v=NULL', '-D id=99 v=NULL']);
      });
    });

    test('lookup: before-images come from base files, change files and the transaction\'s own earlier statements', async () => {
      await withWarehouse(log, async (wh) => {
        const t = await kvTable(wh, 't', LOOKUP);
        await upsertRows(wh, t, Array.from({ length: 50 }, (_, i) => ({ id: i, v: `v${i}` })));
        await wh.optimize(t);
        await upsertRows(wh, t, [{ id: 7, v: 'seven' }]);
        const s1 = head(wh, t);
        const tx = await wh.begin();
        await tx.upsert(t, 'main', columnsOf(t, [{ id: 7, v: 'SEVEN' }, { id: 8, v: 'EIGHT' }, { id: 50, v: 'new' }]));
        await tx.deleteKeys(t, 'main', [[8, 9]]);
        await tx.commit();
        assert.deepEqual(await changeTexts(wh, t, s1, head(wh, t)), [
          '-U id=7 v=seven', '+U id=7 v=SEVEN', '-U id=8 v=v8', '+U id=8 v=EIGHT', '+I id=50 v=new', '-D id=8 v=EIGHT', '-D id=9 v=v9',
        ]);
      });
    });

    test('lookup: repeated writes of base keys find their rows again through the cached row groups, and a fold\'s deletion vector still hides superseded rows', async () => {
      await withWarehouse(log, async (wh) => {
        const t = await kvTable(wh, 't', LOOKUP);
        await upsertRows(wh, t, Array.from({ length: 2000 }, (_, i) => ({ id: i, v: `v${i}` })));
        await wh.optimize(t);
        const s1 = head(wh, t);
        // the same base group read again and again: once decoded, then from the cache
        for (let round = 0; round < 3; round++) await upsertRows(wh, t, [{ id: 5 + round, v: `r${round}` }, { id: 1500, v: `r${round}` }]);
        await deleteRows(wh, t, [1999, 4000]);
        assert.deepEqual(await changeTexts(wh, t, s1, head(wh, t)), [
          '-U id=5 v=v5', '+U id=5 v=r0', '-U id=1500 v=v1500', '+U id=1500 v=r0',
          '-U id=6 v=v6', '+U id=6 v=r1', '-U id=1500 v=r0', '+U id=1500 v=r1',
          '-U id=7 v=v7', '+U id=7 v=r2', '-U id=1500 v=r1', '+U id=1500 v=r2',
          '-D id=1999 v=v1999',
        ]);
        // a fold after which base rows of id 5 and 1500 are superseded, and a base row group already cached
        await wh.optimize(t);
        const s2 = head(wh, t);
        await upsertRows(wh, t, [{ id: 5, v: 'last' }, { id: 1500, v: 'last' }, { id: 1999, v: 'back' }, { id: 9, v: 'nine' }]);
        assert.deepEqual(await changeTexts(wh, t, s2, head(wh, t)), [
          '-U id=5 v=r0', '+U id=5 v=last', '-U id=1500 v=r2', '+U id=1500 v=last', '+I id=1999 v=back', '-U id=9 v=v9', '+U id=9 v=nine',
        ]);
      });
    });

    test('lookup: the stored changelog reads the same after folds, tiering and time travel', async () => {
      await withWarehouse(log, async (wh) => {
        const t = await kvTable(wh, 't', LOOKUP);
        const s0 = head(wh, t);
        for (let round = 0; round < 4; round++) {
          await upsertRows(wh, t, [{ id: round % 2, v: `r${round}` }, { id: 10 + round, v: 'x' }]);
          await deleteRows(wh, t, [10 + round - 1]);
        }
        const before = await changeTexts(wh, t, s0, head(wh, t));
        if (log) await wh.tierLogFiles(t);
        await wh.optimize(t);
        await upsertRows(wh, t, [{ id: 0, v: 'after the fold' }]);
        const all = await changeTexts(wh, t, s0, head(wh, t));
        assert.deepEqual(all.slice(0, before.length), before);
        assert.deepEqual(all.slice(before.length), ['-U id=0 v=r2', '+U id=0 v=after the fold']);
      });
    });

    test('lookup: two transactions upserting one key cannot both commit (40001); different keys both commit', async () => {
      await withWarehouse(log, async (wh) => {
        const t = await kvTable(wh, 't', LOOKUP);
        await upsertRows(wh, t, [{ id: 1, v: 'a' }, { id: 2, v: 'b' }]);
        const s1 = head(wh, t);
        const a = await wh.begin();
        const b = await wh.begin();
        const c = await wh.begin();
        await a.upsert(t, 'main', columnsOf(t, [{ id: 1, v: 'from a' }]));
        await b.upsert(t, 'main', columnsOf(t, [{ id: 1, v: 'from b' }]));
        await c.deleteKeys(t, 'main', [[2]]);
        await b.commit();
        await assert.rejects(a.commit(), (e) => isFloeError(e) && e.sqlstate === '40001');
        await c.commit();
        assert.deepEqual(await changeTexts(wh, t, s1, head(wh, t)), ['-U id=1 v=a', '+U id=1 v=from b', '-D id=2 v=b']);
      });
    });

    test('lookup: a write that a younger committed transaction hides stores no change', async () => {
      await withWarehouse(log, async (wh) => {
        const t = await kvTable(wh, 't', LOOKUP);
        await upsertRows(wh, t, [{ id: 1, v: 'a' }]);
        const older = await wh.begin();
        await upsertRows(wh, t, [{ id: 1, v: 'younger' }]);
        const s2 = head(wh, t);
        // The older transaction first touches the table now: it sees the younger write, whose seq wins over its own.
        await older.upsert(t, 'main', columnsOf(t, [{ id: 1, v: 'older' }, { id: 2, v: 'two' }]));
        await older.commit();
        assert.deepEqual(await changeTexts(wh, t, s2, head(wh, t)), ['+I id=2 v=two']);
        assert.deepEqual(await readRows(wh, { table: t }), [{ id: 1, v: 'younger' }, { id: 2, v: 'two' }]);
      });
    });
  });
}

test('lookup: a commit replayed from the log after a crash carries its before-images', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-changelog-crash-'));
  const dead = await openWarehouse({ path: dir });
  try {
    const t = await kvTable(dead, 't', LOOKUP);
    const s0 = head(dead, t);
    await upsertRows(dead, t, [{ id: 1, v: 'a' }]);
    await upsertRows(dead, t, [{ id: 1, v: 'b' }]);
    await deleteRows(dead, t, [1]);
    const want = await changeTexts(dead, t, s0, head(dead, t));
    assert.deepEqual(want, ['+I id=1 v=a', '-U id=1 v=a', '+U id=1 v=b', '-D id=1 v=b']);
    // Dropped unclosed, as a dead process leaves it: the next open replays its log (stale timeout 0: same pid).
    const replayed = await openWarehouse({ path: dir, staleTransactionMs: 0 });
    try {
      assert.equal(replayed.logReplay?.writers, 1);
      const t2 = replayed.getTable('public', 't')!;
      assert.deepEqual(await changeTexts(replayed, t2, s0, head(replayed, t2)), want);
    } finally {
      await replayed.close();
    }
  } finally {
    await dead.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
});
