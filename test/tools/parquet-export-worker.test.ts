import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ParquetExport } from '../../src/tools/tpch/parquet-export.js';
import { exportTpchParquetInWorker } from '../../src/tools/tpch/parquet-export-worker.js';
import { TpchGenerator } from '../../src/tools/tpch/tpch-generator.js';

test('the worker writes the same Parquet files as an in-process export of the same generator', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-pq-worker-'));
  try {
    const inProcess = new ParquetExport(join(dir, 'main'));
    let rows = 0;
    for (const b of new TpchGenerator(0.002).batches(1000)) { inProcess.write(b); rows += b.rowCount; }
    const r = await exportTpchParquetInWorker(0.002, 1000, join(dir, 'worker'));
    assert.equal(r.rows, rows);
    const tables = readdirSync(join(dir, 'main')).sort();
    assert.deepEqual(readdirSync(join(dir, 'worker')).sort(), tables);
    for (const t of tables) {
      const files = readdirSync(join(dir, 'main', t)).sort();
      assert.deepEqual(readdirSync(join(dir, 'worker', t)).sort(), files);
      for (const f of files) assert.ok(readFileSync(join(dir, 'main', t, f)).equals(readFileSync(join(dir, 'worker', t, f))), `${t}/${f}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
