import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordBatch } from 'apache-arrow';
import { buildBatch } from '../../src/lake/arrow/batch-builder.js';
import { columnReader } from '../../src/lake/arrow/column-reader.js';
import { encodeDataFile } from '../../src/lake/format/data-file-writer.js';
import { executeScanTask } from '../../src/lake/scan/execute-scan-task.js';
import type { ScanTaskCounters } from '../../src/lake/scan/execute-scan-task.js';
import { physicalTypes, readRowGroupStats, rowGroupsMatching } from '../../src/lake/scan/row-group-stats.js';
import type { ScanFilter, ScanTask } from '../../src/lake/scan/scan-types.js';
import { openStorage } from '../../src/lake/storage/open-storage.js';
import type { ColumnMetadata } from '../../src/lake/table/table-metadata.js';

const columns: ColumnMetadata[] = [
  { name: 'id', type: { kind: 'int4' }, fieldId: 1, nullable: true },
  { name: 'ts', type: { kind: 'int8' }, fieldId: 2, nullable: true },
  { name: 'd', type: { kind: 'date' }, fieldId: 3, nullable: true },
  { name: 's', type: { kind: 'text' }, fieldId: 4, nullable: true },
];
const ROWS = 10_000;
const GROUP = 1_000;

/** id ascending 0..9999 (so each 1000-row group covers one id range); d NULL in the last group; ±infinity dates in group 0. */
function rows(): unknown[][] {
  const id: unknown[] = []; const ts: unknown[] = []; const d: unknown[] = []; const s: unknown[] = [];
  for (let i = 0; i < ROWS; i++) {
    id.push(i);
    ts.push(BigInt(i) * 1_000_000n - 5_000_000_000n);
    d.push(i >= 9000 ? null : i === 0 ? -Infinity : i === 1 ? Infinity : 18000 + Math.floor(i / 10));
    s.push(`s${i % 7}`);
  }
  return [id, ts, d, s];
}

async function setup(): Promise<{ task: (filters: ScanFilter[], projection?: string[], deleted?: number[]) => ScanTask }> {
  const root = mkdtempSync(join(tmpdir(), 'floe-rg-'));
  const storage = { kind: 'local' as const, root };
  const batch = buildBatch(columns.map((c) => ({ name: `c${c.fieldId}`, type: c.type, fieldId: c.fieldId, nullable: true })), rows());
  const file = encodeDataFile(batch, columns, { rows: GROUP, ranges: [] });
  await openStorage(storage).put('t/f.parquet', file.bytes);
  return {
    task: (filters, projection = ['id', 'd'], deleted) => ({
      tableId: 1, storage, columns, keyColumns: [], projection, filters, partitionKey: '', node: { mask: 0, index: 0 },
      baseFiles: [{
        fileId: 9, path: 't/f.parquet', store: 'base', rowCount: ROWS, sizeBytes: file.bytes.length, seq: 0n, firstOffset: 0,
        node: { mask: 0, index: 0 }, filterByHash: false, ...(deleted ? { deletedPositions: deleted } : {}),
      }],
      changeFiles: [],
    }),
  };
}

async function collect(task: ScanTask, counters?: ScanTaskCounters): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const b of executeScanTask(task, counters) as AsyncIterable<RecordBatch>) {
    const readers = b.schema.fields.map((f, c) => columnReader(b.getChildAt(c)!, f.name === '_row_id' ? { kind: 'int8' } : columns.find((x) => x.name === f.name)!.type));
    for (let i = 0; i < b.numRows; i++) out.push(readers.map((r) => r.get(i)));
  }
  return out;
}

test('footer statistics give each row group its bounds (int4, int8, date with ±infinity, NULL counts)', async () => {
  const { task } = await setup();
  const t = task([]);
  const bytes = await openStorage(t.storage).get('t/f.parquet');
  const stats = readRowGroupStats(bytes, physicalTypes(columns))!;
  assert.equal(stats.length, ROWS / GROUP);
  assert.deepEqual(stats.map((g) => g.numRows), new Array(10).fill(GROUP));
  assert.deepEqual([stats[3]!.columns.get('c1')!.min, stats[3]!.columns.get('c1')!.max], [3000, 3999]);
  assert.deepEqual([stats[0]!.columns.get('c2')!.min, stats[0]!.columns.get('c2')!.max], [-5_000_000_000n, 999_000_000n - 5_000_000_000n]);
  assert.deepEqual([stats[0]!.columns.get('c3')!.min, stats[0]!.columns.get('c3')!.max], [-Infinity, Infinity]);
  assert.equal(stats[9]!.columns.get('c3')!.nullCount, GROUP);
  // Text bounds are not decoded (no order-preserving decode is trusted for them).
  assert.equal(stats[0]!.columns.get('c4')!.min, undefined);
  assert.deepEqual(rowGroupsMatching(stats, undefined, [{ column: 'id', op: '>=', value: 8500 }], columns), [8, 9]);
  assert.deepEqual(rowGroupsMatching(stats, [0, 5, 9], [{ column: 'id', op: '<', value: 5500 }], columns), [0, 5]);
  assert.deepEqual(rowGroupsMatching(stats, undefined, [{ column: 'd', op: 'isNull' }], columns), [9]);
  assert.deepEqual(rowGroupsMatching(stats, undefined, [{ column: 'd', op: '=', value: Infinity }], columns), [0]);
  assert.deepEqual(rowGroupsMatching(stats, undefined, [{ column: 's', op: '=', value: 's1' }], columns).length, 10);
  assert.equal(readRowGroupStats(new Uint8Array([1, 2, 3]), physicalTypes(columns)), undefined);
});

test('a scan task decodes only the row groups its filters can match, with the same rows as a full read', async () => {
  const { task } = await setup();
  const cases: ScanFilter[][] = [
    [{ column: 'id', op: '>=', value: 7250 }],
    [{ column: 'id', op: 'in', values: [5, 4999, 9999, null] }],
    [{ column: 'ts', op: '<', value: -4_000_000_000n }],
    [{ column: 'd', op: '>', value: 18850 }],
    [{ column: 'd', op: 'isNull' }, { column: 'id', op: '<>', value: 9500 }],
    [{ column: 'id', op: '=', value: null }],
  ];
  for (const filters of cases) {
    const counters: ScanTaskCounters = { rowGroupsRead: 0, rowGroupsSkippedByStats: 0 };
    const got = await collect(task(filters), counters);
    const noCounters = await collect(task(filters));
    assert.deepEqual(got, noCounters);
    // The expected rows, by brute force over the generated data.
    const [id, , d] = rows();
    const expected: unknown[][] = [];
    for (let i = 0; i < ROWS; i++) {
      const row: Record<string, unknown> = { id: id![i], ts: BigInt(i) * 1_000_000n - 5_000_000_000n, d: d![i] };
      const ok = filters.every((f) => {
        const v = row[f.column];
        if (f.op === 'isNull') return v === null;
        if (f.op === 'in') return v !== null && (f.values ?? []).some((x) => x !== null && x === v);
        if (f.value === null || v === null) return false;
        const a = v as number; const b = f.value as number;
        return f.op === '=' ? a === b : f.op === '<>' ? a !== b : f.op === '<' ? a < b : f.op === '>' ? a > b : f.op === '>=' ? a >= b : a <= b;
      });
      if (ok) expected.push([id![i], d![i]]);
    }
    assert.deepEqual(got, expected, JSON.stringify(filters, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
    assert.equal(counters.rowGroupsRead + counters.rowGroupsSkippedByStats, 10);
  }
  const c: ScanTaskCounters = { rowGroupsRead: 0, rowGroupsSkippedByStats: 0 };
  await collect(task([{ column: 'id', op: '>=', value: 7250 }]), c);
  assert.deepEqual(c, { rowGroupsRead: 3, rowGroupsSkippedByStats: 7 });
});

test('skipped row groups keep deletion-vector positions and row ids exact', async () => {
  const { task } = await setup();
  const deleted = [8000, 8001, 9999, 10, 5000];
  const got = await collect(task([{ column: 'id', op: '>=', value: 7999 }], ['id', '_row_id'], deleted));
  const expected: unknown[][] = [];
  for (let i = 7999; i < ROWS; i++) if (!deleted.includes(i)) expected.push([i, (9n << 32n) | BigInt(i)]);
  assert.deepEqual(got, expected);
});
