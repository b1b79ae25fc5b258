import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptimizerFlags } from '../../src/cli/optimizing-runtime.js';

test('optimizer flags: threads a whole number (0 = no background optimizing), memory in PostgreSQL units', () => {
  assert.deepEqual(parseOptimizerFlags({}), { threads: 1, memoryBytes: 1024 ** 3 });
  assert.deepEqual(parseOptimizerFlags({ 'optimizer-threads': '0', 'optimizer-memory': '512MB' }), { threads: 0, memoryBytes: 512 * 1024 ** 2 });
  assert.throws(() => parseOptimizerFlags({ 'optimizer-threads': '-1' }), /whole number/);
  assert.throws(() => parseOptimizerFlags({ 'optimizer-threads': 'two' }), /whole number/);
  assert.throws(() => parseOptimizerFlags({ 'optimizer-memory': 'lots' }), /--optimizer-memory/);
});
