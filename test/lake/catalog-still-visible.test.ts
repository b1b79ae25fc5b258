import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SqlCatalog } from '../../src/lake/catalog/sql-catalog.js';
import type { CommitRequest } from '../../src/lake/catalog/catalog.js';
import { OptimizerConflict } from '../../src/lake/catalog/optimizer-conflict.js';
import { forEachCatalogBackend } from '../harness/catalog-backends.js';
import { createKeyedTable, newFileRecord as file } from '../harness/catalog-rows.js';

/*
 * An optimizer commit names the files it read as "must still be visible". With
 * requireVisibleSince (the snapshot it read them at) the catalog reads only the commits
 * after that snapshot; each case here commits the same fold with and without it and must
 * get the same answer as the check over the whole lineage.
 */

interface Table { readonly c: SqlCatalog; readonly id: number; readonly schemaId: number; at: bigint }

function write(t: Table, paths: readonly string[], removeFileIds: readonly number[] = []): bigint {
  const [s] = t.c.commit([{
    tableId: t.id, branch: 'main', operation: 'write', summary: {}, schemaId: t.schemaId, addFiles: paths.map((p) => file(p)), removeFileIds,
  }], undefined, ++t.at);
  return s!.id;
}

const idOf = (t: Table, path: string): number => t.c.allFiles(t.id).find((f) => f.path === path)!.fileId;
const head = (t: Table): bigint => t.c.getRef(t.id, 'main')!.snapshotId;

/** The fold's outcome with `since` and without it; the two must agree. */
function foldOutcomes(t: Table, read: readonly (string | number)[], since: bigint): { withSince: string; lineage: string } {
  const ids = read.map((p) => (typeof p === 'number' ? p : idOf(t, p)));
  const fold = (extra: Partial<CommitRequest>): CommitRequest => ({
    tableId: t.id, branch: 'main', operation: 'optimize', summary: {}, schemaId: t.schemaId,
    addFiles: [file(`base-${t.at}`, 'base')], removeFileIds: ids, requireVisible: ids, ...extra,
  });
  // Each attempt runs in a transaction it then throws away, so both see the same head.
  const attempt = (extra: Partial<CommitRequest>): string => {
    try {
      t.c.commit([fold(extra)], undefined, t.at + 1n);
    } catch (e) {
      if (e instanceof OptimizerConflict) return 'conflict';
      throw e;
    }
    return 'committed';
  };
  const before = head(t);
  const withSince = attempt({ requireVisibleSince: since });
  if (withSince === 'committed') t.c.putRef({ ...t.c.getRef(t.id, 'main')!, snapshotId: before }, {});
  const lineage = attempt({});
  if (lineage === 'committed') t.c.putRef({ ...t.c.getRef(t.id, 'main')!, snapshotId: before }, {});
  return { withSince, lineage };
}

forEachCatalogBackend((backend) => {
  function withTable(fn: (t: Table) => void): void {
    const place = backend().place();
    try {
      const c = place.connect();
      fn({ c, ...createKeyedTable(c), at: 10n });
    } finally {
      place.dispose();
    }
  }

  test('files untouched by the commits since the read: the fold commits, as over the whole lineage', () => {
    withTable((t) => {
      write(t, ['a', 'b']);
      const read = head(t);
      for (let i = 0; i < 5; i++) write(t, [`later-${i}`]);
      assert.deepEqual(foldOutcomes(t, ['a', 'b'], read), { withSince: 'committed', lineage: 'committed' });
      // No commit since the read at all.
      assert.deepEqual(foldOutcomes(t, ['a', 'b'], head(t)), { withSince: 'committed', lineage: 'committed' });
    });
  });

  test('a file removed by a commit since the read fails the fold, as over the whole lineage', () => {
    withTable((t) => {
      write(t, ['a', 'b']);
      const read = head(t);
      write(t, ['x']);
      write(t, ['c'], [idOf(t, 'b')]);
      write(t, ['y']);
      assert.deepEqual(foldOutcomes(t, ['a', 'b'], read), { withSince: 'conflict', lineage: 'conflict' });
      assert.deepEqual(foldOutcomes(t, ['a'], read), { withSince: 'committed', lineage: 'committed' });
    });
  });

  test('with since, only the commits after it are read (the caller names files visible at it)', () => {
    withTable((t) => {
      write(t, ['a']);
      write(t, ['b'], [idOf(t, 'a')]);
      const read = head(t);
      write(t, ['c']);
      // `a` was removed before the read: outside the contract, and it shows which commits were read.
      assert.deepEqual(foldOutcomes(t, ['a'], read), { withSince: 'committed', lineage: 'conflict' });
    });
  });

  test('a file a tiering swap replaced since the read fails the fold, as over the whole lineage', () => {
    withTable((t) => {
      const s1 = write(t, ['a']);
      const s2 = write(t, ['b']);
      const read = head(t);
      write(t, ['x']);
      const [a, b] = [idOf(t, 'a'), idOf(t, 'b')];
      const swapped = t.c.replaceFilesInPlace(t.id, [a, b], { ...file('tiered'), snapshots: [s1, s2] }, s1);
      assert.ok(swapped !== undefined, 'the swap is taken');
      assert.deepEqual(foldOutcomes(t, ['x'], read), { withSince: 'committed', lineage: 'committed' });
      assert.deepEqual(foldOutcomes(t, [a, 'x'], read), { withSince: 'conflict', lineage: 'conflict' });
      assert.deepEqual(foldOutcomes(t, [swapped.fileId, 'x'], read), { withSince: 'committed', lineage: 'committed' });
    });
  });

  test('a read snapshot the branch no longer descends from falls back to the whole lineage', () => {
    withTable((t) => {
      write(t, ['a']);
      const base = head(t);
      write(t, ['b']);
      const read = head(t);
      // Roll main back below the read, then commit on: `read` is off the branch.
      t.c.putRef({ ...t.c.getRef(t.id, 'main')!, snapshotId: base }, {});
      write(t, ['c']);
      assert.deepEqual(foldOutcomes(t, ['a'], read), { withSince: 'committed', lineage: 'committed' });
      assert.deepEqual(foldOutcomes(t, ['a', 'b'], read), { withSince: 'conflict', lineage: 'conflict' });
    });
  });

  test('a read snapshot squashed by expiry falls back to the whole lineage', () => {
    withTable((t) => {
      write(t, ['a']);
      const read = write(t, ['b']);
      write(t, ['c']);
      t.c.expire(t.id, [read], []);
      assert.equal(t.c.getSnapshot(t.id, read), undefined, 'the read snapshot was squashed into its child');
      assert.deepEqual(foldOutcomes(t, ['a', 'b'], read), { withSince: 'committed', lineage: 'committed' });
      write(t, ['d'], [idOf(t, 'a')]);
      assert.deepEqual(foldOutcomes(t, ['a', 'b'], read), { withSince: 'conflict', lineage: 'conflict' });
    });
  });
});
