import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { SqlType } from '../../src/common/sql-type.js';
import { compileSortKeys } from '../../src/exec/operators/sort-keys.js';
import { col, t } from './exec-test-helpers.js';

/*
 * CompiledSortKeys.order ranks each key's distinct values and sorts rows by those
 * ranks (packed into one number when they fit). It must give exactly the order a
 * stable sort by the comparator gives: for every type whose values rank (text,
 * bpchar with trailing blanks, numeric text with trailing zeros, bigint, floats
 * with NaN and -0, bool), both directions, NULLs first or last, many keys (the
 * ranks then no longer pack), and object values (intervals), which do not rank.
 */

const BPCHAR = { kind: 'bpchar', length: 3 } as SqlType;
const INTERVAL = { kind: 'interval' } as SqlType;

interface Column { readonly type: SqlType; readonly values: readonly unknown[] }

function columnArb(n: number): fc.Arbitrary<Column> {
  const of = (type: SqlType, v: fc.Arbitrary<unknown>): fc.Arbitrary<Column> =>
    fc.array(fc.oneof({ weight: 9, arbitrary: v }, { weight: 1, arbitrary: fc.constant(null) }), { minLength: n, maxLength: n }).map((values) => ({ type, values }));
  return fc.oneof(
    of(t.text, fc.constantFrom('', 'a', 'b', 'ab', 'B', 'é', 'a b', 'zz')),
    of(t.text, fc.integer({ min: 0, max: 5000 }).map((i) => `v${i}`)),
    of(BPCHAR, fc.constantFrom('a', 'a ', 'a  ', 'b', ' b', '', 'ab')),
    of(t.numeric, fc.constantFrom('1', '1.0', '1.50', '1.5', '-0', '0', '-2.25', '10')),
    of(t.int8, fc.bigInt({ min: -5n, max: 5n })),
    of(t.int4, fc.integer({ min: -1000, max: 1000 })),
    of(t.float8, fc.constantFrom(0, -0, 1.5, -1, NaN, Infinity, -Infinity)),
    of(t.bool, fc.boolean()),
  );
}

const caseArb = fc.integer({ min: 1, max: 700 }).chain((n) => fc.record({
  n: fc.constant(n),
  keys: fc.array(fc.record({ column: columnArb(n), descending: fc.boolean(), nullsFirst: fc.boolean() }), { minLength: 1, maxLength: 7 }),
}));

function comparatorOrder(keys: ReturnType<typeof compileSortKeys>, cols: readonly (readonly unknown[])[], n: number): number[] {
  return Array.from({ length: n }, (_, i) => i).sort(keys.comparator(cols));
}

test('sort order by ranked keys equals a stable sort by the comparator', () => {
  fc.assert(fc.property(caseArb, ({ n, keys }) => {
    const compiled = compileSortKeys(keys.map((k, i) => ({ expr: col(i, k.column.type), descending: k.descending, nullsFirst: k.nullsFirst })));
    const cols = keys.map((k) => k.column.values);
    assert.deepEqual(compiled.order(cols, n), comparatorOrder(compiled, cols, n));
  }), { numRuns: 300 });
});

test('rows whose keys are objects (intervals) sort by the comparator', () => {
  const n = 400;
  const intervals = Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : { months: i % 3, days: (i * 13) % 5, micros: 0n }));
  const names = Array.from({ length: n }, (_, i) => `n${i % 11}`);
  const compiled = compileSortKeys([
    { expr: col(0, t.text), descending: false, nullsFirst: false },
    { expr: col(1, INTERVAL), descending: true, nullsFirst: true },
  ]);
  const order = compiled.order([names, intervals], n);
  assert.deepEqual(order, comparatorOrder(compiled, [names, intervals], n));
  assert.equal(intervals[order[0]!], null, 'the first name\'s NULL interval comes first under DESC NULLS FIRST');
});

test('keys too many and too varied to pack into one number sort by their ranks, ties in input order', () => {
  // Six keys of up to 600 distinct values over 700 rows: their ranks' product times
  // the rows passes 2^53 (the product alone need not), so rows compare rank by rank.
  fc.assert(fc.property(
    fc.array(fc.tuple(fc.integer({ min: 0, max: 599 }), fc.integer({ min: -299, max: 300 }), fc.integer({ min: 0, max: 599 }), fc.integer({ min: 0, max: 599 }), fc.integer({ min: 0, max: 599 }), fc.integer({ min: 0, max: 599 })), { minLength: 690, maxLength: 700 }),
    fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    (rows, descending) => {
      // Every tenth row repeats the one before: equal keys must keep their order.
      const all = rows.map((r, i) => (i % 10 === 9 ? rows[i - 1]! : r));
      const cols = [0, 1, 2, 3, 4, 5].map((k) => all.map((r) => (k === 3 ? `t${r[k]}` : r[k])));
      const compiled = compileSortKeys(cols.map((_, k) => ({ expr: col(k, k === 3 ? t.text : t.int4), descending: descending[k]!, nullsFirst: false })));
      assert.deepEqual(compiled.order(cols, all.length), comparatorOrder(compiled, cols, all.length));
    },
  ), { numRuns: 20 });
});
