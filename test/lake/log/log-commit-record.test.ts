import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeLogCommit, encodeLogCommit } from '../../../src/lake/log/log-commit-record.js';
import type { LogCommitRecord } from '../../../src/lake/log/log-commit-record.js';
import { KEY_BITMAP_BYTES, keyBitmapOf } from '../../../src/lake/bucket/key-bitmap.js';

function recordWith(keyBitmap: Uint8Array, dvPositions?: Uint32Array): LogCommitRecord {
  return {
    txnId: 'txn-1', seq: 7n,
    parts: [{
      request: { tableId: 3, branch: 'main', operation: 'write', summary: { 'added-rows': '1' }, schemaId: 0, addFiles: [], removeFileIds: [], expectHead: 5n },
      inline: [{
        file: {
          store: 'change', partitionKey: '[]', partitionValues: [], nodeMask: 0, nodeIndex: 0, rowCount: 1, seq: 7n, firstOffset: 0,
          stats: { c1: { min: '1', max: '1', nullCount: 0 } }, dvTarget: undefined, dvPositions, rowGroups: undefined, keyBitmap,
        },
        ipc: new Uint8Array([1, 2, 3, 4]),
      }],
    }],
  };
}

function roundTrip(record: LogCommitRecord): { bytes: number; keyBitmap: Uint8Array | undefined; dvPositions: Uint32Array | undefined } {
  const encoded = encodeLogCommit(record, 0n);
  const payload = Buffer.concat(encoded.parts);
  const decoded = decodeLogCommit(payload, 'log/w/0.wal', 0);
  const file = decoded.requests[0]!.addFiles[0]!;
  assert.equal(decoded.seq, 7n);
  assert.equal(file.path, `log/w/0.wal#${encoded.bodiesOffset}+4`);
  return { bytes: encoded.bodiesOffset, keyBitmap: file.keyBitmap, dvPositions: file.dvPositions };
}

test("a small commit's key bitmap is logged sparsely and reads back byte for byte", () => {
  const sparse = keyBitmapOf(Uint32Array.of(0x12345678, 0xfedcba98));
  const back = roundTrip(recordWith(sparse));
  assert.deepEqual(back.keyBitmap, sparse);
  // Dense base64 alone would be 684 characters.
  assert.ok(back.bytes < 600, `header of ${back.bytes} bytes`);
});

test('a full key bitmap and other byte arrays still read back byte for byte', () => {
  const dense = keyBitmapOf(Uint32Array.from({ length: 5000 }, (_, i) => Math.imul(i + 1, 0x9e3779b1) >>> 0));
  assert.equal(dense.length, KEY_BITMAP_BYTES);
  const positions = Uint32Array.of(0, 9, 4_000_000_000);
  const back = roundTrip(recordWith(dense, positions));
  assert.deepEqual(back.keyBitmap, dense);
  assert.deepEqual(back.dvPositions, positions);
  assert.deepEqual(roundTrip(recordWith(new Uint8Array(0))).keyBitmap, new Uint8Array(0));
});
