/**
 * Append-table compaction (src/lake/optimize/compact-append-table.ts): a stream of small
 * INSERTs into a table without a primary key, a full scan before and after a minor
 * optimize; then a few DELETEs, and a major optimize with duplicate-ratio 0.03.
 * `node --import tsx bench/append-compaction.bench.ts [commits] [rowsPerCommit]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeScanTask, openWarehouse, ROW_ID_COLUMN } from '../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../src/lake/index.js';

const commits = Number(process.argv[2] ?? 300);
const perCommit = Number(process.argv[3] ?? 200);

/** Rows a full scan returns, and its time (median of 3). */
async function scan(w: Warehouse, t: TableMetadata): Promise<{ rows: number; ms: number }> {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    rows = 0;
    const plan = await w.planScan({ table: t, projection: ['id', 'x'] });
    for (const task of plan.tasks) for await (const b of executeScanTask(task)) rows += b.numRows;
    times.push(performance.now() - t0);
  }
  return { rows, ms: times.sort((a, b) => a - b)[1]! };
}

const dir = mkdtempSync(join(tmpdir(), 'floe-append-bench-'));
const w = await openWarehouse({ path: dir });
try {
  const t = await w.createTable({
    namespace: 'public', name: 'events', properties: { 'self-optimizing.major.trigger.duplicate-ratio': '0.03' },
    columns: [
      { name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'k', type: { kind: 'int4' }, nullable: true },
      { name: 'x', type: { kind: 'float8' }, nullable: true }, { name: 's', type: { kind: 'text' }, nullable: true },
    ],
  });
  let t0 = performance.now();
  for (let c = 0; c < commits; c++) {
    const from = c * perCommit;
    const txn = await w.begin();
    await txn.insert(t, 'main', [
      Array.from({ length: perCommit }, (_, i) => BigInt(from + i)), Array.from({ length: perCommit }, (_, i) => (from + i) % 97),
      Array.from({ length: perCommit }, (_, i) => (from + i) * 0.5), Array.from({ length: perCommit }, (_, i) => `event ${from + i}`),
    ]);
    await txn.commit();
  }
  const ingest = performance.now() - t0;
  const before = await scan(w, t);
  const filesBefore = w.listFiles(t).length;
  t0 = performance.now();
  const minor = await w.optimize(t, { kind: 'minor' });
  const minorMs = performance.now() - t0;
  const afterMinor = { files: w.listFiles(t).length, ...await scan(w, t) };
  // Then delete every 10th row of the first third, in 10 statements: 3.3% of the rows.
  for (let d = 0; d < 10; d++) {
    const txn = await w.begin();
    txn.markReadModifyWrite(t, 'main');
    const ids: bigint[] = [];
    const plan = await w.planScan({ table: t, projection: ['id', ROW_ID_COLUMN], txn });
    for (const task of plan.tasks) {
      for await (const b of executeScanTask(task)) {
        const id = b.getChild('id')!;
        const rid = b.getChild(ROW_ID_COLUMN)!;
        for (let i = 0; i < b.numRows; i++) {
          const v = Number(id.get(i));
          if (v < (commits * perCommit) / 3 && v % 100 === d * 10) ids.push(rid.get(i) as bigint);
        }
      }
    }
    await txn.deleteRows(t, 'main', ids);
    await txn.commit();
  }
  const afterDeletes = { files: w.listFiles(t).length, deletedRows: w.listFiles(t).reduce((n, f) => n + f.deletedRows, 0), ...await scan(w, t) };
  t0 = performance.now();
  const major = await w.optimize(t, { kind: 'major' });
  const majorMs = performance.now() - t0;
  const afterMajor = await scan(w, t);
  console.log(JSON.stringify({
    commits, perCommit, ingestRowsPerSec: Math.round((commits * perCommit) / (ingest / 1000)),
    before: { files: filesBefore, ...before },
    minor: { ms: Math.round(minorMs), filesIn: minor.filesIn, filesOut: minor.filesOut, rowsIn: minor.rowsIn, rowsOut: minor.rowsOut, bytesIn: minor.bytesIn, bytesOut: minor.bytesOut },
    afterMinor,
    afterDeletes,
    major: { ms: Math.round(majorMs), filesIn: major.filesIn, filesOut: major.filesOut, rowsIn: major.rowsIn, rowsOut: major.rowsOut },
    afterMajor: { files: w.listFiles(t).length, deletedRows: w.listFiles(t).reduce((n, f) => n + f.deletedRows, 0), ...afterMajor },
  }, null, 1));
} finally {
  await w.close();
  rmSync(dir, { recursive: true, force: true });
}
