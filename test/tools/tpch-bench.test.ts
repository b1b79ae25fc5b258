import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTpchReport, runTpchBenchmark } from '../../src/tools/tpch/tpch-benchmark.js';

/*
 * `npm run bench:tpch` at a tiny scale: `--upsert-fraction 0` skips the upsert pass (it
 * used to fail on DuckDB's merged views over no change files), and the report says so.
 */
test('bench:tpch with --upsert-fraction 0 times the optimized tables only', { timeout: 300_000 }, async () => {
  const lines: string[] = [];
  const report = await runTpchBenchmark({ sf: 0.01, runs: 1, queries: [1, 6], upsertFraction: 0, log: (l) => lines.push(l) });
  assert.deepEqual(report.optimized.map((t) => t.query), [1, 6]);
  for (const t of report.optimized) {
    assert.ok(t.floeMs !== undefined && t.floeMs > 0, `Q${t.query} ran on Floe`);
    assert.equal(t.floeRows, t.duckRows, `Q${t.query}: Floe and DuckDB return as many rows`);
  }
  assert.deepEqual(report.upserted, []);
  assert.equal(report.upsert.rows, 0);
  assert.ok(lines.some((l) => /--upsert-fraction 0: no upsert pass/.test(l)));
  const text = formatTpchReport(report);
  assert.match(text, /\| Q1 \| [^|]+ \| [^|]+ \| [^|]+ \|  \|  \|  \|/);
});
