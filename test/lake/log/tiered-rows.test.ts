import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Field, Int64, Utf8, makeData } from 'apache-arrow';
import { batchFromData, buildColumnData } from '../../../src/lake/arrow/batch-builder.js';
import { tieredRows } from '../../../src/lake/log/tiered-rows.js';
import { OFFSET_FILE_COLUMN, SEQ_FILE_COLUMN, SNAPSHOT_FILE_COLUMN } from '../../../src/lake/table/table-layout.js';

const int64 = (values: bigint[]) => makeData({ type: new Int64(), length: values.length, nullCount: 0, data: BigInt64Array.from(values) });

/** A decoded tiered change batch: one table column, then `_seq`, `_snapshot` and `_offset`. */
function tieredBatch() {
  const fields = [new Field('c1', new Utf8(), true), new Field(SEQ_FILE_COLUMN, new Int64(), false), new Field(SNAPSHOT_FILE_COLUMN, new Int64(), false), new Field(OFFSET_FILE_COLUMN, new Int64(), false)];
  const children = [
    buildColumnData({ kind: 'text' }, ['a', 'b', 'c', 'd', 'e'], 'c1', true),
    int64([10n, 10n, 11n, 12n, 12n]), int64([1n, 1n, 2n, 3n, 3n]), int64([0n, 1n, 0n, 0n, 1n]),
  ];
  return batchFromData(fields, children, 5);
}

test('tieredRows splits off _seq, _snapshot and _offset, keeps the rows of the commits asked for, and reads a slice from its first row', () => {
  const whole = tieredRows(tieredBatch());
  assert.deepEqual(whole.batch.schema.fields.map((f) => f.name), ['c1']);
  assert.deepEqual([...whole.seqs!], [10n, 10n, 11n, 12n, 12n]);
  assert.deepEqual([...whole.offsets!], [0n, 1n, 0n, 0n, 1n]);
  const kept = tieredRows(tieredBatch(), [1n, 3n]);
  assert.deepEqual([...kept.snapshots!], [1n, 1n, 3n, 3n]);
  assert.deepEqual([...kept.positions!], [0, 1, 3, 4]);
  assert.deepEqual([...kept.offsets!], [0n, 1n, 0n, 1n]);
  // Arrow subarrays a slice's values; its `offset` counts only for validity bits.
  const sliced = tieredRows(tieredBatch().slice(2, 5));
  assert.deepEqual([...sliced.seqs!], [11n, 12n, 12n]);
  assert.deepEqual([...sliced.snapshots!], [2n, 3n, 3n]);
  assert.deepEqual(sliced.batch.getChild('c1')!.toArray(), ['c', 'd', 'e']);
});
