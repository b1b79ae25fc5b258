import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SqlCatalog } from '../../src/lake/catalog/sql-catalog.js';
import type { CommitRequest, NewFileRecord } from '../../src/lake/catalog/catalog.js';
import { keyBitmapOf } from '../../src/lake/bucket/key-bitmap.js';
import { forEachCatalogBackend, type CatalogBackend, type CatalogPlace } from '../harness/catalog-backends.js';
import { createKeyedTable } from '../harness/catalog-rows.js';

/*
 * CommitRequest.rebaseKeyBitmap: a keyed write that checked its keys at one head still
 * commits at a newer head when every snapshot in between touched none of its keys,
 * whichever catalog connection (gateway process) made them; anything that may have
 * touched them, or that is not a plain write of change files, fails it with 40001.
 */

/** A key hash whose bitmap bit is `bit` (the bitmap keeps the top 12 bits). */
const hashAtBit = (bit: number): number => (bit << 20) >>> 0;

function changeFile(bits: readonly number[], seq: bigint): NewFileRecord {
  return {
    store: 'change', path: `data/change-${seq}-${bits.join('-')}.parquet`, partitionKey: '', partitionValues: [],
    nodeMask: 0, nodeIndex: 0, rowCount: bits.length, sizeBytes: 100, seq, firstOffset: 0, stats: {},
    dvTarget: undefined, dvPositions: undefined, rowGroups: undefined,
    keyBitmap: keyBitmapOf(Uint32Array.from(bits, hashAtBit)),
  };
}

/** Two connections to one catalog, as two gateway processes have. */
function setUp(backend: CatalogBackend): { place: CatalogPlace; a: SqlCatalog; b: SqlCatalog; tableId: number; schemaId: number } {
  const place = backend.place();
  const a = place.connect();
  const b = place.connectAsAnotherProcess();
  const t = createKeyedTable(a);
  return { place, a, b, tableId: t.id, schemaId: t.schemaId };
}

const isSerializationFailure = (e: unknown): boolean => (e as { sqlstate?: string }).sqlstate === '40001';

forEachCatalogBackend((backend) => {
test('a keyed write commits past another connection\'s commits of other keys, and fails past one that may touch its keys', () => {
  const { place, a, b, tableId, schemaId } = setUp(backend());
  try {
    const write = (bits: number[], seq: bigint, extra: Partial<CommitRequest> = {}): CommitRequest => ({
      tableId, branch: 'main', operation: 'write', summary: {}, schemaId, addFiles: [changeFile(bits, seq)], removeFileIds: [], ...extra,
    });
    const checked = a.getRef(tableId, 'main')!.snapshotId;
    // Another process commits keys at bits 1 and 2, then 3.
    b.commit([write([1, 2], 10n)], undefined, 1n);
    b.commit([write([3], 11n)], undefined, 2n);
    // Without a bitmap the moved head fails the commit, as before.
    assert.throws(() => a.commit([write([7], 9n, { expectHead: checked })], undefined, 3n), isSerializationFailure);
    // With one that misses bits 1–3 it commits on top of both.
    const [snap] = a.commit([write([7], 9n, { expectHead: checked, rebaseKeyBitmap: keyBitmapOf(Uint32Array.of(hashAtBit(7))) })], undefined, 3n);
    assert.equal(a.getSnapshot(tableId, snap!.id)!.parentId, a.getSnapshot(tableId, snap!.parentId!)!.id);
    assert.equal(a.getRef(tableId, 'main')!.snapshotId, snap!.id);
    assert.equal(a.visibleFiles(tableId, snap!.id).length, 3);
    // A key the intervening commits wrote (bit 2) fails it.
    assert.throws(
      () => a.commit([write([2, 9], 8n, { expectHead: checked, rebaseKeyBitmap: keyBitmapOf(Uint32Array.of(hashAtBit(2), hashAtBit(9))) })], undefined, 4n),
      isSerializationFailure,
    );
    assert.equal(a.getRef(tableId, 'main')!.snapshotId, snap!.id);
  } finally {
    place.dispose();
  }
});

test('a rebase does not pass a snapshot that removed files, changed the schema, or added anything but change files', () => {
  const { place, a, b, tableId, schemaId } = setUp(backend());
  try {
    const mine = keyBitmapOf(Uint32Array.of(hashAtBit(40)));
    const request = (extra: Partial<CommitRequest>): CommitRequest => ({
      tableId, branch: 'main', operation: 'write', summary: {}, schemaId, addFiles: [changeFile([40], 5n)], removeFileIds: [], ...extra,
    });
    const fileOf = (snapshotId: bigint) => a.visibleFiles(tableId, snapshotId).find((f) => f.addedIn === snapshotId)!;

    // A removal (a TRUNCATE-like write) in between.
    const [first] = b.commit([request({ addFiles: [changeFile([1], 10n)] })], undefined, 1n);
    const beforeRemoval = first!.id;
    b.commit([request({ addFiles: [changeFile([2], 11n)], removeFileIds: [fileOf(first!.id).fileId] })], undefined, 2n);
    assert.throws(() => a.commit([request({ expectHead: beforeRemoval, rebaseKeyBitmap: mine })], undefined, 3n), isSerializationFailure);

    // A file without a key bitmap in between.
    const beforeUnknown = a.getRef(tableId, 'main')!.snapshotId;
    b.commit([request({ addFiles: [{ ...changeFile([3], 12n), keyBitmap: undefined }] })], undefined, 4n);
    assert.throws(() => a.commit([request({ expectHead: beforeUnknown, rebaseKeyBitmap: mine })], undefined, 5n), isSerializationFailure);

    // A schema change in between.
    const beforeDdl = a.getRef(tableId, 'main')!.snapshotId;
    const { schemaId: newer } = b.updateTable(tableId, { columns: [{ id: 1, name: 'k', type: { kind: 'int4' }, nullable: false }, { id: 2, name: 'v', type: { kind: 'int4' }, nullable: true }] } as never);
    b.commit([request({ schemaId: newer, addFiles: [changeFile([4], 13n)] })], undefined, 6n);
    assert.throws(() => a.commit([request({ expectHead: beforeDdl, rebaseKeyBitmap: mine })], undefined, 7n), isSerializationFailure);

    // An expected head on another line (not an ancestor of the head).
    const head = a.getRef(tableId, 'main')!.snapshotId;
    assert.throws(() => a.commit([request({ schemaId: newer, expectHead: head + 1000n, rebaseKeyBitmap: mine })], undefined, 8n), isSerializationFailure);

    // Past plain writes of other keys on the newer schema it commits.
    b.commit([request({ schemaId: newer, addFiles: [changeFile([5], 14n)] })], undefined, 9n);
    const [ok] = a.commit([request({ schemaId: newer, expectHead: head, rebaseKeyBitmap: mine })], undefined, 10n);
    assert.equal(a.getRef(tableId, 'main')!.snapshotId, ok!.id);
  } finally {
    place.dispose();
  }
});
});
