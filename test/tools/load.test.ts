import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import {
  Bool, Decimal, Field, Int32, Int64, RecordBatch, Schema, Struct, Table, TimestampMillisecond, Utf8, makeData, tableToIPC, vectorFromArray,
} from 'apache-arrow';
import type { Data, DataType } from 'apache-arrow';
import * as pq from 'parquet-wasm';
import pg from 'pg';
import { vectorToValues } from '../../src/exec/index.js';
import { executeScanTask, openWarehouse } from '../../src/lake/index.js';
import type { TableDefinition } from '../../src/lake/index.js';
import { startGateway } from '../../src/tools/tpch/gateway-process.js';
import { startPostgres } from '../harness/postgres-server.js';
import { S3RVER_ENV, startS3Server } from '../harness/s3-server.js';

type Row = Record<string, unknown>;

let dir: string;

function floeLoad(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'load', '--data', join(dir, 'wh'), ...args],
      { cwd: process.cwd() }, (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : (err as { code?: number }).code ?? 1, stdout, stderr });
      });
  });
}

async function createTable(def: TableDefinition): Promise<void> {
  const wh = await openWarehouse({ path: join(dir, 'wh') });
  try { await wh.createTable(def); } finally { await wh.close(); }
}

/** The table's rows as objects, sorted by the first column. */
async function readTable(name: string): Promise<Row[]> {
  const wh = await openWarehouse({ path: join(dir, 'wh') });
  try {
    const table = wh.getTable('public', name)!;
    const plan = await wh.planScan({ table });
    const rows: Row[] = [];
    for (const task of plan.tasks) {
      for await (const b of executeScanTask(task)) {
        const cols = table.columns.map((c) => ({ name: c.name, values: vectorToValues(b.getChild(c.name)!, c.type) }));
        for (let i = 0; i < b.numRows; i++) rows.push(Object.fromEntries(cols.map((c) => [c.name, c.values[i]])));
      }
    }
    const first = table.columns[0]!.name;
    return rows.sort((a, b) => (a[first]! < b[first]! ? -1 : a[first]! > b[first]! ? 1 : 0));
  } finally {
    await wh.close();
  }
}

function file(name: string, text: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

before(() => { dir = mkdtempSync(join(tmpdir(), 'floe-load-')); });
after(() => { rmSync(dir, { recursive: true, force: true }); });

describe('floe load', { concurrency: 2 }, () => {
  it('loads CSV with a header (by name), quoted fields and NULLs, in several batches, with progress', async () => {
    await createTable({
      namespace: 'public', name: 'people', primaryKey: ['id'],
      columns: [
        { name: 'id', type: { kind: 'int8' }, nullable: false },
        { name: 'name', type: { kind: 'text' }, nullable: true },
        { name: 'amount', type: { kind: 'numeric', precision: 10, scale: 2 }, nullable: true },
        { name: 'born', type: { kind: 'date' }, nullable: true },
        { name: 'seen', type: { kind: 'timestamp' }, nullable: true },
      ],
    });
    // Header order differs from the table's; "" is an empty string, an empty field is NULL.
    const csv = file('people.csv', [
      'name,id,born,amount,seen',
      'alice,1,1970-01-02,12.5,2024-01-01 00:00:01',
      '"bob, jr",2,,,',
      '"multi\nline",3,2000-01-01,-0.01,',
      '"",4,1969-12-31,7,1970-01-01 00:00:00.000002',
      '"say ""hi""",5,,100,',
    ].join('\r\n') + '\r\n');
    const r = await floeLoad(['--table', 'people', '--header', '--batch-rows', '2', csv]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /load public\.people: 5 rows, [\d,]+ rows\/s \(3 batches, 100\.0%\) — done/);
    assert.deepEqual(await readTable('people'), [
      { id: 1n, name: 'alice', amount: '12.50', born: 1, seen: 1704067201000000n },
      { id: 2n, name: 'bob, jr', amount: null, born: null, seen: null },
      { id: 3n, name: 'multi\nline', amount: '-0.01', born: 10957, seen: null },
      { id: 4n, name: '', amount: '7.00', born: -1, seen: 2n },
      { id: 5n, name: 'say "hi"', amount: '100.00', born: null, seen: null },
    ]);
  });

  it('reports a bad CSV value with SQLSTATE, line and column, and writes nothing of the failing batch', async () => {
    await createTable({
      namespace: 'public', name: 'nums',
      columns: [{ name: 'a', type: { kind: 'int4' }, nullable: false }, { name: 'b', type: { kind: 'int4' }, nullable: true }],
    });
    // Batches of 3: rows 1–3 commit; the batch holding rows 4–6 fails at line 6 (the header is line 1).
    const csv = file('nums.csv', 'a|b\n1|10\n2|\n3|30\n4|40\n5|x5\n6|60\n');
    const r = await floeLoad(['--table', 'public.nums', '--skip-header', '--delimiter', '|', '--batch-rows', '3', csv]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /ERROR 22P02: invalid input syntax for type integer: "x5"/);
    assert.match(r.stderr, /DETAIL: line 6 of .*nums\.csv, column "b"/);
    assert.match(r.stderr, /3 rows in 1 earlier batches were committed/);
    assert.deepEqual(await readTable('nums'), [{ a: 1, b: 10 }, { a: 2, b: null }, { a: 3, b: 30 }]);

    const nulls = file('nulls.csv', '7,70\n,80\n');
    const n = await floeLoad(['--table', 'nums', nulls]);
    assert.equal(n.code, 1);
    assert.match(n.stderr, /ERROR 23502: null value in column "a"/);
    assert.match(n.stderr, /line 2 of .*nulls\.csv/);
    assert.equal((await readTable('nums')).length, 3);
  });

  it('refuses impossible dates, overlong varchar and out-of-range floats as PostgreSQL does, writing nothing of the batch', async () => {
    await createTable({
      namespace: 'public', name: 'vals',
      columns: [
        { name: 'id', type: { kind: 'int4' }, nullable: false },
        { name: 'd', type: { kind: 'date' }, nullable: true },
        { name: 'v', type: { kind: 'varchar', length: 3 }, nullable: true },
        { name: 'f', type: { kind: 'float8' }, nullable: true },
      ],
    });
    const bad = async (name: string, text: string | Buffer, error: RegExp, detail: RegExp) => {
      const r = await floeLoad(['--table', 'vals', file(name, text)]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, error);
      assert.match(r.stderr, detail);
    };
    await bad('bad-date.csv', '1,2024-02-29,ab,1\n2,2024-02-30,ab,1\n', /ERROR 22008: date\/time field value out of range: "2024-02-30"/, /line 2 of .*bad-date\.csv, column "d"/);
    await bad('bad-month.csv', '3,2024-13-01,ab,1\n', /ERROR 22008: date\/time field value out of range: "2024-13-01"/, /line 1 of .*bad-month\.csv, column "d"/);
    await bad('long.csv', '4,2024-01-01,abcd,1\n', /ERROR 22001: value too long for type character varying\(3\)/, /line 1 of .*long\.csv, column "v"/);
    await bad('huge.csv', '5,2024-01-01,ab,1e400\n', /ERROR 22003: "1e400" is out of range for type double precision/, /line 1 of .*huge\.csv, column "f"/);
    await bad('latin1.csv', Buffer.from([...Buffer.from('7,2024-01-01,ab,1\n8,2024-01-01,a'), 0xe9, ...Buffer.from(',1\n')]),
      /ERROR 22021: invalid byte sequence for encoding "UTF8": 0xe9 0x2c 0x31/, /line 2 of .*latin1\.csv/);
    await bad('cut.csv', Buffer.from([...Buffer.from('9,2024-01-01,a'), 0xc3]),
      /ERROR 22021: invalid byte sequence for encoding "UTF8": 0xc3/, /line 1 of .*cut\.csv/);
    assert.deepEqual(await readTable('vals'), []);
    // Trailing spaces past the length are cut, as PostgreSQL's assignment does.
    const ok = await floeLoad(['--table', 'vals', file('good.csv', '6,2024-02-29,ab   ,1e-310\n')]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(await readTable('vals'), [{ id: 6, d: 19782, v: 'ab ', f: 1e-310 }]);
  });

  it('upserts CSV rows by key with --upsert', async () => {
    await createTable({
      namespace: 'public', name: 'kv', primaryKey: ['k'],
      columns: [{ name: 'k', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
    });
    assert.equal((await floeLoad(['--table', 'kv', file('kv1.csv', '1,one\n2,two\n3,three\n')])).code, 0);
    // Without --upsert an existing key is refused, as INSERT would.
    const dup = await floeLoad(['--table', 'kv', file('kv-dup.csv', '9,nine\n2,again\n')]);
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /ERROR 23505: duplicate key value violates unique constraint "kv_pkey"/);
    assert.match(dup.stderr, /Key \(k\)=\(2\) already exists; line 2 of .*kv-dup\.csv/);
    assert.match(dup.stderr, /HINT: Use --upsert to replace existing rows\./);
    // a key repeated in the file names the repeating line; nothing of the batch is written
    const twice = await floeLoad(['--table', 'kv', file('kv-twice.csv', '7,seven\n8,eight\n7,again\n')]);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /Key \(k\)=\(7\) already exists; line 3 of .*kv-twice\.csv/);
    const r = await floeLoad(['--table', 'kv', '--upsert', '--null', 'NULL', file('kv2.csv', '2,TWO\n3,NULL\n4,four\n')]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(await readTable('kv'), [
      { k: 1, v: 'one' }, { k: 2, v: 'TWO' }, { k: 3, v: null }, { k: 4, v: 'four' },
    ]);
  });

  it('loads Parquet written by parquet-wasm, converting types by column name', async () => {
    await createTable({
      namespace: 'public', name: 'pq',
      columns: [
        { name: 'id', type: { kind: 'int8' }, nullable: false },
        { name: 'small', type: { kind: 'int2' }, nullable: true },
        { name: 'price', type: { kind: 'numeric', precision: 10, scale: 2 }, nullable: true },
        { name: 'at', type: { kind: 'timestamptz' }, nullable: true },
        { name: 'label', type: { kind: 'varchar', length: 10 }, nullable: true },
        { name: 'n', type: { kind: 'int4' }, nullable: true },
        { name: 'missing', type: { kind: 'bool' }, nullable: true },
      ],
    });
    const p = join(dir, 'data.parquet');
    writeParquet(p, [
      ['label', new Utf8(), vectorFromArray(['x', null, 'zz'], new Utf8()).data[0]!],
      ['id', new Int64(), makeData({ type: new Int64(), length: 3, nullCount: 0, data: BigInt64Array.from([3n, 1n, 2n]) })],
      ['small', new Int32(), makeData({ type: new Int32(), length: 3, nullCount: 0, data: Int32Array.from([-5, 300, 0]) })],
      ['price', new Decimal(3, 12, 128), decimals([12345n, -1n, 0n], 3)],
      ['at', new TimestampMillisecond(), makeData({ type: new TimestampMillisecond(), length: 3, nullCount: 0, data: BigInt64Array.from([1000n, 0n, -1n]) })],
      ['n', new Utf8(), vectorFromArray(['42', '-7', null], new Utf8()).data[0]!],
    ]);
    const r = await floeLoad(['--table', 'pq', p]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /3 rows, .*rows\/s/);
    assert.deepEqual(await readTable('pq'), [
      { id: 1n, small: 300, price: '0.00', at: 0n, label: null, n: -7, missing: null },
      { id: 2n, small: 0, price: '0.00', at: -1000n, label: 'zz', n: null, missing: null },
      { id: 3n, small: -5, price: '12.35', at: 1_000_000n, label: 'x', n: 42, missing: null },
    ]);

    // A Parquet boolean cannot become a timestamp: a clear error, nothing written.
    const bad = join(dir, 'bad.parquet');
    writeParquet(bad, [
      ['id', new Int64(), makeData({ type: new Int64(), length: 1, nullCount: 0, data: BigInt64Array.from([9n]) })],
      ['at', new Bool(), vectorFromArray([true], new Bool()).data[0]!],
    ]);
    const b = await floeLoad(['--table', 'pq', bad]);
    assert.equal(b.code, 1);
    assert.match(b.stderr, /ERROR \w{5}: column "at": cannot load Parquet boolean value into timestamp with time zone/);
    assert.equal((await readTable('pq')).length, 3);
  });

  it('loads while the gateway serves the same warehouse, and the gateway sees the rows', async () => {
    const gw = await startGateway(join(dir, 'wh'));
    const client = new pg.Client({ connectionString: gw.url });
    try {
      await client.connect();
      await client.query('CREATE TABLE live (id bigint PRIMARY KEY, v text)');
      await client.query("INSERT INTO live VALUES (0, 'before')");
      const r = await floeLoad(['--table', 'live', '--batch-rows', '50', file('live.csv', Array.from({ length: 120 }, (_, i) => `${i + 1},r${i + 1}`).join('\n'))]);
      assert.equal(r.code, 0, r.stderr);
      await client.query("INSERT INTO live VALUES (1000, 'after')");
      const res = await client.query('SELECT count(*)::int AS n, max(id)::int AS hi, min(v) AS lo FROM live');
      assert.deepEqual(res.rows, [{ n: 122, hi: 1000, lo: 'after' }]);
    } finally {
      await client.end().catch(() => undefined);
      await gw.stop();
    }
  });
});

function decimals(vals: bigint[], _scale: number): Data<DataType> {
  const words = new Uint32Array(vals.length * 4);
  vals.forEach((v, i) => {
    const u = BigInt.asUintN(128, v);
    for (let w = 0; w < 4; w++) words[i * 4 + w] = Number((u >> BigInt(32 * w)) & 0xffffffffn);
  });
  return makeData({ type: new Decimal(3, 12, 128), length: vals.length, nullCount: 0, data: words });
}

function writeParquet(path: string, cols: [string, DataType, Data<DataType>][]): void {
  const schema = new Schema(cols.map(([n, t]) => new Field(n, t, true)));
  const data = makeData({ type: new Struct(schema.fields), length: cols[0]![2].length, nullCount: 0, children: cols.map((c) => c[2]) });
  const wasmTable = pq.Table.fromIPCStream(tableToIPC(new Table([new RecordBatch(schema, data)]), 'stream'));
  writeFileSync(path, pq.writeParquet(wasmTable, new pq.WriterPropertiesBuilder().build()));
}

test('floe load into a warehouse whose data is in S3 and whose catalog is PostgreSQL, as a scale-out deployment keeps it', async () => {
  const s3 = await startS3Server(['lake']);
  const catalogDb = await startPostgres();
  const where = { storage: { kind: 's3', logRoot: join(dir, 'scaled-state'), bucket: 'lake', prefix: 'w', endpoint: s3.endpoint, pathStyle: true } as const, catalog: { kind: 'postgres', url: catalogDb.url } as const };
  const saved = { ...process.env };
  Object.assign(process.env, S3RVER_ENV);
  try {
    const wh = await openWarehouse({ path: join(dir, 'scaled-state'), ...where });
    try {
      await wh.createTable({ namespace: 'public', name: 'events', primaryKey: ['id'], columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'what', type: { kind: 'text' }, nullable: true }] });
    } finally {
      await wh.close();
    }
    // Another process with its own (not yet existing) state directory, as on another host.
    const csv = file('events.csv', '1,start\n2,stop\n');
    const r = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'load', '--data', 's3://lake/w', '--state-dir', join(dir, 'loader-state'),
        '--s3-endpoint', s3.endpoint, '--s3-path-style', '--catalog', catalogDb.url, '--table', 'events', csv],
      { cwd: process.cwd(), env: { ...process.env, ...S3RVER_ENV } }, (err, _stdout, stderr) => resolve({ code: err === null ? 0 : 1, stderr }));
    });
    assert.equal(r.code, 0, r.stderr);
    const check = await openWarehouse({ path: join(dir, 'scaled-state'), ...where });
    try {
      const table = check.getTable('public', 'events')!;
      const plan = await check.planScan({ table });
      let rows = 0;
      for (const task of plan.tasks) for await (const b of executeScanTask(task)) rows += b.numRows;
      assert.equal(rows, 2);
    } finally {
      await check.close();
    }
  } finally {
    process.env = saved;
    await catalogDb.stop();
    await s3.stop();
  }
});
