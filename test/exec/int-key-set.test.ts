import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { IntKeySet } from '../../src/exec/operators/joins/int-key-set.js';

const probe = fc.oneof(
  fc.integer({ min: -200, max: 200 }),
  fc.double({ min: -200, max: 200 }),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 2 ** 53, -(2 ** 53), 2 ** 27, 2 ** 27 + 1),
);

function agrees(values: number[], probes: number[]): void {
  const set = new IntKeySet(Float64Array.from(values));
  const oracle = new Set(values);
  for (const p of [...probes, ...values]) assert.equal(set.has(p), oracle.has(p), `has(${p}) over [${values.slice(0, 8)}…]`);
  // The int32 selection (runtime filters over int4 buffers) keeps exactly the members, read
  // directly, through a scan's row selection, through the filter's own selection, or both.
  const ints = Int32Array.from([...probes, ...values].filter((p) => (p | 0) === p));
  const n = ints.length;
  const rows = Int32Array.from({ length: n }, (_, i) => n - 1 - i);
  const sel = Int32Array.from({ length: n }, (_, i) => i).filter((i) => i % 3 !== 1);
  for (const [r, s] of [[undefined, undefined], [rows, undefined], [undefined, sel], [rows, sel]] as const) {
    const keep = new Int32Array(n);
    const k = set.selectInt32(ints, r, s, s?.length ?? n, keep);
    const expected = [...(s ?? Int32Array.from({ length: n }, (_, i) => i))].filter((i) => oracle.has(ints[r === undefined ? i : r[i]!]!));
    assert.deepEqual([...keep.subarray(0, k)], expected, `selectInt32 over [${values.slice(0, 8)}…], rows ${r !== undefined}, sel ${s !== undefined}`);
  }
}

test('IntKeySet answers exactly like a Set, for dense spans (bitset) and wide ones (hash table)', () => {
  fc.assert(fc.property(fc.array(fc.integer({ min: -100, max: 100 }), { minLength: 1, maxLength: 60 }), fc.array(probe, { maxLength: 40 }), agrees), { numRuns: 400 });
  // Spans past the bitset's limit, and sets holding huge values, take the hash table.
  fc.assert(fc.property(
    fc.array(fc.oneof(fc.integer({ min: -100, max: 100 }), fc.constantFrom(2 ** 27, 2 ** 27 + 1, -(2 ** 40), 2 ** 53 - 1)), { minLength: 1, maxLength: 60 }),
    fc.array(probe, { maxLength: 40 }), agrees,
  ), { numRuns: 400 });
});

test('IntKeySet over no keys and over fractional keys finds only what it holds', () => {
  agrees([], [0, 1, -1, NaN]);
  agrees([1.5, 2], [1, 1.5, 2, 2.5]);
});
