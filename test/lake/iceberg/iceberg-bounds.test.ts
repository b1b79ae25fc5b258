import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { LocalStorage } from '../../../src/lake/storage/local-storage.js';
import { columnsOf, tempWarehouse } from '../helpers/read-table.js';
import type { Json } from './read-iceberg.js';
import { readNewestMetadata, snapshotFiles } from './read-iceberg.js';


/**
 * A bound decoded by Appendix D's rules, written here independently of src/lake/iceberg, as
 * the text DuckDB gives for the same column's min/max of the file.
 */
function boundText(icebergType: string, bytes: Buffer): string {
  const dec = /^decimal\((\d+),(\d+)\)$/.exec(icebergType);
  if (dec !== null) {
    let v = 0n;
    for (const b of bytes) v = (v << 8n) | BigInt(b);
    if ((bytes[0]! & 0x80) !== 0) v -= 1n << BigInt(8 * bytes.length);
    const scale = Number(dec[2]);
    const neg = v < 0n;
    const digits = (neg ? -v : v).toString().padStart(scale + 1, '0');
    return `${neg ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  }
  switch (icebergType) {
    case 'int': case 'date': assert.equal(bytes.length, 4); return String(bytes.readInt32LE());
    case 'long': case 'timestamptz': assert.equal(bytes.length, 8); return String(bytes.readBigInt64LE());
    case 'string': return bytes.toString('utf8');
    case 'boolean': assert.equal(bytes.length, 1); return String(bytes[0]);
    case 'uuid': case 'binary': return bytes.toString('hex');
    default: throw new Error(`no bound expected for ${icebergType}`);
  }
}

/** DuckDB's min or max of a column of one file, as text comparable with boundText. */
function duckExtreme(fn: 'min' | 'max', icebergType: string, column: string): string {
  switch (icebergType) {
    case 'date': return `CAST(${fn}("${column}") - DATE '1970-01-01' AS VARCHAR)`;
    case 'timestamptz': return `CAST(epoch_us(${fn}("${column}")) AS VARCHAR)`;
    case 'boolean': return `CAST(CAST(${fn}("${column}") AS INTEGER) AS VARCHAR)`;
    case 'uuid': case 'binary': return `lower(hex(${fn}("${column}")))`;
    default: return `CAST(${fn}("${column}") AS VARCHAR)`;
  }
}

test('typed, partitioned table: the schema, spec and partition tuples, and every bound equals DuckDB\'s min/max of its file', async () => {
  const { wh, dir, cleanup } = await tempWarehouse({ log: false });
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    await duck.run(`SET TimeZone = 'UTC'`);
    const t = await wh.createTable({
      namespace: 'public', name: 'typed',
      columns: [
        { name: 'id', type: { kind: 'int4' }, nullable: false },
        { name: 'big', type: { kind: 'int8' }, nullable: true },
        { name: 'amount', type: { kind: 'numeric', precision: 10, scale: 2 }, nullable: true },
        { name: 'name', type: { kind: 'text' }, nullable: true },
        { name: 'day', type: { kind: 'date' }, nullable: true },
        { name: 'at', type: { kind: 'timestamptz' }, nullable: true },
        { name: 'flag', type: { kind: 'bool' }, nullable: true },
        { name: 'u', type: { kind: 'uuid' }, nullable: true },
        { name: 'raw', type: { kind: 'bytea' }, nullable: true },
        { name: 'f', type: { kind: 'float8' }, nullable: true },
        { name: 'iv', type: { kind: 'interval' }, nullable: true },
      ],
      partitionBy: [
        { sourceColumn: 'flag', transform: { kind: 'identity' }, name: 'flag' },
        { sourceColumn: 'at', transform: { kind: 'day' }, name: 'at_day' },
      ],
    });
    const day0 = 20_000;
    const rows = Array.from({ length: 40 }, (_, i) => ({
      id: i,
      big: BigInt(i) * 10_000_000_000n - 200_000_000_000n,
      amount: `${i % 2 === 0 ? '-' : ''}${i * 37}.${String(i % 100).padStart(2, '0')}`,
      name: ['zebra', 'Ägypten', 'émile', 'a', '日本', '😀 smile'][i % 6],
      day: day0 + i,
      at: BigInt(day0 + (i % 3)) * 86_400_000_000n + BigInt(i) * 1_000_000n,
      flag: i % 4 === 0 ? null : i % 2 === 0,
      u: `${String(i).padStart(8, '0')}-0000-4000-8000-${String(99 - i).padStart(12, '0')}`,
      raw: Uint8Array.of(i, 255 - i),
      f: i === 3 ? Number.NaN : i - 20.5,
      iv: null,
    }));
    const txn = await wh.begin();
    await txn.insert(t, 'main', columnsOf(t, rows));
    await txn.commit();
    assert.equal((await wh.exportIcebergMetadata(t)).kind, 'written');

    const storage = new LocalStorage(dir);
    const { json } = await readNewestMetadata(storage, t.id);
    const schema = (json['schemas'] as Json[]).find((s) => s['schema-id'] === json['current-schema-id'])!;
    assert.deepEqual((schema['fields'] as Json[]).map((f) => [f['id'], f['name'], f['type']]), [
      [1, 'id', 'int'], [2, 'big', 'long'], [3, 'amount', 'decimal(10,2)'], [4, 'name', 'string'], [5, 'day', 'date'],
      [6, 'at', 'timestamptz'], [7, 'flag', 'boolean'], [8, 'u', 'uuid'], [9, 'raw', 'binary'], [10, 'f', 'double'],
    ], 'interval has no Iceberg type and is left out');
    assert.equal(json['last-column-id'], 11);
    const spec = (json['partition-specs'] as Json[]).find((s) => s['spec-id'] === json['default-spec-id'])!;
    assert.deepEqual(spec['fields'], [
      { name: 'flag', transform: 'identity', 'source-id': 7, 'field-id': 1000 },
      { name: 'at_day', transform: 'day', 'source-id': 6, 'field-id': 1001 },
    ]);
    assert.equal(json['last-partition-id'], 1001);
    const mapping = JSON.parse(json['properties']['schema.name-mapping.default']) as { 'field-id': number; names: string[] }[];
    assert.deepEqual(mapping.map((m) => [m['field-id'], m.names]), (schema['fields'] as Json[]).map((f) => [f['id'], [`c${f['id']}`]]));

    const entries = await snapshotFiles(storage, (uri) => relative(dir, fileURLToPath(uri)), json, json['current-snapshot-id']);
    assert.ok(entries.length >= 6, `one file per partition (${entries.length})`);
    let boundsChecked = 0;
    for (const e of entries) {
      const path = fileURLToPath(e.dataFile['file_path'] as string);
      const df = e.dataFile;
      // The partition tuple is what the rows of the file hold, by Iceberg's transforms.
      const parts = (await duck.runAndReadAll(`SELECT DISTINCT c7, CAST(CAST(c6 AS DATE) - DATE '1970-01-01' AS INTEGER) FROM read_parquet('${path}')`)).getRows();
      assert.equal(parts.length, 1, 'a file holds one partition');
      assert.deepEqual([df['partition']['flag'], df['partition']['at_day']], parts[0]);
      const count = Number((await duck.runAndReadAll(`SELECT count(*) FROM read_parquet('${path}')`)).getRows()[0]![0]);
      assert.equal(Number(df['record_count']), count);
      const lower = new Map((df['lower_bounds'] as { key: number; value: Buffer }[]).map((b) => [b.key, b.value]));
      const upper = new Map((df['upper_bounds'] as { key: number; value: Buffer }[]).map((b) => [b.key, b.value]));
      const nulls = new Map((df['null_value_counts'] as { key: number; value: number }[]).map((b) => [b.key, b.value]));
      assert.ok(!lower.has(10) && !upper.has(10), 'no float bounds (NaN, -0)');
      for (const f of schema['fields'] as Json[]) {
        const col = `c${f['id']}`;
        const nullCount = Number((await duck.runAndReadAll(`SELECT count(*) - count("${col}") FROM read_parquet('${path}')`)).getRows()[0]![0]);
        assert.equal(nulls.get(f['id']), nullCount, `${f['name']} null count`);
        if (f['type'] === 'double') continue;
        const [min, max] = (await duck.runAndReadAll(
          `SELECT ${duckExtreme('min', f['type'], col)}, ${duckExtreme('max', f['type'], col)} FROM read_parquet('${path}')`)).getRows()[0]!;
        if (min === null) { assert.ok(!lower.has(f['id'])); continue; }
        assert.ok(lower.has(f['id']) && upper.has(f['id']), `${f['name']} has bounds`);
        assert.equal(boundText(f['type'], lower.get(f['id'])!), min, `${f['name']} lower bound`);
        assert.equal(boundText(f['type'], upper.get(f['id'])!), max, `${f['name']} upper bound`);
        boundsChecked++;
      }
    }
    assert.ok(boundsChecked >= entries.length * 8, `bounds were compared (${boundsChecked})`);
  } finally {
    duck.closeSync();
    await cleanup();
  }
});
