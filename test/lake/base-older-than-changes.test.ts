/**
 * When a scan task may leave the base rows' `_seq` unread (base-older-than-changes.ts):
 * only when every change file is at or above every base file's seq, none is tiered, and
 * the scan does not project `_seq`. Otherwise a base row may beat a change (it was folded
 * from a newer one) and the merge must compare their seqs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rootNode } from '../../src/lake/bucket/bucket-node.js';
import { baseOlderThanChanges } from '../../src/lake/scan/base-older-than-changes.js';
import type { ScanFile, ScanTask } from '../../src/lake/scan/scan-types.js';

const file = (store: 'base' | 'change', seq: bigint, extra: Partial<ScanFile> = {}): ScanFile => ({
  fileId: Number(seq), path: `${store}-${seq}.parquet`, store, rowCount: 10, sizeBytes: 100, seq, firstOffset: 0,
  node: rootNode(), filterByHash: false, ...extra,
});

const task = (baseFiles: ScanFile[], changeFiles: ScanFile[], projection = ['id', 'v']): ScanTask => ({
  tableId: 1, storage: { kind: 'local', root: '/nowhere' }, columns: [], keyColumns: ['id'], projection, filters: [],
  partitionKey: '', node: rootNode(), baseFiles, changeFiles,
});

test('base rows are older than changes at or above every base file\'s seq', () => {
  assert.equal(baseOlderThanChanges(task([file('base', 10n), file('base', 7n)], [file('change', 10n), file('change', 12n)])), true);
  assert.equal(baseOlderThanChanges(task([file('base', 10n)], [])), true, 'no change: nothing to beat');
  assert.equal(baseOlderThanChanges(task([], [file('change', 3n)])), true, 'no base rows');
});

test('a change below some base file, a tiered change file, or a projected _seq keeps the seq comparison', () => {
  // The seq-12 base file folded changes up to 12, possibly this seq-11 one's key.
  assert.equal(baseOlderThanChanges(task([file('base', 7n), file('base', 12n)], [file('change', 11n)])), false);
  assert.equal(baseOlderThanChanges(task([file('base', 7n)], [file('change', 9n, { tiered: true })])), false);
  assert.equal(baseOlderThanChanges(task([file('base', 7n)], [file('change', 9n)], ['id', 'v', '_seq'])), false);
});
