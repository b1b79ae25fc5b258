import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Int32, makeData } from 'apache-arrow';
import { IntHashTable, intKeyChains } from '../../src/exec/operators/joins/int-hash-table.js';
import type { JoinKeyIndex } from '../../src/exec/operators/joins/int-hash-table.js';
import { int32Column } from '../../src/exec/operators/int32-column.js';
import { buildRuntimeFilter, runtimeFilterSelection } from '../../src/exec/operators/runtime-filter.js';
import { lazyBatch } from '../../src/exec/arrow/columnar-batch.js';
import { arrowColumn } from '../../src/exec/arrow/column-source.js';

/** The general path: a Map from key to its rows in order. */
function mapChains(keys: readonly unknown[]): Map<unknown, number[]> {
  const m = new Map<unknown, number[]>();
  keys.forEach((k, j) => { if (k !== undefined) (m.get(k) ?? m.set(k, []).get(k)!).push(j); });
  return m;
}

function chainOf(head: JoinKeyIndex, next: Int32Array, k: unknown): number[] {
  const rows: number[] = [];
  for (let j = head.get(k) ?? -1; j >= 0; j = next[j]!) rows.push(j);
  return rows;
}

const keyArb = fc.oneof(
  fc.integer({ min: -50, max: 50 }),
  fc.integer(),
  fc.constantFrom(2 ** 52 + 1, -(2 ** 53) + 1, 2 ** 32, -(2 ** 32), 2 ** 26 * 5 + 7, Infinity, -Infinity, 0),
  fc.constant(undefined),
);

test('int key chains equal a Map: every key finds its rows in order, absent keys and non-numbers miss (property)', () => {
  fc.assert(fc.property(fc.array(keyArb, { maxLength: 300 }), fc.array(fc.integer(), { maxLength: 20 }), (keys, probes) => {
    const next = new Int32Array(keys.length);
    const built = intKeyChains(keys, next);
    assert.ok(built);
    const ref = mapChains(keys);
    assert.equal(built.head.size, ref.size);
    assert.equal(built.hasNullKey, keys.includes(undefined));
    for (const [k, rows] of ref) assert.deepEqual(chainOf(built.head, next, k), rows);
    for (const p of probes) assert.deepEqual(chainOf(built.head, next, p), ref.get(p) ?? []);
    assert.deepEqual([...built.head.keys()].sort(), [...ref.keys()].sort());
    assert.equal(built.head.get('1'), undefined);
    assert.equal(built.head.get(1n), undefined);
    assert.equal(built.head.get(NaN), undefined);
  }), { numRuns: 500 });
});

test('int key chains: -0 finds 0, the table grows past its first size, and non-number or NaN keys leave it to a Map', () => {
  const n = 70_000;
  const keys = Array.from({ length: n }, (_, j) => (j * 7919) % 50_000 - 25_000);
  const next = new Int32Array(n);
  const built = intKeyChains(keys, next)!;
  const ref = mapChains(keys);
  assert.equal(built.head.size, ref.size);
  for (const [k, rows] of ref) assert.deepEqual(chainOf(built.head, next, k), rows);
  const small = new IntHashTable(1);
  for (let k = 0; k < 1000; k++) assert.equal(small.push(k * 4294967296, k), -1);
  for (let k = 0; k < 1000; k++) assert.equal(small.get(k * 4294967296), k);
  assert.equal(small.push(0, 5000), 0);
  assert.equal(small.get(-0), 5000);
  assert.equal(intKeyChains([1, 'a'], new Int32Array(2)), undefined);
  assert.equal(intKeyChains([1, NaN], new Int32Array(2)), undefined);
  assert.equal(intKeyChains([1, 1.5, 2], new Int32Array(3))?.head.get(1.5), 1);
});

test('runtime filter over an int4 Arrow column (sliced, undecoded) keeps the same rows as over decoded values; NULLs fall back', () => {
  const n = 5000;
  const raw = Int32Array.from({ length: n }, (_, i) => (i * 7919) % 3000 - 100);
  const data = makeData({ type: new Int32(), length: n, data: raw });
  const sliced = data.slice(123, 4000);
  const expected = Array.from(raw.subarray(123, 4123));
  const arrowBatch = lazyBatch(4000, [arrowColumn(sliced, { kind: 'int4' })]);
  assert.deepEqual(Array.from(int32Column(arrowBatch, 0)!), expected, 'offset applied');
  const plainBatch = { numRows: 4000, columns: [expected] };
  const filter = buildRuntimeFilter([5, -100, 2999, 17, 17, null, 400000], 'int', 0)!;
  assert.equal(filter.values.length, 5, 'distinct, NULLs left out');
  const a = runtimeFilterSelection(arrowBatch, [filter], { removed: 0 });
  const b = runtimeFilterSelection(plainBatch, [filter], { removed: 0 });
  assert.ok(a && b && a.length > 0);
  assert.deepEqual(Array.from(a), Array.from(b));
  assert.ok(Array.from(a).every((i) => [5, -100, 2999, 17].includes(expected[i]!)));
  // A column still standing for some rows of its data (a scan filter's selection) is read through them.
  // Every third row, and every row holding a key, so that some rows pass and more do not.
  const rows = Int32Array.from(Array.from({ length: n }, (_, r) => r).filter((r) => r % 3 === 1 || [5, -100, 2999, 17].includes(raw[r]!)));
  const selected = lazyBatch(rows.length, [arrowColumn(data, { kind: 'int4' }, rows)]);
  const decoded = { numRows: rows.length, columns: [Array.from(rows, (r) => raw[r]!)] };
  const viaRows = runtimeFilterSelection(selected, [filter], { removed: 0 });
  assert.ok(viaRows && viaRows.length > 0);
  assert.deepEqual(Array.from(viaRows), Array.from(runtimeFilterSelection(decoded, [filter], { removed: 0 })!));
  // With NULLs the buffer is not used: the decoded values decide.
  const withNulls = makeData({ type: new Int32(), length: 3, data: Int32Array.of(5, 0, 17), nullBitmap: Uint8Array.of(0b101), nullCount: 1 });
  const nb = lazyBatch(3, [arrowColumn(withNulls, { kind: 'int4' })]);
  assert.equal(int32Column(nb, 0), undefined);
  assert.deepEqual(Array.from(runtimeFilterSelection(nb, [buildRuntimeFilter([5, 17, 0], 'int', 0)!], { removed: 0 }) ?? []), [0, 2]);
});

test('int runtime filter values: the distinct non-NULL keys, dense (bitmap) or sparse (table), capped, bigint and ±Infinity kept exact', () => {
  const sortNum = (f: ReturnType<typeof buildRuntimeFilter>) => Array.from(f!.values as Float64Array).sort((a, b) => a - b);
  fc.assert(fc.property(fc.array(fc.oneof(fc.integer({ min: -40, max: 40 }), fc.integer(), fc.constant(null), fc.constantFrom(-0, Infinity, -Infinity, 2 ** 52)), { maxLength: 200 }), (vals) => {
    const want = [...new Set(vals.filter((v) => v !== null).map((v) => (v === 0 ? 0 : v)))].sort((a, b) => (a as number) - (b as number));
    assert.deepEqual(sortNum(buildRuntimeFilter(vals, 'int', 0)), want);
  }), { numRuns: 300 });
  const dense = Array.from({ length: 10_000 }, (_, i) => 1 + (i % 2500));
  assert.equal(buildRuntimeFilter(dense, 'int', 0)!.values.length, 2500);
  assert.equal(buildRuntimeFilter(dense, 'int', 0, 2499), undefined, 'over the cap');
  assert.deepEqual(sortNum(buildRuntimeFilter([5n, 7, 5, 7n], 'int', 0)), [5, 7]);
  assert.equal(buildRuntimeFilter([1, 2n ** 60n], 'int', 0), undefined);
  // Keys already distinct (a hash table's keys) are taken as they are.
  assert.deepEqual(sortNum(buildRuntimeFilter(new Set([3, 1, 2]).values(), 'int', 0, 10, true)), [1, 2, 3]);
});

test('a typed join table\'s intKeys are its keys, -0 as 0, dense (direct index) or sparse (hash table)', () => {
  fc.assert(fc.property(
    fc.array(fc.oneof(fc.integer({ min: -50, max: 50 }), fc.integer(), fc.constantFrom(-0, 2 ** 40, -(2 ** 40)), fc.constant(undefined)), { maxLength: 300 }),
    (keys) => {
      const chains = intKeyChains(keys, new Int32Array(keys.length))!;
      const want = [...new Set(keys.filter((k): k is number => k !== undefined).map((k) => k + 0))].sort((a, b) => a - b);
      const got = [...chains.head.intKeys()].sort((a, b) => a - b);
      assert.deepEqual(got, want);
      assert.ok(got.every((k) => !Object.is(k, -0)), '-0 comes out as 0');
      const fromIterator = [...chains.head.keys()].map((k) => (k as number) + 0).sort((a, b) => a - b);
      assert.deepEqual(got, fromIterator);
    },
  ), { numRuns: 200 });
});
