import assert from 'node:assert/strict';
import { test } from 'node:test';
import { profilingFlags, workerModule } from '../../src/common/worker-module.js';

test('a TypeScript caller starts its workers on the .mjs entry beside the .ts, a JavaScript caller on the .js', () => {
  assert.equal(workerModule('file:///repo/src/exec/pool/piscina-scan-pool.ts', 'scan-worker').filename, 'file:///repo/src/exec/pool/scan-worker.mjs');
  assert.equal(workerModule('file:///tree/src/exec/pool/piscina-scan-pool.js', 'scan-worker').filename, 'file:///tree/src/exec/pool/scan-worker.js');
});

test('workers take the process\'s CPU-profile flags, with their values in either form, and nothing else', () => {
  assert.deepEqual(profilingFlags(['--cpu-prof', '--cpu-prof-dir', '/p', '--cpu-prof-name', 'x', '--import', 'tsx']), ['--cpu-prof', '--cpu-prof-dir', '/p']);
  assert.deepEqual(profilingFlags(['--cpu-prof-interval=500', '--cpu-prof', '--single-threaded-gc']), ['--cpu-prof-interval=500', '--cpu-prof']);
  assert.deepEqual(profilingFlags(['--import', 'tsx', '--enable-source-maps']), []);
});
