import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptimizerFlags } from '../../src/cli/optimizing-runtime.js';

test('optimizer flags: threads a whole number (0 = no background optimizing), memory in PostgreSQL units, nice 0–19', () => {
  assert.deepEqual(parseOptimizerFlags({}), { threads: 1, memoryBytes: 1024 ** 3, niceness: 19 });
  assert.deepEqual(parseOptimizerFlags({ 'optimizer-threads': '0', 'optimizer-memory': '512MB', 'optimizer-nice': '0' }), { threads: 0, memoryBytes: 512 * 1024 ** 2, niceness: 0 });
  assert.throws(() => parseOptimizerFlags({ 'optimizer-nice': '20' }), /--optimizer-nice must be a whole number from 0 to 19/);
  assert.throws(() => parseOptimizerFlags({ 'optimizer-nice': '-5' }), /--optimizer-nice/);
  assert.throws(() => parseOptimizerFlags({ 'optimizer-threads': '-1' }), /whole number/);
  assert.throws(() => parseOptimizerFlags({ 'optimizer-threads': 'two' }), /whole number/);
  assert.throws(() => parseOptimizerFlags({ 'optimizer-memory': 'lots' }), /--optimizer-memory/);
});
