/**
 * changelogCompleteBetween: whether a keyed table's changes between two snapshots all carry
 * their before-images (what lets a materialized view's refresh read ΔR from change rows). A
 * range is complete only when every commit on its lineage was written under
 * changelog-producer 'lookup' or is an optimize; an input commit, a switch of the property
 * either way with input commits in the range, or a snapshot expired out of the lineage, and
 * it is not.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { changelogCompleteBetween, keysUnchangedBetween, openWarehouse } from '../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { deleteRows, kvTable, setProperties, upsertRows } from './helpers/keyed-table.js';
import { columnsOf } from './helpers/read-table.js';

const head = (wh: Warehouse, t: TableMetadata): bigint => wh.resolveSnapshot(t)!.id;
const complete = (wh: Warehouse, t: TableMetadata, from: bigint, to: bigint): boolean =>
  changelogCompleteBetween(wh.listSnapshots(t, { from: from + 1n, to }), from, to);

test('a range is complete when every commit on it was written with a lookup changelog or is an optimize', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-complete-changelog-'));
  const wh = await openWarehouse({ path: dir });
  try {
    let t = await kvTable(wh, 't', { 'changelog-producer': 'lookup' });
    const other = await kvTable(wh, 'other');
    await upsertRows(wh, t, [{ id: 1, v: 'a' }, { id: 2, v: 'b' }]);
    const s1 = head(wh, t);
    await upsertRows(wh, other, [{ id: 1, v: 'x' }]);
    await upsertRows(wh, t, [{ id: 1, v: 'c' }]);
    await deleteRows(wh, t, [2]);
    await wh.optimize(t);
    const s2 = head(wh, t);
    assert.equal(complete(wh, t, s1, s2), true, 'lookup writes, an optimize, and another table\'s commit between them');
    assert.equal(complete(wh, t, s2, s2), true, 'an empty range');

    t = await setProperties(wh, t, { 'changelog-producer': 'input' });
    await upsertRows(wh, t, [{ id: 3, v: 'd' }]);
    const s3 = head(wh, t);
    assert.equal(complete(wh, t, s2, s3), false, 'an input commit');
    assert.equal(complete(wh, t, s1, s3), false, 'an input commit after lookup ones');

    t = await setProperties(wh, t, { 'changelog-producer': 'lookup' });
    await upsertRows(wh, t, [{ id: 3, v: 'e' }]);
    const s4 = head(wh, t);
    assert.equal(complete(wh, t, s3, s4), true, 'lookup again after the input commit');
    assert.equal(complete(wh, t, s2, s4), false, 'the input commit is still in the range');

    const before = wh.listSnapshots(t, { from: s1 + 1n, to: s2 });
    const cut = before.filter((s) => s.id !== before[0]!.id);
    assert.equal(changelogCompleteBetween(cut, s1, s2), false, 'a snapshot missing from the lineage (expired)');
    assert.equal(complete(wh, t, s2, s1), false, 'a range that runs backwards');
  } finally {
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lookup commit records how many keys appeared or went, and a range whose commits record none leaves the keys as they were', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-keys-unchanged-'));
  const wh = await openWarehouse({ path: dir });
  try {
    let t = await kvTable(wh, 't', { 'changelog-producer': 'lookup' });
    const recorded = (): string | undefined => wh.resolveSnapshot(t)!.summary['keys-added-or-removed'];
    const unchanged = (from: bigint, to: bigint): boolean => keysUnchangedBetween(wh.listSnapshots(t, { from: from + 1n, to }), from, to);
    await upsertRows(wh, t, [{ id: 1, v: 'a' }, { id: 2, v: 'b' }]);
    assert.equal(recorded(), '2', 'two new keys: +I, +I');
    const s1 = head(wh, t);
    await upsertRows(wh, t, [{ id: 1, v: 'c' }]);
    assert.equal(recorded(), '0', 'an upsert of a live key: -U, +U');
    await deleteRows(wh, t, [9]);
    assert.equal(recorded(), '0', 'a delete of an absent key stores nothing');
    await wh.optimize(t);
    const s2 = head(wh, t);
    assert.equal(unchanged(s1, s2), true, 'updates, a delete of nothing and an optimize');
    assert.equal(unchanged(s2, s2), true, 'an empty range');
    await deleteRows(wh, t, [2]);
    assert.equal(recorded(), '1');
    const s3 = head(wh, t);
    assert.equal(unchanged(s1, s3), false, 'a key went');
    assert.equal(unchanged(s2, s3), false);

    // A savepoint rolled back takes its rows' count with it.
    const tx = await wh.begin();
    await tx.upsert(t, 'main', columnsOf(t, [{ id: 5, v: 'e' }]));
    const mark = tx.savepoint();
    await tx.upsert(t, 'main', columnsOf(t, [{ id: 6, v: 'f' }, { id: 7, v: 'g' }]));
    await tx.rollbackTo(mark);
    await tx.upsert(t, 'main', columnsOf(t, [{ id: 1, v: 'h' }]));
    await tx.commit();
    assert.equal(recorded(), '1', 'key 5 appeared; 6 and 7 were rolled back; key 1 was updated');

    const s4 = head(wh, t);
    await upsertRows(wh, t, [{ id: 1, v: 'i' }]);
    const s5 = head(wh, t);
    assert.equal(unchanged(s4, s5), true);
    const snapshots = wh.listSnapshots(t, { from: s4 + 1n, to: s5 });
    const unrecorded = snapshots.map((s) => ({ ...s, summary: Object.fromEntries(Object.entries(s.summary).filter(([k]) => k !== 'keys-added-or-removed')) }));
    assert.equal(keysUnchangedBetween(unrecorded, s4, s5), false, 'a commit that does not record it (written before it was recorded)');

    t = await setProperties(wh, t, { 'changelog-producer': 'input' });
    await upsertRows(wh, t, [{ id: 1, v: 'j' }]);
    assert.equal(recorded(), undefined, 'an input commit records nothing');
    assert.equal(unchanged(s5, head(wh, t)), false, 'and its range is not complete');
  } finally {
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
