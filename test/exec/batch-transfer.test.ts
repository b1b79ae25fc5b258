import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Dictionary, Field, Int32, makeData, Map_, Null, RecordBatch, Schema, Struct, Utf8, vectorFromArray } from 'apache-arrow';
import { isFloeError } from '../../src/common/floe-error.js';
import { buildBatch } from '../../src/lake/arrow/batch-builder.js';
import { decodeColumns, encodeColumnar } from '../../src/exec/arrow/columnar-batch.js';
import { packBatches, unpackBatches } from '../../src/exec/arrow/batch-transfer.js';
import { assertColumns, columns, maxLen, values } from '../lake/kernels/sql-type-samples.js';
import type { SqlType } from '../../src/common/sql-type.js';

const HEADER = 16;

/** Packs, then unpacks from a copy, as a transfer to another thread would leave it. */
function across(batches: readonly RecordBatch[], header = HEADER): RecordBatch[] {
  const packed = packBatches(batches, header);
  return unpackBatches(packed.slice(), header);
}

test('every SqlType crosses with its values, Arrow types, field ids and NULLs', () => {
  const batch = buildBatch(columns, values);
  const [back, ...rest] = across([batch]);
  assert.equal(rest.length, 0);
  assert.equal(back!.numRows, maxLen);
  assertColumns(back!, 'transfer');
  batch.schema.fields.forEach((f, i) => {
    assert.equal(String(back!.schema.fields[i]!.type), String(f.type), f.name);
    assert.equal(back!.schema.fields[i]!.nullable, f.nullable, f.name);
  });
});

test('sliced data keeps its offset: the rows read are the slice\'s', () => {
  const sliced = buildBatch(columns, values).slice(1, 3);
  const [back] = across([sliced]);
  assert.equal(back!.numRows, 2);
  // The sliced batch itself is the reference (the lake's round-trip test shows it reads rows 1 and 2).
  for (let c = 0; c < columns.length; c++) {
    const a = decodeColumns(sliced, [columns[c]!.name], [columns[c]!.type]);
    const b = decodeColumns(back!, [columns[c]!.name], [columns[c]!.type]);
    assert.deepEqual([...b.columns[0]!], [...a.columns[0]!], columns[c]!.name);
  }
});

test('several batches, schema metadata and the caller\'s header bytes all survive', () => {
  const types: SqlType[] = [{ kind: 'int4' } as SqlType, { kind: 'text' } as SqlType];
  const cols = [{ name: 'k', type: types[0]! }, { name: 's', type: types[1]! }];
  const one = encodeColumnar(cols, { numRows: 3, columns: [[1, null, 3], ['a', 'bb', null]] });
  const two = encodeColumnar(cols, { numRows: 1, columns: [[4], ['ccc']] });
  const schema = new Schema(one.schema.fields, new Map([['floe.note', 'kept']]));
  const packed = packBatches([new RecordBatch(schema, one.data), new RecordBatch(schema, two.data)], HEADER);
  new DataView(packed.buffer).setFloat64(0, 42, true);
  const back = unpackBatches(packed, HEADER);
  assert.equal(new DataView(packed.buffer).getFloat64(0, true), 42, 'the header is the caller\'s');
  assert.deepEqual(back.map((b) => b.numRows), [3, 1]);
  assert.equal(back[0]!.schema.metadata.get('floe.note'), 'kept');
  const rows = back.flatMap((b) => {
    const d = decodeColumns(b, ['k', 's'], types);
    return [...Array(d.numRows).keys()].map((i) => [d.columns[0]![i], d.columns[1]![i]]);
  });
  assert.deepEqual(rows, [[1, 'a'], [null, 'bb'], [3, null], [4, 'ccc']]);
});

test('no batches pack to the header alone and unpack to none', () => {
  const packed = packBatches([], HEADER);
  assert.equal(packed.byteLength, HEADER);
  assert.deepEqual(unpackBatches(packed, HEADER), []);
});

test('a dictionary column (a text chunk read as its codes) crosses with its dictionary', () => {
  const dictValues = vectorFromArray(['x', 'yy', 'zzz'], new Utf8());
  const codes = makeData({ type: new Dictionary(new Utf8(), new Int32()), length: 4, nullCount: 0, data: Int32Array.of(2, 0, 0, 1), dictionary: dictValues });
  const schema = new Schema([new Field('d', codes.type, false)]);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 4, nullCount: 0, children: [codes] }));
  const [back] = across([batch]);
  assert.deepEqual([...back!.getChild('d')!], ['zzz', 'x', 'x', 'yy']);
  assert.equal(back!.schema.fields[0]!.nullable, false);
});

test('bytes that start at an unaligned offset of their buffer still unpack', () => {
  const cols = [{ name: 'v', type: { kind: 'float8' } as SqlType }];
  const batch = encodeColumnar(cols, { numRows: 3, columns: [[1.5, -2, null]] });
  const packed = packBatches([batch], HEADER);
  const shifted = new Uint8Array(packed.byteLength + 3);
  shifted.set(packed, 3);
  const [back] = unpackBatches(shifted.subarray(3), HEADER);
  assert.deepEqual([...decodeColumns(back!, ['v'], [cols[0]!.type]).columns[0]!], [1.5, -2, null]);
});

test('an Arrow type Floe never ships is refused with an internal error, not sent garbled', () => {
  const entries = new Struct([new Field('key', new Utf8(), false), new Field('value', new Int32(), true)]);
  const schema = new Schema([new Field('m', new Map_(new Field('entries', entries, false) as never), true)]);
  // The schema is described before any buffer, so its field's data need not be a real map.
  const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 0, nullCount: 0, children: [makeData({ type: new Null(), length: 0 })] }));
  assert.throws(() => packBatches([batch], HEADER), (e: unknown) => isFloeError(e) && e.sqlstate === 'XX000' && /Map/.test(e.message));
});
