import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Field, Int32, RecordBatch, Schema, Struct, Utf8, makeData, tableToIPC, Table } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { buildBatch } from '../../../src/lake/arrow/batch-builder.js';
import { recordBatchOf, sliceBatch } from '../../../src/lake/arrow/record-batch-of.js';

/** What a reader of the batch sees: its schema, its rows, and the IPC bytes a writer makes of it. */
function seen(b: RecordBatch): unknown {
  return {
    fields: b.schema.fields.map((f) => [f.name, String(f.type), f.nullable, [...f.metadata]]),
    schemaMetadata: [...b.schema.metadata],
    numRows: b.numRows,
    numCols: b.numCols,
    rows: Array.from({ length: b.numRows }, (_, i) => b.get(i)?.toJSON()),
    columns: b.schema.fields.map((f) => b.getChild(f.name)?.toArray()),
    ipc: [...tableToIPC(new Table([b]))],
  };
}

test('recordBatchOf builds what the RecordBatch constructor builds from the same schema and data', () => {
  const source = buildBatch(
    [{ name: 'k', type: { kind: 'int4' }, fieldId: 1, nullable: false }, { name: 's', type: { kind: 'text' }, fieldId: 2, nullable: true }],
    [[1, 2, 3], ['a', null, 'c']],
  );
  const schema = new Schema(source.schema.fields, new Map([['origin', 'test']]));
  const data = makeData({ type: new Struct(schema.fields), length: 3, nullCount: 0, children: source.data.children });
  const fast = recordBatchOf(schema, data);
  assert.ok(fast instanceof RecordBatch);
  assert.deepEqual(seen(fast), seen(new RecordBatch(schema, data)));
  assert.deepEqual(seen(fast.slice(1, 3)), seen(new RecordBatch(schema, data).slice(1, 3)));
});

test('recordBatchOf leaves a child of another length to the constructor, which pads it with nulls', () => {
  const fields = [new Field('a', new Int32(), false), new Field('b', new Utf8(), false)];
  const a = makeData({ type: new Int32(), length: 3, nullCount: 0, data: Int32Array.from([1, 2, 3]) });
  const b = makeData({ type: new Utf8(), length: 2, nullCount: 0, valueOffsets: Int32Array.from([0, 1, 2]), data: new TextEncoder().encode('xy') });
  const data = makeData({ type: new Struct(fields), length: 3, nullCount: 0, children: [a, b as Data] });
  const batch = recordBatchOf(new Schema(fields), data);
  assert.deepEqual(seen(batch), seen(new RecordBatch(new Schema(fields), data)));
  assert.equal(batch.getChild('b')!.get(2), null);
  assert.equal(batch.schema.fields[1]!.nullable, true, 'the padded field became nullable, as the constructor makes it');
});

test('sliceBatch reads as RecordBatch.slice, ranges past either end clamped', () => {
  const batch = buildBatch(
    [{ name: 'k', type: { kind: 'int8' }, fieldId: 1, nullable: false }, { name: 's', type: { kind: 'text' }, fieldId: 2, nullable: true }],
    [[10n, 20n, 30n, 40n], ['w', 'x', null, 'z']],
  );
  for (const [begin, end] of [[0, 4], [1, 2], [2, 4], [3, 3], [0, 9], [5, 9]] as const) {
    assert.deepEqual(seen(sliceBatch(batch, begin, end)), seen(batch.slice(begin, end)), `[${begin}, ${end})`);
  }
});
