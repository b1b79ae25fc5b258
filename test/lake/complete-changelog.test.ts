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
import { changelogCompleteBetween, openWarehouse } from '../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { deleteRows, kvTable, setProperties, upsertRows } from './helpers/keyed-table.js';

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
