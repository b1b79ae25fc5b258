import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EncodedKeys } from '../../src/lake/bucket/key-encoding.js';
import type { NewFileRecord } from '../../src/lake/catalog/catalog.js';
import { keyBitmapOf } from '../../src/lake/bucket/key-bitmap.js';
import type { FrontierNode } from '../../src/lake/table/frontier.js';
import { candidatesFor } from '../../src/lake/txn/check-unique-keys.js';

/*
 * The files an insert's key check opens. A small statement meets every live change file of
 * its partition; only those whose key bitmap may hold one of its hashes (no false
 * negatives) can decide its keys, and only those become candidates.
 */

/** Hashes whose key-bitmap bits (the top 12 bits) are all different. */
const hashOf = (i: number): number => ((i << 20) | 5) >>> 0;

function changeFile(path: string, hashes: readonly number[] | undefined): NewFileRecord {
  return {
    store: 'change', path, partitionKey: '', partitionValues: [], nodeMask: 0, nodeIndex: 0, rowCount: hashes?.length ?? 1, sizeBytes: 1,
    seq: 1n, firstOffset: 0, stats: {}, dvTarget: undefined, dvPositions: undefined, rowGroups: undefined,
    keyBitmap: hashes === undefined ? undefined : keyBitmapOf(Uint32Array.from(hashes)),
  };
}

function keysOf(hashes: readonly number[]): EncodedKeys {
  return { kind: 'long', length: hashes.length, hashes: Uint32Array.from(hashes), lo: new Int32Array(hashes.length), hi: new Int32Array(hashes.length), bytes: new Uint8Array(0), offsets: new Int32Array(0) };
}

const frontier = new Map<string, FrontierNode[]>([['', [{ node: { mask: 0, index: 0 }, baseSeq: 0n, baseFiles: [] }]]]);

function candidatePaths(checked: readonly number[], visible: readonly NewFileRecord[], staged: readonly NewFileRecord[] = []): string[] {
  const keys = keysOf(checked);
  return candidatesFor({ keys, partitionOf: () => '' }, Int32Array.from(checked, (_, i) => i), visible, staged, frontier).map((c) => c.file.path).sort();
}

test('a one-row insert\'s check takes only the change files whose key bitmap may hold its key', () => {
  const visible = Array.from({ length: 200 }, (_, i) => changeFile(`v${i}`, [hashOf(i)]));
  const staged = [changeFile('s0', [hashOf(7)]), changeFile('s1', [hashOf(8)])];
  assert.deepEqual(candidatePaths([hashOf(7)], visible, staged), ['s0', 'v7']);
  assert.deepEqual(candidatePaths([hashOf(3000)], visible, staged), []);
  // A file without a bitmap (or a foreign one) cannot rule anything out.
  assert.deepEqual(candidatePaths([hashOf(3000)], [...visible, changeFile('plain', undefined)]), ['plain']);
});

test('a statement of many keys leaves the bitmap tests to the file reader: every change file of the node is a candidate', () => {
  const visible = Array.from({ length: 40 }, (_, i) => changeFile(`v${i}`, [hashOf(i)]));
  const many = Array.from({ length: 17 }, (_, i) => hashOf(1000 + i));
  assert.equal(candidatePaths(many, visible).length, 40);
  assert.deepEqual(candidatePaths(many.slice(0, 16), visible), []);
});
