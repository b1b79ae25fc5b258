import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { IntGroupIndex } from '../../src/exec/aggregate/int-group-index.js';

/**
 * Feeds keys to the index as AggregateTable does (get, then add on a miss) and
 * checks every answer against a Map; with `hints`, announces ranges (a partial's
 * keys) now and then, and starts with an expected key count.
 */
function check(keys: readonly number[], hints = false): void {
  const index = new IntGroupIndex(hints ? keys.length : 0);
  const ref = new Map<number, number>();
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (hints && i % 7 === 0) {
      const next = keys.slice(i, i + 7);
      index.expect(Math.min(...next), Math.max(...next), next.length);
    }
    const g = index.get(k);
    assert.equal(g, ref.get(k) ?? -1, `key ${k}`);
    if (g < 0) { ref.set(k, ref.size); index.add(k, ref.size - 1); }
  }
  assert.equal(index.size, ref.size);
  for (const [k, g] of ref) assert.equal(index.get(k), g);
  // Keys never added are not found, inside and outside the range seen.
  for (const k of [0, 1, -1, 2147483647, -2147483648, 12345, -7777777]) if (!ref.has(k)) assert.equal(index.get(k), -1);
  // A large direct array goes back for the next index (which must find none of these keys).
  index.release();
}

test('int group index: dense, climbing, falling, sparse and extreme int32 keys find exactly the groups a Map would', () => {
  const int32 = fc.integer({ min: -2147483648, max: 2147483647 });
  fc.assert(fc.property(fc.tuple(fc.oneof(
    fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 300 }),
    fc.array(int32, { maxLength: 100 }),
    fc.tuple(int32, fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 300 })).map(([base, ds]) => ds.map((d) => Math.max(-2147483648, Math.min(2147483647, base + d)))),
    fc.array(fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom(2147483647, -2147483648, 1 << 26, -(1 << 26))), { maxLength: 200 }),
  ), fc.boolean()), ([keys, hints]) => check(keys, hints)), { numRuns: 400 });
});

test('int group index: keys spread too wide move to the hash table and back to the array once enough keys make the range dense, keeping every group', () => {
  // Climbing order keys (dense: stays direct), then keys 2^25 apart (sparse: moves to the hash table).
  const keys: number[] = [];
  for (let i = 0; i < 50_000; i++) keys.push(1 + i * 4 + (i % 3));
  for (let i = 0; i < 50; i++) keys.push(-2147483648 + i * (1 << 25));
  for (let i = 0; i < 50_000; i += 7) keys.push(1 + i * 4 + (i % 3));
  for (let i = 100_000; i > 90_000; i--) keys.push(i * 9);
  check(keys);
  // Falling keys below the first one widen the range downwards.
  check(Array.from({ length: 20_000 }, (_, i) => 1_000_000 - i * 3));
  check([2147483647, 2147483646, -2147483648, 2147483647, 0]);
  check(keys, true);
  // Two keys a million apart start in the hash table; 100k keys between them make the range dense.
  check([0, 1_000_000, ...Array.from({ length: 100_000 }, (_, i) => i * 7 + 1), 999_999, -1]);
  check([2147483647, 2147483646, -2147483648, 2147483647, 0], true);
});

test('int group index: a released array serves the next index with none of the old keys in it', () => {
  // Each index spans over 2^20 slots (kept when released); the second and third reuse the first's array.
  const climbing = Array.from({ length: 300_000 }, (_, i) => i * 5);
  check(climbing, true);
  check(climbing.map((k) => k + 2), true);
  check([...climbing.slice(0, 1000).map((k) => k + 1), ...climbing.slice(0, 1000)], true);
  const index = new IntGroupIndex(1_000_000);
  for (let i = 0; i < 200_000; i++) { assert.equal(index.get(i * 7), -1); index.add(i * 7, i); }
  for (let i = 0; i < 200_000; i += 997) assert.equal(index.get(i * 7), i);
  index.release();
});
