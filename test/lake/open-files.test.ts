import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalStorage } from '../../src/lake/storage/local-storage.js';
import { openFileCount } from '../../src/lake/storage/open-files.js';
import { isFloeError } from '../../src/common/floe-error.js';

/*
 * Data files are read through descriptors kept open between reads (open-files.ts): the
 * reads return the right bytes, a delete through the storage closes the descriptor and
 * the file then reads as missing, the cache stays bounded, and files that may change under
 * their name (log segments) are opened per read, so an append is seen.
 */

function withStorage(fn: (s: LocalStorage, dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-open-files-'));
  return fn(new LocalStorage(dir), dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

const same = (got: Uint8Array, want: Uint8Array, what?: string): void => assert.deepEqual(Buffer.from(got), Buffer.from(want), what);
const bytes = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) & 0xff);

test('a data file is read through one kept descriptor; a delete closes it and the file is then missing', () => withStorage(async (s) => {
  const before = openFileCount();
  const data = bytes(5000, 1);
  await s.put('data/1/change-a.parquet', data);
  same(await s.getRange('data/1/change-a.parquet', 100, 50), data.subarray(100, 150));
  const blob = await s.openBlob('data/1/change-a.parquet');
  same(new Uint8Array(await blob.slice(4000, 4100).arrayBuffer()), data.subarray(4000, 4100));
  assert.equal(openFileCount(), before + 1, 'both reads used one descriptor');
  // a range past the end returns what there is, as before
  same(await s.getRange('data/1/change-a.parquet', 4990, 50), data.subarray(4990));
  await s.delete('data/1/change-a.parquet');
  assert.equal(openFileCount(), before);
  await assert.rejects(s.getRange('data/1/change-a.parquet', 0, 10), (e: unknown) => isFloeError(e) && e.sqlstate === '58030');
}));

test('the kept descriptors stay bounded, and reads of many files at once all see their own bytes', () => withStorage(async (s) => {
  const n = 80;
  for (let i = 0; i < n; i++) await s.put(`data/2/base-${i}.parquet`, bytes(256, i));
  const got = await Promise.all(Array.from({ length: n }, (_, i) => s.getRange(`data/2/base-${i}.parquet`, 0, 256)));
  got.forEach((g, i) => same(g, bytes(256, i), `file ${i}`));
  assert.ok(openFileCount() <= 32, `${openFileCount()} descriptors kept`);
}));

test('a file that may grow under its name (a log segment) is opened per read, so an append is seen', () => withStorage(async (s, dir) => {
  const before = openFileCount();
  await s.put('log/w1/00000000000000000001.wal', bytes(100, 3));
  assert.equal((await s.getRange('log/w1/00000000000000000001.wal', 0, 200)).length, 100);
  appendFileSync(join(dir, 'log/w1/00000000000000000001.wal'), bytes(50, 4));
  assert.equal((await s.getRange('log/w1/00000000000000000001.wal', 0, 200)).length, 150);
  assert.equal(openFileCount(), before);
}));
