import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import type { DataType, RecordBatch } from 'apache-arrow';
import * as parquet from 'parquet-wasm/node';
import { parseTable } from 'arrow-js-ffi';
import type { SqlType } from '../../../src/common/sql-type.js';
import { FloeError } from '../../../src/common/floe-error.js';
import { arrowTypeOf } from '../../../src/lake/arrow/arrow-type.js';
import { buildBatch } from '../../../src/lake/arrow/batch-builder.js';
import { hasMultidimensional, multidimArrowType } from '../../../src/lake/arrow/multidim-array.js';
import type { BatchColumn } from '../../../src/lake/arrow/batch-builder.js';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';
import { assertColumns, columns, maxLen, T, values } from './sql-type-samples.js';

/** arrowTypeOf, but Struct{dims, items} for an array column holding a multi-dimensional value (multidim-array.ts). */
function expectedArrowType(type: SqlType, vals: readonly unknown[]): DataType {
  const t = arrowTypeOf(type);
  return type.kind === 'array' && type.element.kind !== 'array' && hasMultidimensional(vals) ? multidimArrowType(t) : t;
}

test('builder → reader returns the canonical values for every SqlType', () => {
  const batch = buildBatch(columns, values);
  assert.equal(batch.numRows, maxLen);
  assertColumns(batch, 'memory');
  for (let c = 0; c < columns.length; c++) {
    assert.equal(String(batch.schema.fields[c]!.type), String(expectedArrowType(columns[c]!.type, values[c]!)));
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
    assert.equal(String(f.type), String(expectedArrowType(col.type, values[columns.indexOf(col)]!)), `parquet keeps the Arrow type of ${f.name}`);
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
