import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeVector } from 'apache-arrow';
import type { Data, Decimal, RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../../src/common/sql-type.js';
import { buildBatch } from '../../../src/lake/arrow/batch-builder.js';
import type { BatchColumn } from '../../../src/lake/arrow/batch-builder.js';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';
import { copyBatch, takeBatch } from '../../../src/lake/arrow/take-rows.js';
import { hashKeyBatch } from '../../../src/lake/bucket/key-hash.js';
import { readColumnsInJs } from '../../../src/lake/format/native-parquet-reader.js';
import { bytesSource, decodeParquetSelected, encodeParquet } from '../../../src/lake/format/parquet-io.js';
import { lazyBatch } from '../../../src/exec/arrow/columnar-batch.js';
import { arrowColumn, selectColumn } from '../../../src/exec/arrow/column-source.js';
import { concatData } from '../../../src/exec/arrow/concat-data.js';
import { packBatches, unpackBatches } from '../../../src/exec/arrow/batch-transfer.js';
import { scaledColumn } from '../../../src/exec/arrow/scaled-vector.js';
import { vectorToValues } from '../../../src/exec/arrow/vector-values.js';

/*
 * Query scans read numeric(p ≤ 18) columns stored as INT64 as Arrow Decimal64 (the
 * stored words) instead of widening them to Decimal128. Every reader of a scan's
 * batches must then see the values it saw before: the lake's column reader, key
 * hashing, exec's text values and exact scaled views, batch transfer; and data of
 * the two widths must never be concatenated as if alike.
 */

const T = (kind: string, extra: object = {}) => ({ kind, ...extra }) as SqlType;

const COLUMNS: BatchColumn[] = [
  { name: 'p18', type: T('numeric', { precision: 18, scale: 0 }), fieldId: 1, nullable: true },
  { name: 'p15', type: T('numeric', { precision: 15, scale: 2 }), fieldId: 2, nullable: false },
  { name: 'p5', type: T('numeric', { precision: 5, scale: 1 }), fieldId: 3, nullable: true },
  { name: 'p38', type: T('numeric', { precision: 38, scale: 10 }), fieldId: 4, nullable: true },
];
const NAMES = COLUMNS.map((c) => c.name);

/** Per column, values cycled over the rows: both signs, ±2^53 and beyond (BigInt paths), zero, NULLs. */
const CYCLES: unknown[][] = [
  ['999999999999999999', '-999999999999999999', '9007199254740993', '-9007199254740993', '0', null, '42'],
  ['9999999999999.99', '-9999999999999.99', '0.01', '-0.01', '0.00', '123.45'],
  ['9999.9', '-0.1', null, '0.0', '5.5'],
  ['-9999999999999999999999999999.9999999999', '1.0000000001', null],
];

const ROWS = 2500;
const VALUES = CYCLES.map((cycle, c) => Array.from({ length: ROWS }, (_, r) => cycle[(r * (c + 2) + Math.floor(r / 7)) % cycle.length]));
const BYTES = encodeParquet([buildBatch(COLUMNS, VALUES)], undefined, 1000);

function bitWidths(b: RecordBatch): number[] {
  return b.schema.fields.map((f) => (f.type as Decimal).bitWidth);
}

function assertValues(batches: readonly RecordBatch[], rows: readonly number[], label: string): void {
  let at = 0;
  for (const b of batches) {
    COLUMNS.forEach((col, c) => {
      const reader = columnReader(b.getChildAt(c)!, col.type);
      const exec = vectorToValues(b.getChildAt(c)!, col.type);
      for (let i = 0; i < b.numRows; i++) {
        const want = VALUES[c]![rows[at + i]!];
        assert.equal(reader.get(i), want, `${label}: lake reader ${col.name}[${rows[at + i]}]`);
        assert.equal(exec[i], want, `${label}: exec values ${col.name}[${rows[at + i]}]`);
      }
    });
    at += b.numRows;
  }
  assert.equal(at, rows.length, `${label}: row count`);
}

const all = Array.from({ length: ROWS }, (_, i) => i);

test('a narrowing read gives numeric(p ≤ 18) over INT64 as Decimal64 with the same values; wider numerics stay Decimal128', async () => {
  const wide = (await readColumnsInJs(bytesSource(BYTES), 'd.parquet', NAMES, undefined, copyBatch))!;
  const narrow = (await readColumnsInJs(bytesSource(BYTES), 'd.parquet', NAMES, undefined, copyBatch, undefined, undefined, { narrowDecimals: true }))!;
  assert.deepEqual(wide.map(bitWidths)[0], [128, 128, 128, 128]);
  // numeric(5,1) is stored as INT32 by the writer, so it keeps the widening decode.
  assert.deepEqual(narrow.map(bitWidths)[0], [64, 64, 128, 128]);
  assert.equal(narrow[0]!.getChildAt(0)!.data[0]!.values.length, 2 * narrow[0]!.numRows, 'two words a value');
  assertValues(wide, all, 'Decimal128');
  assertValues(narrow, all, 'Decimal64');
});

test('a narrowing late read decodes the chosen rows of Decimal64 columns, few or many', async () => {
  for (const every of [50, 2]) {
    const chosen = all.filter((r) => r % every === 0);
    const got = await decodeParquetSelected(bytesSource(BYTES), 'd.parquet', NAMES, undefined, () => { throw new Error('the late cut decides'); }, {
      reads: new Set(['p15']),
      conform: (b) => b,
      pick: (b) => {
        // Rows of the row group whose index is a multiple of `every` (row groups are 1000 rows).
        const out: number[] = [];
        for (let i = 0; i < b.numRows; i++) if (i % every === 0) out.push(i);
        return Int32Array.from(out);
      },
    }, { narrowDecimals: true });
    const batches = got.map(({ batch, rows }) => (rows === undefined ? batch : pick(batch, rows)));
    assert.deepEqual(bitWidths(batches[0]!), [64, 64, 128, 128]);
    assertValues(batches, chosen, `every ${every}th row`);
  }
});

function pick(b: RecordBatch, rows: Int32Array): RecordBatch {
  return takeBatch(b, rows);
}

test('scaled views, key hashes and batch transfer read Decimal64 as they read Decimal128', async () => {
  const wide = (await readColumnsInJs(bytesSource(BYTES), 'd.parquet', NAMES, [0], copyBatch))![0]!;
  const narrow = (await readColumnsInJs(bytesSource(BYTES), 'd.parquet', NAMES, [0], copyBatch, undefined, undefined, { narrowDecimals: true }))![0]!;
  const n = narrow.numRows;
  // p15 has no NULLs (the typed fast loop), p18 has NULLs and values past 2^53 (no exact view).
  const rows = Int32Array.from({ length: 300 }, (_, i) => (i * 7) % n);
  for (const [label, at] of [['all rows', undefined], ['selected rows', rows]] as const) {
    const view = (b: RecordBatch) => {
      const cols = COLUMNS.map((c, i) => arrowColumn(b.getChildAt(i)!.data[0]!, c.type));
      return at === undefined ? lazyBatch(n, cols) : lazyBatch(at.length, cols.map((col) => selectColumn(col, at)));
    };
    const s64 = scaledColumn(view(narrow), 1);
    const s128 = scaledColumn(view(wide), 1);
    assert.ok(s64 !== undefined && s128 !== undefined, `${label}: exact views`);
    assert.deepEqual([...s64.unscaled], [...s128.unscaled], label);
    assert.equal(s64.scale, 2);
    assert.equal(scaledColumn(view(narrow), 0), undefined, `${label}: values past 2^53 have no exact view`);
  }
  // Keys are never NULL: p18's rows with a value (past 2^53, both signs) hash as p15's do.
  const keyed = Int32Array.from(all.slice(0, n).filter((r) => VALUES[0]![r] !== null));
  for (const key of ['p18', 'p15']) {
    const type = COLUMNS.find((c) => c.name === key)!.type;
    assert.deepEqual(hashKeyBatch(takeBatch(narrow, keyed), [key], [type]), hashKeyBatch(takeBatch(wide, keyed), [key], [type]), `hash of ${key}`);
  }
  const [back] = unpackBatches(packBatches([narrow], 0), 0);
  assert.deepEqual(bitWidths(back!), [64, 64, 128, 128]);
  assertValues([back!], all.slice(0, n), 'transferred');
});

test('Decimal64 and Decimal128 data are never concatenated as alike', async () => {
  const d128 = (await readColumnsInJs(bytesSource(BYTES), 'd.parquet', ['p15'], [0], copyBatch))![0]!.getChildAt(0)!.data[0]! as Data;
  const d64 = (await readColumnsInJs(bytesSource(BYTES), 'd.parquet', ['p15'], [1], copyBatch, undefined, undefined, { narrowDecimals: true }))![0]!.getChildAt(0)!.data[0]! as Data;
  assert.equal(concatData([d64, d128]), undefined);
  assert.equal(concatData([d128, d64]), undefined);
  const same = concatData([d64, d64])!;
  assert.deepEqual(vectorToValues(makeVector(same), COLUMNS[1]!.type), [...VALUES[1]!.slice(1000, 2000), ...VALUES[1]!.slice(1000, 2000)]);
});
