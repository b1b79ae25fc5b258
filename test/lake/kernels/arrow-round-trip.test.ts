import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import type { RecordBatch } from 'apache-arrow';
import * as parquet from 'parquet-wasm/node';
import { parseTable } from 'arrow-js-ffi';
import type { SqlType } from '../../../src/common/sql-type.js';
import { FloeError } from '../../../src/common/floe-error.js';
import { arrowTypeOf, fieldIdOf, sqlTypeOfField } from '../../../src/lake/arrow/arrow-type.js';
import { buildBatch } from '../../../src/lake/arrow/batch-builder.js';
import type { BatchColumn } from '../../../src/lake/arrow/batch-builder.js';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';

const T = (kind: string, extra: object = {}) => ({ kind, ...extra }) as SqlType;

/** Every SqlType with values covering edges; the last value of each is NULL. */
const samples: [SqlType, unknown[]][] = [
  [T('bool'), [true, false, null]],
  [T('int2'), [-32768, 32767, 0, null]],
  [T('int4'), [-2147483648, 2147483647, 7, null]],
  [T('int8'), [-(2n ** 63n), 2n ** 63n - 1n, 0n, null]],
  [T('float4'), [1.5, -0.25, Infinity, NaN, null]],
  [T('float8'), [Math.PI, -1e308, -Infinity, NaN, 0, null]],
  [T('numeric', { precision: 12, scale: 2 }), ['-12.50', '9999999999.99', '0.00', '0.01', null]],
  [T('numeric', { precision: 38, scale: 10 }), ['-9999999999999999999999999999.9999999999', '1.0000000001', '0.0000000000', null]],
  [T('numeric', { precision: 5, scale: 0 }), ['99999', '-99999', '0', null]],
  [T('numeric'), ['123456789012345678901234567890.123456789', 'NaN', '-0.5', null]],
  [T('numeric', { precision: 60, scale: 4 }), ['1.2345', null]],
  [T('text'), ['', 'héllo wörld ✓ 𝄞', 'x'.repeat(1000), null]],
  [T('varchar', { length: 10 }), ['abc', null]],
  [T('bpchar', { length: 3 }), ['ab ', null]],
  [T('name'), ['pg_class', null]],
  [T('char'), ['c', null]],
  [T('json'), ['{"a": [1, 2]}', null]],
  [T('jsonb'), ['{"a": [1, 2]}', null]],
  [T('bytea'), [new Uint8Array([0, 255, 1]), new Uint8Array(0), null]],
  [T('date'), [17486, -719528, Infinity, -Infinity, 0, null]],
  [T('time'), [0n, 86_400_000_000n, 81_068_123_456n, null]],
  [T('timestamp'), [1_510_871_468_123_456n, -62_135_596_800_000_000n, 0n, 1n, null]],
  [T('timestamptz'), [1_510_871_468_123_457n, -1n, null]],
  [T('interval'), [{ months: 14, days: -3, micros: 3_600_000_001n }, { months: 0, days: 0, micros: 0n }, null]],
  [T('uuid'), ['f79c3e09-677c-4bbd-a479-3f349cb785e7', '00000000-0000-0000-0000-000000000000', null]],
  [T('oid'), [0, 16384, 4294967295, null]],
  [T('regclass'), [1259, null]],
  [T('regtype'), [23, null]],
  [T('regproc'), [1242, null]],
  [T('array', { element: T('int4') }), [[1, null, 3], [], null]],
  [T('array', { element: T('text') }), [['a', null, 'ß'], null]],
  [T('array', { element: T('timestamp') }), [[1n, -1n], null]],
  [T('array', { element: T('numeric', { precision: 10, scale: 3 }) }), [['1.500', null], null]],
  [T('array', { element: T('array', { element: T('int8') }) }), [[[1n], [], null], null]],
];

const columns: BatchColumn[] = samples.map(([type], i) => ({ name: `c${i}_${type.kind}`, type, fieldId: i + 1, nullable: true }));
const maxLen = Math.max(...samples.map(([, v]) => v.length));
// pad every column to one length with NULLs
const values = samples.map(([, v]) => [...v, ...Array(maxLen - v.length).fill(null)]);

function assertColumns(batchLike: { getChild(name: string): unknown; schema: { fields: { name: string; metadata: Map<string, string> }[] } }, label: string): void {
  for (let c = 0; c < columns.length; c++) {
    const col = columns[c]!;
    const field = batchLike.schema.fields.find((f) => f.name === col.name);
    assert.ok(field, `${label}: field ${col.name}`);
    assert.deepEqual(sqlTypeOfField(field as never), col.type, `${label}: floe.type of ${col.name}`);
    assert.equal(fieldIdOf(field as never), col.fieldId);
    const reader = columnReader(batchLike.getChild(col.name) as never, col.type);
    for (let i = 0; i < maxLen; i++) {
      assert.deepEqual(reader.get(i), values[c]![i], `${label}: ${col.name}[${i}]`);
    }
  }
}

test('builder → reader returns the canonical values for every SqlType', () => {
  const batch = buildBatch(columns, values);
  assert.equal(batch.numRows, maxLen);
  assertColumns(batch, 'memory');
  for (let c = 0; c < columns.length; c++) {
    assert.equal(String(batch.schema.fields[c]!.type), String(arrowTypeOf(columns[c]!.type)));
  }
});

test('every SqlType round-trips through Arrow IPC (stream and file)', () => {
  const table = new Table([buildBatch(columns, values)]);
  assertColumns(tableFromIPC(tableToIPC(table, 'stream')), 'ipc stream');
  assertColumns(tableFromIPC(tableToIPC(table, 'file')), 'ipc file');
});

function toParquet(batch: RecordBatch): Uint8Array {
  const wasmTable = parquet.Table.fromIPCStream(tableToIPC(new Table([batch]), 'stream'));
  const props = new parquet.WriterPropertiesBuilder().setCompression(parquet.Compression.ZSTD).build();
  return parquet.writeParquet(wasmTable, props);
}

test('every SqlType round-trips through Parquet (parquet-wasm 0.8, zstd), read via IPC and via FFI', () => {
  const bytes = toParquet(buildBatch(columns, values));
  const viaIpc = tableFromIPC(parquet.readParquet(bytes, { batchSize: 131072 }).intoIPCStream());
  assertColumns(viaIpc, 'parquet/ipc');
  // Decimal128, Timestamp µs (with and without zone), Time64 µs, FixedSizeBinary, Struct and List keep their Arrow type
  for (const f of viaIpc.schema.fields) {
    const col = columns.find((c) => c.name === f.name)!;
    assert.equal(String(f.type), String(arrowTypeOf(col.type)), `parquet keeps the Arrow type of ${f.name}`);
  }
  const ffi = parquet.readParquet(bytes, { batchSize: 131072 }).intoFFI();
  try {
    const viaFfi = parseTable(parquet.wasmMemory().buffer, ffi.arrayAddrs(), ffi.schemaAddr(), true);
    assertColumns(viaFfi, 'parquet/ffi');
  } finally {
    ffi.free();
  }
});

test('sliced batches read correctly (offsets applied)', () => {
  const batch = buildBatch(columns, values).slice(1, 3);
  for (let c = 0; c < columns.length; c++) {
    const reader = columnReader(batch.getChild(columns[c]!.name)!, columns[c]!.type);
    assert.deepEqual(reader.get(0), values[c]![1], columns[c]!.name);
    assert.deepEqual(reader.get(1), values[c]![2], columns[c]!.name);
  }
});

const isFloe = (state: string, re?: RegExp) => (e: unknown) => e instanceof FloeError && e.sqlstate === state && (re === undefined || re.test(e.message) || re.test(e.detail ?? ''));
const one = (type: SqlType, v: unknown, nullable = true) => buildBatch([{ name: 'col_x', type, fieldId: 1, nullable }], [[v]]);

test('builder errors name the column and carry the right SQLSTATE', () => {
  assert.throws(() => one(T('int4'), null, false), isFloe('23502', /col_x/));
  assert.throws(() => one(T('int4'), 'abc'), isFloe('42804', /col_x/));
  assert.throws(() => one(T('int4'), 1.5), isFloe('42804', /col_x/));
  assert.throws(() => one(T('int2'), 40000), isFloe('22003', /col_x/));
  assert.throws(() => one(T('int8'), 2n ** 63n), isFloe('22003', /col_x/));
  assert.throws(() => one(T('text'), 5), isFloe('42804', /col_x/));
  assert.throws(() => one(T('numeric', { precision: 5, scale: 2 }), 'abc'), isFloe('22P02', /col_x/));
  assert.throws(() => one(T('numeric', { precision: 5, scale: 2 }), '1000.00'), isFloe('22003', /col_x/));
  assert.throws(() => one(T('uuid'), 'not-a-uuid'), isFloe('22P02'));
  assert.throws(() => one(T('bytea'), 'x'), isFloe('42804', /col_x/));
  assert.throws(() => one(T('interval'), { months: 1 }), isFloe('42804', /col_x/));
  assert.throws(() => one(T('array', { element: T('int4') }), 3), isFloe('42804', /col_x/));
  assert.throws(() => one(T('bool'), 1), isFloe('42804', /col_x/));
});

test('numeric input is rounded half away from zero to the column scale', () => {
  const b = buildBatch([{ name: 'n', type: T('numeric', { precision: 6, scale: 2 }), fieldId: 1, nullable: true }], [['1.005', '-1.005', '2.004', '3', '1e2', 4.5]]);
  const r = columnReader(b.getChild('n')!, T('numeric', { precision: 6, scale: 2 }));
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => r.get(i)), ['1.01', '-1.01', '2.00', '3.00', '100.00', '4.50']);
});

test('building 100k rows of mixed columns works on typed arrays', () => {
  const n = 100_000;
  const cols: BatchColumn[] = [
    { name: 'id', type: T('int8'), fieldId: 1, nullable: false },
    { name: 'name', type: T('text'), fieldId: 2, nullable: true },
    { name: 'ts', type: T('timestamptz'), fieldId: 3, nullable: true },
  ];
  const ids = Array.from({ length: n }, (_, i) => BigInt(i));
  const names = Array.from({ length: n }, (_, i) => (i % 10 === 0 ? null : `name-${i}`));
  const ts = Array.from({ length: n }, (_, i) => BigInt(i) * 1_000_000n);
  const b = buildBatch(cols, [ids, names, ts]);
  assert.equal(b.numRows, n);
  assert.equal(b.getChild('name')!.nullCount, n / 10);
  assert.equal(columnReader(b.getChild('name')!, T('text')).get(n - 1), `name-${n - 1}`);
  assert.equal(columnReader(b.getChild('ts')!, T('timestamptz')).get(n - 1), BigInt(n - 1) * 1_000_000n);
});
