import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DataType, makeVector, Table, tableToIPC } from 'apache-arrow';
import type { RecordBatch } from 'apache-arrow';
import * as pq from 'parquet-wasm';
import type { SqlType } from '../../../src/common/sql-type.js';
import { FloeError } from '../../../src/common/floe-error.js';
import { buildBatch } from '../../../src/lake/arrow/batch-builder.js';
import type { BatchColumn } from '../../../src/lake/arrow/batch-builder.js';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';
import { copyBatch } from '../../../src/lake/arrow/take-rows.js';
import { DecodeMemory } from '../../../src/lake/format/decode-memory.js';
import { readColumnsInJs } from '../../../src/lake/format/native-parquet-reader.js';
import { readFooter } from '../../../src/lake/format/parquet-footer.js';
import { bytesSource, decodeParquet, decodeParquetColumns, encodeParquet } from '../../../src/lake/format/parquet-io.js';

const T = (kind: string, extra: object = {}) => ({ kind, ...extra }) as SqlType;

/** Every flat SqlType, each with values covering its edges and a NULL. */
const samples: [SqlType, boolean, unknown[]][] = [
  [T('bool'), true, [true, false, null]],
  [T('int2'), true, [-32768, 32767, 0, null]],
  [T('int4'), true, [-2147483648, 2147483647, 7, null]],
  [T('int8'), true, [-(2n ** 63n), 2n ** 63n - 1n, 0n, null]],
  [T('int8'), false, [5n, -7n, 2n ** 40n]],
  [T('float4'), true, [1.5, -0.25, Infinity, NaN, null]],
  [T('float8'), true, [Math.PI, -1e308, -Infinity, NaN, 0, null]],
  [T('numeric', { precision: 5, scale: 0 }), true, ['99999', '-99999', '0', null]],
  [T('numeric', { precision: 15, scale: 2 }), true, ['-12.50', '9999999999999.99', '-9999999999999.99', '0.01', null]],
  [T('numeric', { precision: 15, scale: 2 }), false, ['1.00', '-0.01']],
  [T('numeric', { precision: 38, scale: 10 }), true, ['-9999999999999999999999999999.9999999999', '1.0000000001', '-0.0000000001', null]],
  [T('numeric'), true, ['123456789012345678901234567890.123456789', 'NaN', null]],
  [T('text'), true, ['', 'héllo wörld ✓ 𝄞', 'x'.repeat(300), 'abc', null]],
  [T('text'), false, ['MAIL', 'TRUCK', 'DELIVER IN PERSON']],
  [T('bpchar', { length: 3 }), true, ['ab ', null]],
  [T('jsonb'), true, ['{"a": [1, 2]}', null]],
  [T('bytea'), true, [new Uint8Array([0, 255, 1]), new Uint8Array(0), null]],
  [T('date'), true, [17486, -719528, Infinity, -Infinity, 0, null]],
  [T('time'), true, [0n, 86_400_000_000n, 81_068_123_456n, null]],
  [T('timestamp'), true, [1_510_871_468_123_456n, -62_135_596_800_000_000n, 0n, null]],
  [T('timestamptz'), true, [1_510_871_468_123_457n, -1n, null]],
  [T('uuid'), true, ['f79c3e09-677c-4bbd-a479-3f349cb785e7', '00000000-0000-0000-0000-000000000000', null]],
  [T('oid'), true, [0, 16384, 4294967295, null]],
  // Hundreds of distinct values: dictionary indices wider than a byte, and dictionaries that overflow.
  [T('text'), true, [...Array.from({ length: 700 }, (_, i) => `value ${i} `.repeat(1 + (i % 4))), null]],
  [T('int8'), true, [...Array.from({ length: 700 }, (_, i) => BigInt(i) * 1_000_003n - 350_000_000n), null]],
  // Stored as a FIXED_LEN_BYTE_ARRAY narrower than 16 bytes: negative values sign-extend.
  [T('numeric', { precision: 20, scale: 2 }), true, ['-123456789012345678.90', '123456789012345678.90', '-0.01', null]],
];

const columns: BatchColumn[] = samples.map(([type, nullable], i) => ({ name: `c${i}`, type, fieldId: i + 1, nullable }));

/**
 * `rows` rows cycling each column's values with a stride of its own, so NULLs fall
 * in runs and alone, and pages and row groups end at different values.
 */
function sampleRows(rows: number): unknown[][] {
  return samples.map(([, nullable, v], c) => Array.from({ length: rows }, (_, r) => {
    // Every 7th row of column c (c odd) is a run of the column's NULL, so levels hold RLE runs as well as bit-packed ones.
    if (nullable && c % 2 === 1 && Math.floor(r / 50) % 7 === 3) return null;
    return v[(r * (c + 1) + Math.floor(r / 3)) % v.length];
  }));
}

const ROWS = 3000;
const values = sampleRows(ROWS);
const batch = buildBatch(columns, values);
const names = columns.map((c) => c.name);

/** Asserts that `batches` hold rows `[from, …)` of `values`, and carry the written fields. */
function assertRows(batches: readonly RecordBatch[], rowIndexes: readonly number[], label: string): void {
  assert.equal(batches.reduce((n, b) => n + b.numRows, 0), rowIndexes.length, `${label}: row count`);
  let at = 0;
  for (const b of batches) {
    for (let c = 0; c < columns.length; c++) {
      const field = b.schema.fields[c]!;
      assert.equal(field.name, columns[c]!.name, label);
      assert.equal(String(field.type), String(batch.schema.fields[c]!.type), `${label}: type of ${field.name}`);
      assert.deepEqual(field.metadata, batch.schema.fields[c]!.metadata, `${label}: metadata of ${field.name}`);
      const reader = columnReader(b.getChildAt(c)!, columns[c]!.type);
      for (let i = 0; i < b.numRows; i++) {
        assert.deepEqual(reader.get(i), values[c]![rowIndexes[at + i]!], `${label}: ${field.name}[${rowIndexes[at + i]}]`);
      }
    }
    at += b.numRows;
  }
}

/**
 * Decode memory that hands out bytes full of garbage, as reused memory may be: a
 * decoder that relied on fresh (zeroed) or on last time's memory fails here.
 */
class PoisonedMemory extends DecodeMemory {
  override take(role: string, bytes: number): Uint8Array {
    return super.take(role, bytes).fill(0xa5);
  }
}

/** Fixed-width values under NULLs are zero, as Arrow's own builders leave them (hashing and comparing never see garbage). */
function assertZeroUnderNulls(batches: readonly RecordBatch[], label: string): void {
  for (const b of batches) {
    for (let c = 0; c < b.numCols; c++) {
      const d = b.getChildAt(c)!.data[0]!;
      if (d.valueOffsets !== undefined || d.nullCount === 0 || DataType.isBool(d.type)) continue;
      const bytes = new Uint8Array(d.values.buffer, d.values.byteOffset, d.values.byteLength);
      const width = bytes.length / d.length;
      for (let i = 0; i < d.length; i++) {
        if (!d.getValid(i)) assert.ok(bytes.subarray(i * width, (i + 1) * width).every((x) => x === 0), `${label}: ${b.schema.fields[c]!.name}[${i}] is NULL over non-zero bytes`);
      }
    }
  }
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

async function readInJs(bytes: Uint8Array, path: string, rowGroups?: readonly number[]): Promise<RecordBatch[] | undefined> {
  const batches = await readColumnsInJs(bytesSource(bytes), path, names, rowGroups, copyBatch, new PoisonedMemory());
  if (batches !== undefined) assertZeroUnderNulls(batches, path);
  return batches;
}

test('the JS reader decodes every flat SqlType of a Floe data file (NULLs, required columns, several row groups)', async () => {
  const bytes = encodeParquet([batch], batch.schema, 1024);
  const js = await readInJs(bytes, 'floe-writer.parquet');
  assert.ok(js !== undefined, 'the JS reader handles the files Floe writes');
  assert.deepEqual(js.map((b) => b.numRows), [1024, 1024, 952]);
  assertRows(js, range(0, ROWS), 'js');
  // parquet-wasm agrees (the reader the JS one replaces).
  assertRows(decodeParquet(bytes, 'floe-writer.parquet'), range(0, ROWS), 'wasm');
  // Some row groups only, and a few columns in another order.
  assertRows((await readInJs(bytes, 'floe-writer.parquet', [2, 0]))!, [...range(2048, ROWS), ...range(0, 1024)], 'js, row groups 2 and 0');
  const some = (await readColumnsInJs(bytesSource(bytes), 'floe-writer.parquet', ['c13', 'c3', 'missing'], undefined, copyBatch))!;
  assert.deepEqual(some[0]!.schema.fields.map((f) => f.name), ['c13', 'c3']);
  assert.deepEqual(columnReader(some[1]!.getChildAt(0)!, T('text')).get(5), values[13]![1029]);
});

/** Writes `batch` through parquet-wasm with the given properties, as other writers (or earlier Floe) would. */
function writeWith(configure: (b: pq.WriterPropertiesBuilder) => pq.WriterPropertiesBuilder): Uint8Array {
  const wasmTable = pq.Table.fromIPCStream(tableToIPC(new Table([batch]), 'stream'));
  return pq.writeParquet(wasmTable, configure(new pq.WriterPropertiesBuilder().setMaxRowGroupSize(1024)).build());
}

test('LZ4 on every column, many pages a chunk, dictionaries on every column and dictionaries overflowing to PLAIN all read the same', async () => {
  // Floe's writer before fixed-width columns were stored uncompressed: LZ4_RAW throughout.
  const lz4 = writeWith((b) => b.setCompression(pq.Compression.LZ4_RAW).setDictionaryEnabled(false).setColumnDictionaryEnabled('c12', true));
  // Pages of about 1 KB: levels, values and dictionary indices cross page boundaries.
  const paged = writeWith((b) => b.setCompression(pq.Compression.LZ4_RAW).setDataPageSizeLimit(1024).setWriteBatchSize(100));
  // Dictionary on every column (arrow-rs's default), cut short so chunks switch to PLAIN part way.
  const overflowing = writeWith((b) => b.setCompression(pq.Compression.UNCOMPRESSED).setDictionaryPageSizeLimit(64).setWriteBatchSize(100));
  for (const [label, bytes] of [['lz4', lz4], ['paged', paged], ['overflowing dictionary', overflowing]] as const) {
    const js = await readInJs(bytes, `${label}.parquet`);
    assert.ok(js !== undefined, `${label}: read in JS`);
    assertRows(js, range(0, ROWS), label);
  }
});

test('files the JS reader does not decode go through parquet-wasm, with the same values', async () => {
  const zstd = writeWith((b) => b.setCompression(pq.Compression.ZSTD));
  const pagesV2 = writeWith((b) => b.setWriterVersion(pq.WriterVersion.V2));
  const delta = writeWith((b) => b.setDictionaryEnabled(false).setColumnEncoding('c3', pq.Encoding.DELTA_BINARY_PACKED));
  for (const [label, bytes] of [['zstd', zstd], ['data pages v2', pagesV2], ['delta-encoded int8', delta]] as const) {
    assert.equal(await readInJs(bytes, `${label}.parquet`), undefined, `${label}: not for the JS reader`);
    assertRows(await decodeParquetColumns(bytesSource(bytes), `${label}.parquet`, names), range(0, ROWS), label);
  }
});

test('a damaged page is a data-corrupted error naming the file', async () => {
  const bytes = encodeParquet([batch], batch.schema, 1024);
  const footer = readFooter(bytes)!;
  const text = footer.rowGroups[1]!.chunks.get('c12')!;
  const numbers = footer.rowGroups[0]!.chunks.get('c3')!;
  // A page header claiming more bytes than its chunk has; LZ4 text whose matches point before the page's start.
  const overrun = bytes.slice();
  overrun.set([0x15, 0x00, 0x15, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0x15, 0xfe, 0xff, 0xff, 0xff, 0x0f], numbers.firstPageOffset);
  const badLz4 = bytes.slice();
  const lastPage = text.firstPageOffset + text.compressedBytes;
  badLz4.fill(0x0f, lastPage - 40, lastPage);
  for (const [label, damaged, column] of [['page header', overrun, 'c3'], ['LZ4 block', badLz4, 'c12']] as const) {
    await assert.rejects(
      readColumnsInJs(bytesSource(damaged), `damaged-${label}.parquet`, [column], undefined, copyBatch),
      (e: unknown) => e instanceof FloeError && e.sqlstate === 'XX001' && e.message.includes(`damaged-${label}.parquet`),
      label,
    );
  }
});

test('the JS reader hands each row group to its consumer while the memory is valid, and keeps only what it returns', async () => {
  const bytes = encodeParquet([batch], batch.schema, 1024);
  // Keep only each row group's first value of c3 (read from the view, not copied).
  const firsts = await readColumnsInJs(bytesSource(bytes), 'consumer.parquet', ['c3'], undefined, (view) => view.getChildAt(0)!.get(0) as number | null);
  assert.deepEqual(firsts, [values[3]![0], values[3]![1024], values[3]![2048]]);
  const none = await readColumnsInJs(bytesSource(bytes), 'consumer.parquet', ['c3'], undefined, () => undefined);
  assert.deepEqual(none, []);
});

test('a chunk decoded at some rows holds exactly those rows of the whole decode, for every type and encoding', async () => {
  const { decodeColumnChunk } = await import('../../../src/lake/format/parquet-column-chunk.js');
  const files = {
    floe: encodeParquet([batch], batch.schema, 1024),
    paged: writeWith((b) => b.setCompression(pq.Compression.LZ4_RAW).setDataPageSizeLimit(1024).setWriteBatchSize(100)),
    dictionaries: writeWith((b) => b.setCompression(pq.Compression.UNCOMPRESSED).setDictionaryEnabled(true)),
    overflowing: writeWith((b) => b.setCompression(pq.Compression.UNCOMPRESSED).setDictionaryPageSizeLimit(64).setWriteBatchSize(100)),
  };
  const picks = [new Int32Array([0]), new Int32Array([5, 6, 7, 300, 301, 1023]), Int32Array.from({ length: 200 }, (_, i) => i * 5 + 3), new Int32Array(0)];
  let partial = 0;
  for (const [label, bytes] of Object.entries(files)) {
    const footer = readFooter(bytes)!;
    const schema = decodeParquet(bytes, label)[0]!.schema;
    const group = footer.rowGroups[1]!;
    for (const field of schema.fields) {
      const column = footer.columns.get(field.name)!;
      const chunk = group.chunks.get(field.name)!;
      const span = bytes.subarray(chunk.firstPageOffset, chunk.firstPageOffset + chunk.compressedBytes);
      const whole = decodeColumnChunk(span, chunk.codec, column, field.type, group.numRows, new PoisonedMemory(), 'w:');
      const type = columns.find((c) => c.name === field.name)!.type;
      for (const at of picks) {
        const some = decodeColumnChunk(span, chunk.codec, column, field.type, group.numRows, new PoisonedMemory(), 's:', at);
        if (some === undefined) { partial++; continue; }
        assert.equal(some.length, at.length);
        const got = columnReader(makeVector(some), type);
        const want = columnReader(makeVector(whole), type);
        at.forEach((row, k) => assert.deepEqual(got.get(k), want.get(row), `${label}: ${field.name}[${row}]`));
      }
    }
  }
  // The text columns whose dictionary overflowed into PLAIN pages are decoded whole instead.
  assert.ok(partial > 0, 'some chunk mixed dictionary and PLAIN pages');
});

test('a late read decodes the columns its choice reads first, the others at the rows it keeps, and keeps the same rows as a whole read', async () => {
  const bytes = encodeParquet([batch], batch.schema, 1024);
  const seen: string[][] = [];
  // Keep rows whose c3 (int8) is non-negative and c13 (required text) is 'MAIL'; a third of them in group 1, all of group 2.
  const choose = (view: RecordBatch): Int32Array | undefined => {
    seen.push(view.schema.fields.filter((_, i) => view.getChildAt(i)!.nullCount < view.numRows).map((f) => f.name));
    const c3 = columnReader(view.getChild('c3')!, T('int8'));
    const c13 = columnReader(view.getChild('c13')!, T('text'));
    const keep: number[] = [];
    for (let i = 0; i < view.numRows; i++) if (c13.get(i) === 'MAIL' && (c3.get(i) as bigint | null ?? -1n) >= 0n) keep.push(i);
    if (keep.length === 0 || view.numRows === 952) return undefined;
    return Int32Array.from(keep);
  };
  const late = {
    reads: new Set(['c3', 'c13']),
    choose,
    keepChosen: (b: RecordBatch) => ({ batch: b, rows: undefined as Int32Array | undefined, chosen: true }),
    keepAll: (view: RecordBatch, rows: Int32Array | undefined) => ({ batch: copyBatch(view), rows, chosen: false }),
  };
  const got = (await readColumnsInJs(bytesSource(bytes), 'late.parquet', names, undefined, () => undefined, new PoisonedMemory(), late))!;
  assert.ok(seen.every((s) => s.every((n) => n === 'c3' || n === 'c13')), 'the choice sees stand-ins for the columns it does not read');
  const expected: number[] = [];
  for (let g = 0; g < 3; g++) {
    const rows = range(g * 1024, Math.min(ROWS, (g + 1) * 1024));
    const kept = rows.filter((r) => values[13]![r] === 'MAIL' && ((values[3]![r] as bigint | null) ?? -1n) >= 0n);
    expected.push(...(g === 2 ? rows : kept));
  }
  const flat = got.flatMap(({ batch: b, rows }) => (rows === undefined ? range(0, b.numRows) : [...rows]).map((i) => ({ b, i })));
  assert.equal(flat.length, expected.length);
  flat.forEach(({ b, i }, k) => {
    for (let c = 0; c < columns.length; c++) {
      assert.deepEqual(columnReader(b.getChildAt(c)!, columns[c]!.type).get(i), values[c]![expected[k]!], `${columns[c]!.name}[${expected[k]}]`);
    }
  });
  assert.ok(got.some(({ chosen }) => chosen) && got.some(({ chosen, batch: b }) => !chosen && b.numRows === 952), 'both the few-rows and the all-rows paths ran');
});

test('a text chunk read as dictionary codes maps each row to its string; chunks with NULLs, PLAIN pages or other types are refused', async () => {
  const { decodeColumnChunk, decodeDictionaryCodes } = await import('../../../src/lake/format/parquet-column-chunk.js');
  const files = {
    floe: encodeParquet([batch], batch.schema, 1024),
    dictionaries: writeWith((b) => b.setCompression(pq.Compression.LZ4_RAW).setDictionaryEnabled(true).setDataPageSizeLimit(1024)),
    overflowing: writeWith((b) => b.setCompression(pq.Compression.UNCOMPRESSED).setDictionaryPageSizeLimit(64).setWriteBatchSize(100)),
  };
  const outcomes = new Map<string, string>();
  for (const [label, bytes] of Object.entries(files)) {
    const footer = readFooter(bytes)!;
    const schema = decodeParquet(bytes, label)[0]!.schema;
    for (const group of footer.rowGroups) {
      for (const field of schema.fields) {
        const column = footer.columns.get(field.name)!;
        const chunk = group.chunks.get(field.name)!;
        const span = bytes.subarray(chunk.firstPageOffset, chunk.firstPageOffset + chunk.compressedBytes);
        const type = columns.find((c) => c.name === field.name)!.type;
        const codes = decodeDictionaryCodes(span, chunk.codec, column, field.type, group.numRows, new PoisonedMemory(), 'c:');
        const whole = columnReader(makeVector(decodeColumnChunk(span, chunk.codec, column, field.type, group.numRows, new PoisonedMemory(), 'w:')), type);
        const text = type.kind === 'text' || type.kind === 'bpchar' || type.kind === 'jsonb';
        const seen = outcomes.get(`${label}:${field.name}`);
        if (codes === undefined) {
          outcomes.set(`${label}:${field.name}`, seen === 'codes' ? 'mixed' : text ? 'refused' : 'not text');
          continue;
        }
        assert.ok(text && DataType.isDictionary(codes.type), `${label}: ${field.name} as codes`);
        assert.equal(codes.length, group.numRows);
        const strings = columnReader(makeVector(codes.dictionary!.data[0]!), type);
        const ids = codes.values as Int32Array;
        for (let r = 0; r < group.numRows; r++) assert.equal(strings.get(ids[r]!), whole.get(r), `${label}: ${field.name}[${r}]`);
        outcomes.set(`${label}:${field.name}`, seen === undefined || seen === 'codes' ? 'codes' : 'mixed');
      }
    }
  }
  // Required text (c13) and text that happens to hold no NULL (c12) read as codes; text with
  // NULLs is refused (c14's char(3), c23); numbers are never codes.
  assert.equal(outcomes.get('floe:c13'), 'codes');
  assert.equal(outcomes.get('dictionaries:c13'), 'codes');
  assert.equal(outcomes.get('floe:c12'), 'codes');
  assert.equal(outcomes.get('floe:c14'), 'refused');
  assert.equal(outcomes.get('overflowing:c23'), 'refused');
  // A dictionary that overflows into PLAIN pages is refused even without NULLs.
  const many: BatchColumn[] = [{ name: 'v', type: T('text'), fieldId: 1, nullable: false }];
  const manyBatch = buildBatch(many, [Array.from({ length: 2000 }, (_, i) => `value ${i % 700}`)]);
  for (const [limit, expected] of [[64, undefined], [1 << 20, 'codes']] as const) {
    const bytes = pq.writeParquet(pq.Table.fromIPCStream(tableToIPC(new Table([manyBatch]), 'stream')), new pq.WriterPropertiesBuilder().setCompression(pq.Compression.UNCOMPRESSED).setDictionaryPageSizeLimit(limit).build());
    const footer = readFooter(bytes)!;
    const chunk = footer.rowGroups[0]!.chunks.get('v')!;
    const span = bytes.subarray(chunk.firstPageOffset, chunk.firstPageOffset + chunk.compressedBytes);
    const codes = decodeDictionaryCodes(span, chunk.codec, footer.columns.get('v')!, manyBatch.schema.fields[0]!.type, 2000, new PoisonedMemory(), 'm:');
    assert.equal(codes === undefined ? undefined : 'codes', expected, `dictionary page limit ${limit}`);
  }
  assert.equal(outcomes.get('floe:c2'), 'not text');
});

test('a late read hands text columns to the choice as codes: dropped ones stay NULL, kept ones get their strings, the other columns as before', async () => {
  const bytes = encodeParquet([batch], batch.schema, 1024);
  // c13 (required text, dictionary-encoded by Floe's writer) is what the choice reads; row
  // groups 0 and 1 keep two thirds of their rows (copied whole), group 2 about a fifth (gathered).
  for (const kept of [false, true]) {
    let coded = 0;
    const choose = (view: RecordBatch): Int32Array | undefined => {
      const c13 = view.getChild('c13')!;
      if (DataType.isDictionary(c13.type)) coded++;
      const c13Values = c13.toArray() as unknown as ArrayLike<string>;
      const keep: number[] = [];
      for (let i = 0; i < view.numRows; i++) if (c13Values[i] !== 'MAIL' && (view.numRows !== 952 || i % 3 === 0)) keep.push(i);
      return Int32Array.from(keep);
    };
    const late = {
      reads: new Set(['c13']),
      byCode: new Map([['c13', kept]]),
      choose,
      keepChosen: (b: RecordBatch) => ({ batch: b, rows: undefined as Int32Array | undefined }),
      keepAll: (view: RecordBatch, rows: Int32Array | undefined) => ({ batch: copyBatch(view), rows }),
    };
    const got = (await readColumnsInJs(bytesSource(bytes), 'codes.parquet', names, undefined, () => undefined, new PoisonedMemory(), late))!;
    assert.equal(coded, 3, 'every row group came to the choice as codes');
    const expected = range(0, ROWS).filter((r) => values[13]![r] !== 'MAIL' && (r < 2048 || (r - 2048) % 3 === 0));
    const flat = got.flatMap(({ batch: b, rows }) => (rows === undefined ? range(0, b.numRows) : [...rows]).map((i) => ({ b, i })));
    assert.equal(flat.length, expected.length);
    flat.forEach(({ b, i }, k) => {
      for (let c = 0; c < columns.length; c++) {
        const want = c === 13 && !kept ? null : values[c]![expected[k]!];
        assert.deepEqual(columnReader(b.getChildAt(c)!, columns[c]!.type).get(i), want, `${kept ? 'kept' : 'dropped'}: ${columns[c]!.name}[${expected[k]}]`);
      }
    });
  }
});

test('a dictionary index past the dictionary is an error, whole, at rows and as codes', async () => {
  const { decodeColumnChunk, decodeDictionaryCodes } = await import('../../../src/lake/format/parquet-column-chunk.js');
  const cols: BatchColumn[] = [{ name: 'v', type: T('text'), fieldId: 1, nullable: false }];
  const small = buildBatch(cols, [Array.from({ length: 400 }, (_, i) => ['a', 'b', 'c'][i % 3])]);
  const bytes = pq.writeParquet(pq.Table.fromIPCStream(tableToIPC(new Table([small]), 'stream')),
    new pq.WriterPropertiesBuilder().setCompression(pq.Compression.UNCOMPRESSED).setDictionaryEnabled(true).build());
  const footer = readFooter(bytes)!;
  const chunk = footer.rowGroups[0]!.chunks.get('v')!;
  const column = footer.columns.get('v')!;
  const type = small.schema.fields[0]!.type;
  const read = (b: Uint8Array) => b.subarray(chunk.firstPageOffset, chunk.firstPageOffset + chunk.compressedBytes);
  // Intact, all three read; with the last bit-packed indices set to 3 (a dictionary of 3), none does.
  assert.equal(decodeColumnChunk(read(bytes), chunk.codec, column, type, 400, new PoisonedMemory(), 'w:').length, 400);
  const bad = bytes.slice();
  bad.fill(0xff, chunk.firstPageOffset + chunk.compressedBytes - 4, chunk.firstPageOffset + chunk.compressedBytes);
  assert.throws(() => decodeColumnChunk(read(bad), chunk.codec, column, type, 400, new PoisonedMemory(), 'w:'), /dictionary index out of range/);
  assert.throws(() => decodeColumnChunk(read(bad), chunk.codec, column, type, 400, new PoisonedMemory(), 'a:', Int32Array.of(0, 1)), /dictionary index out of range/);
  assert.throws(() => decodeDictionaryCodes(read(bad), chunk.codec, column, type, 400, new PoisonedMemory(), 'c:'), /dictionary index out of range/);
});
