import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';
import * as pq from 'parquet-wasm';
import { decodeDataFile, decodeDataFileSelected, readDataFile } from '../../../src/lake/format/data-file-reader.js';
import { takeRows } from '../../../src/lake/scan/take-rows.js';
import type { RowPicker } from '../../../src/lake/format/data-file-reader.js';
import { readFooterRowGroups } from '../../../src/lake/format/parquet-footer.js';
import { readFooter } from '../../../src/lake/format/parquet-io.js';
import { openStorage } from '../../../src/lake/storage/open-storage.js';
import { SEQ_FILE_COLUMN, physicalName } from '../../../src/lake/table/table-layout.js';
import type { ColumnMetadata, TableMetadata } from '../../../src/lake/table/table-metadata.js';
import type { ScanTask, Warehouse } from '../../../src/lake/index.js';
import type { Storage } from '../../../src/lake/storage/storage.js';
import type { RecordBatch } from 'apache-arrow';
import { columnsOf, tempWarehouse } from '../helpers/read-table.js';
import type { Row } from '../helpers/read-table.js';

const COLUMNS = [
  { name: 'id', type: { kind: 'int4' } }, { name: 'i2', type: { kind: 'int2' } }, { name: 'i8', type: { kind: 'int8' } },
  { name: 'f8', type: { kind: 'float8' } }, { name: 'money', type: { kind: 'numeric', precision: 15, scale: 2 } },
  { name: 'big', type: { kind: 'numeric', precision: 38, scale: 4 } }, { name: 'free', type: { kind: 'numeric' } },
  { name: 'txt', type: { kind: 'text' } }, { name: 'pad', type: { kind: 'bpchar', length: 6 } }, { name: 'd', type: { kind: 'date' } },
  { name: 'ts', type: { kind: 'timestamp' } }, { name: 'tz', type: { kind: 'timestamptz' } }, { name: 'b', type: { kind: 'bool' } },
  { name: 'by', type: { kind: 'bytea' } }, { name: 'u', type: { kind: 'uuid' } },
] as const;

function rowOf(i: number): Row {
  const n = (v: unknown) => (i % 7 === 3 ? null : v);
  return {
    id: i, i2: n(i % 300 - 150), i8: n(BigInt(i) * 1_000_000_007n), f8: n(i / 3), money: n(`${(i * 37) % 100000}.${String(i % 100).padStart(2, '0')}`),
    big: n(`-${i}123456789012345678.5000`), free: n(`${i}.${i % 13}`), txt: n(`row ${i} ✓`), pad: n('ab    '), d: n(18000 + i),
    ts: n(BigInt(i) * 1_000_000n), tz: n(BigInt(i) * 7_000_000n), b: n(i % 2 === 0), by: n(new Uint8Array([i & 255, 1, 2])),
    u: n(`00000000-0000-0000-0000-${String(i).padStart(12, '0')}`),
  };
}

function values(batches: readonly RecordBatch[], cols: readonly ColumnMetadata[], extra: readonly string[]): unknown[][] {
  const out: unknown[][] = [];
  for (const b of batches) {
    const readers = [...cols.map((c, i) => columnReader(b.getChildAt(i)!, c.type)), ...extra.map((_, j) => columnReader(b.getChildAt(cols.length + j)!, { kind: 'int8' }))];
    for (let i = 0; i < b.numRows; i++) out.push(readers.map((r) => r.get(i)));
  }
  return out;
}

type BaseFile = { t: TableMetadata; f: ScanTask['baseFiles'][number]; storage: Storage };

/** A table created by `spec` holding `rows` in one optimized base file: the table (after `then`), that file and its store. */
async function optimizedBaseFile(
  wh: Warehouse, spec: Parameters<Warehouse['createTable']>[0], rows: readonly Row[], then?: (t: TableMetadata) => Promise<TableMetadata>,
): Promise<BaseFile> {
  const created = await wh.createTable(spec);
  const tx = await wh.begin();
  await tx.upsert(created, 'main', columnsOf(created, rows));
  await tx.commit();
  await wh.optimize(created);
  const t = then ? await then(created) : created;
  const plan = await wh.planScan({ table: t });
  return { t, f: plan.tasks[0]!.baseFiles[0]!, storage: openStorage(plan.tasks[0]!.storage) };
}

/** A table of COLUMNS holding rows 0..n-1 in one optimized base file, with a column added after the file was written. */
async function wideBaseFile(wh: Warehouse, name: string, n: number): Promise<{ t2: TableMetadata; f: BaseFile['f']; storage: Storage }> {
  const spec = { namespace: 'public', name, primaryKey: ['id'], columns: COLUMNS.map((c) => ({ ...c, nullable: c.name !== 'id' })) };
  const later = { kind: 'addColumn' as const, column: { name: 'later', type: { kind: 'int4' as const }, nullable: true } };
  const { t, f, storage } = await optimizedBaseFile(wh, spec, Array.from({ length: n }, (_, i) => rowOf(i)), () => wh.alterTable('public', name, later));
  return { t2: t, f, storage };
}

test('a narrow readDataFile decodes only its columns, with the same types and values as a full read', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const { t2, f, storage } = await wideBaseFile(wh, 'wide', 2000);
    const all = t2.columns;
    assert.equal(readFooterRowGroups(await storage.get(f.path))![0]!.chunks.size, COLUMNS.length + 1); // + _seq
    const full = await readDataFile(storage, f.path, all, [SEQ_FILE_COLUMN]);
    const fullValues = values(full, all, [SEQ_FILE_COLUMN]);
    assert.equal(fullValues.length, 2000);
    const subsets = [['money'], ['id', 'txt', 'later'], ['d', 'money', 'big', 'free'], ['u', 'by', 'b'], ['pad', 'tz', 'ts', 'i8', 'i2']];
    for (const names of subsets) {
      const cols = all.filter((c) => names.includes(c.name));
      const part = await readDataFile(storage, f.path, cols, [SEQ_FILE_COLUMN]);
      // same Arrow types and names as the full read's columns
      const fullFields = full[0]!.schema.fields;
      for (const field of part[0]!.schema.fields) {
        const same = fullFields.find((x) => x.name === field.name)!;
        assert.equal(String(field.type), String(same.type), `${names} ${field.name}`);
      }
      assert.deepEqual(part[0]!.schema.fields.map((x) => x.name), [...cols.map((c) => physicalName(c.fieldId)), SEQ_FILE_COLUMN]);
      const idx = [...cols.map((c) => all.indexOf(c)), all.length];
      assert.deepEqual(values(part, cols, [SEQ_FILE_COLUMN]), fullValues.map((r) => idx.map((i) => r[i])), names.join(','));
      // The same read through the store's lazy byte source (footer read in two slices) gives the same values.
      const blob = await storage.openBlob!(f.path);
      const footer = await readFooter(blob, 16);
      const whole = new Uint8Array(await storage.get(f.path));
      assert.ok(footer.length > 16 && footer.length < whole.length);
      assert.deepEqual(footer, whole.subarray(whole.length - footer.length));
      const viaBlob = await decodeDataFile({ blob, footer }, f.path, cols, [SEQ_FILE_COLUMN]);
      assert.deepEqual(values(viaBlob, cols, [SEQ_FILE_COLUMN]), fullValues.map((r) => idx.map((i) => r[i])), `blob ${names.join(',')}`);
      // row groups restrict a projected read too
      const one = await readDataFile(storage, f.path, cols, [], [0]);
      assert.equal(one.reduce((n, b) => n + b.numRows, 0), Math.min(2000, 32768));
    }
  } finally { await cleanup(); }
});

test('a read that picks rows as it decodes returns exactly those rows, copied out of WASM memory', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const { t2, f, storage } = await wideBaseFile(wh, 'picked', 1500);
    const bytes = await storage.get(f.path);
    // Every column (the whole-file reader, plus a column the file lacks) and a few (the projected reader).
    for (const cols of [t2.columns, t2.columns.filter((c) => ['money', 'd', 'b', 'u', 'txt', 'tz'].includes(c.name))]) {
      const full = values(await decodeDataFile(bytes, f.path, cols, [SEQ_FILE_COLUMN]), cols, [SEQ_FILE_COLUMN]);
      const every = (k: number) => (b: RecordBatch) => Int32Array.from({ length: b.numRows }, (_, i) => i).filter((i) => i % k === 1);
      const cases: [string, RowPicker, (i: number) => boolean, boolean][] = [
        ['every tenth row (gathered)', every(10), (i) => i % 10 === 1, false],
        ['every third row (copied, still selected)', every(3), (i) => i % 3 === 1, true],
        ['all rows', () => undefined, () => true, false],
        ['no row', () => new Int32Array(0), () => false, false],
      ];
      for (const [label, pick, keeps, selects] of cases) {
        const picked = await decodeDataFileSelected(bytes, f.path, cols, [SEQ_FILE_COLUMN], undefined, pick);
        assert.ok(picked.every(({ rows }) => (rows !== undefined) === selects), `${label}: rows left selected`);
        const kept = picked.map(({ batch, rows }) => (rows === undefined ? batch : takeRows(batch, rows)));
        assert.deepEqual(values(kept, cols, [SEQ_FILE_COLUMN]), full.filter((_, i) => keeps(i)), `${cols.length} columns, ${label}`);
        const wasm = pq.wasmMemory().buffer;
        for (const { batch } of picked) {
          batch.data.children.forEach((d, c) => {
            for (const buf of [d.values, d.valueOffsets, d.nullBitmap]) assert.notEqual(buf?.buffer, wasm, `${label}: ${batch.schema.fields[c]!.name} views WASM memory`);
          });
        }
      }
    }
  } finally { await cleanup(); }
});

test('a picked read of a table with nested columns (the whole-file reader, copied out, then cut) keeps exactly the picked rows', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const rows = Array.from({ length: 300 }, (_, i) => ({ id: i, arr: i % 5 === 0 ? null : [i, i + 1] }));
    const { t, f, storage } = await optimizedBaseFile(wh, {
      namespace: 'public', name: 'nested', primaryKey: ['id'],
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'arr', type: { kind: 'array', element: { kind: 'int4' } }, nullable: true }],
    }, rows);
    const bytes = await storage.get(f.path);
    const picked = await decodeDataFileSelected(bytes, f.path, t.columns, [], undefined, (b) => Int32Array.from({ length: b.numRows }, (_, i) => i).filter((i) => i % 3 === 0));
    const kept = picked.map(({ batch, rows: sel }) => (sel === undefined ? batch : takeRows(batch, sel)));
    const got = values(kept, t.columns, []).map(([id, arr]) => ({ id, arr })).sort((a, b) => (a.id as number) - (b.id as number));
    const ids = new Set(got.map((r) => r.id as number));
    assert.equal(got.length, 100);
    assert.deepEqual(got, rows.filter((r) => ids.has(r.id)));
  } finally { await cleanup(); }
});

test('a read of most columns but few of the bytes fetches only those columns\' chunks', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    // Notes from a fixed LCG: text that LZ4 cannot shrink much, as TPC-H's comments.
    let seed = 12345;
    const word = (): string => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed.toString(36); };
    const rows = Array.from({ length: 3000 }, (_, i) => ({ id: i, a: i * 3, b: i % 17, c: `${i}.25`, note: Array.from({ length: 12 }, word).join(' ') }));
    // Like partsupp: four narrow columns and one long comment holding most of the bytes.
    const { t, f, storage } = await optimizedBaseFile(wh, {
      namespace: 'public', name: 'narrow_and_wide', primaryKey: ['id'],
      columns: [
        { name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'a', type: { kind: 'int4' }, nullable: true },
        { name: 'b', type: { kind: 'int4' }, nullable: true }, { name: 'c', type: { kind: 'numeric', precision: 15, scale: 2 }, nullable: true },
        { name: 'note', type: { kind: 'text' }, nullable: true },
      ],
    }, rows);
    const blob = await storage.openBlob!(f.path);
    let fetched = 0;
    const counting = (src: typeof blob): typeof blob => ({
      size: src.size,
      slice: (s?: number, e?: number) => counting(src.slice(s, e)),
      arrayBuffer: async () => { const b = await src.arrayBuffer(); fetched += b.byteLength; return b; },
    });
    const footer = await readFooter(blob);
    const cols = t.columns.filter((c) => c.name !== 'note');
    const batches = await decodeDataFile({ blob: counting(blob), footer }, f.path, cols, [SEQ_FILE_COLUMN]);
    const got = values(batches, cols, [SEQ_FILE_COLUMN]).map((r) => r.slice(0, 4));
    assert.deepEqual(got, rows.map((r) => [r.id, r.a, r.b, r.c]));
    assert.ok(fetched < blob.size / 3, `fetched ${fetched} of ${blob.size} bytes`);
    // Every column asked for: every chunk is read (the footer was already), and the values are the same.
    fetched = 0;
    const all = await decodeDataFile({ blob: counting(blob), footer }, f.path, t.columns, [SEQ_FILE_COLUMN]);
    assert.deepEqual(values(all, t.columns, [SEQ_FILE_COLUMN]).map((r) => r[4]), rows.map((r) => r.note));
    const chunkBytes = readFooterRowGroups(footer)!.reduce((n, g) => n + [...g.chunks.values()].reduce((m, c) => m + c.compressedBytes, 0), 0);
    assert.equal(fetched, chunkBytes);
  } finally { await cleanup(); }
});
