import { test } from 'node:test';
import assert from 'node:assert/strict';
import { oldestCommitMicros } from '../../src/lake/optimize/oldest-commit.js';

test('the oldest commit of files on one lineage is its least snapshot id, looked up once', () => {
  const times = new Map<bigint, bigint>([[3n, 300n], [5n, 500n], [9n, 900n]]);
  const asked: bigint[] = [];
  const commitMicros = (id: bigint): bigint | undefined => { asked.push(id); return times.get(id); };
  assert.equal(oldestCommitMicros([9n, 5n, 3n, 9n, 5n], commitMicros), 300n);
  assert.deepEqual(asked, [3n], 'one lookup for many files');
  // An id whose time is unknown is passed over for the next least.
  asked.length = 0;
  assert.equal(oldestCommitMicros([9n, 2n, 5n], commitMicros), 500n);
  assert.deepEqual(asked, [2n, 5n]);
  assert.equal(oldestCommitMicros([], commitMicros), undefined);
  assert.equal(oldestCommitMicros([1n, 2n], commitMicros), undefined);
});
