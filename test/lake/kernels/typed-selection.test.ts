import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DateDay, Decimal, Dictionary, Int32, Int64, makeData, makeVector } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import type { SqlType } from '../../../src/common/sql-type.js';
import { buildColumnData } from '../../../src/lake/arrow/batch-builder.js';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';
import { typedSelection } from '../../../src/lake/scan/typed-selection.js';
import type { ScanFilter } from '../../../src/lake/scan/scan-types.js';
import { valueOrderOf } from '../../../src/lake/stats/value-order.js';

const OPS = ['=', '<>', '<', '<=', '>', '>='] as const;

function bitmap(values: readonly unknown[]): { nullBitmap?: Uint8Array; nullCount: number } {
  const bm = new Uint8Array((values.length + 7) >> 3);
  let nulls = 0;
  values.forEach((v, i) => { if (v === null) nulls++; else bm[i >> 3]! |= 1 << (i & 7); });
  return nulls > 0 ? { nullBitmap: bm, nullCount: nulls } : { nullCount: 0 };
}

/** Decimal128 data, or Decimal64 (what a scan reads numeric(p ≤ 18) as) with `bits` 64. */
function decimalData(values: readonly (bigint | null)[], scale: number, bits: 64 | 128 = 128): Data {
  const bw = bits / 32;
  const words = new Uint32Array(values.length * bw);
  values.forEach((v, i) => {
    if (v === null) return;
    let x = BigInt.asUintN(bits, v);
    for (let w = 0; w < bw; w++) { words[i * bw + w] = Number(x & 0xffffffffn); x >>= 32n; }
  });
  return makeData({ type: new Decimal(scale, bits === 64 ? 18 : 38, bits), length: values.length, data: words, ...bitmap(values) });
}

/** The value path's verdict (what filterBatch does for a row the typed selection cannot take). */
function reference(data: Data, f: ScanFilter, type: SqlType, i: number): boolean {
  const v = columnReader(makeVector(data), type).get(i);
  if (v === null) return false;
  if (f.op === 'in') return (f.values ?? []).some((x) => x !== null && valueOrderOf(type)!(v, x) === 0);
  const c = valueOrderOf(type)!(v, f.value);
  switch (f.op) {
    case '=': return c === 0;
    case '<>': return c !== 0;
    case '<': return c < 0;
    case '<=': return c <= 0;
    case '>': return c > 0;
    default: return c >= 0;
  }
}

/**
 * The typed selection of `filters` (all on one column) agrees with the value path,
 * over all rows and over every other row (a selection already narrowed by another column).
 */
function check(data: Data, filters: readonly ScanFilter[], type: SqlType, exact = false): void {
  const typed = typedSelection(data, filters, type);
  assert.ok(typed, `${type.kind} ${filters.map((f) => f.op).join(',')} has a typed selection`);
  const expected = Array.from({ length: data.length }, (_, i) => i).filter((i) => filters.every((f) => reference(data, f, type, i)));
  const out = new Int32Array(data.length);
  const all = [...out.subarray(0, typed.select(undefined, data.length, out))];
  const odd = Int32Array.from({ length: data.length >> 1 }, (_, k) => 2 * k + 1);
  const someOut = new Int32Array(odd.length);
  const some = [...someOut.subarray(0, typed.select(odd, odd.length, someOut))];
  // The caller redoes such a batch value by value; `exact` data must never need it.
  assert.ok(!(exact && typed.bad()), 'values within ±2^53 are decided here');
  if (typed.bad()) return;
  const label = `${type.kind} ${filters.map((f) => `${f.op} ${String(f.value ?? f.values)}`).join(' and ')}`;
  assert.deepEqual(all, expected, label);
  assert.deepEqual(some, expected.filter((i) => i % 2 === 1), `${label} (odd rows)`);
}

test('Decimal64 without NULLs is decided in one pass, values past 2^53 included, at every bound of every operator', () => {
  const big = 2n ** 53n;
  const vals = [-3n, -2n, -1n, 0n, 1n, 2n, 3n, big + 1n, -(big + 1n), big - 1n, 2n ** 62n, -(2n ** 63n), 2n ** 63n - 1n];
  for (const op of OPS) {
    for (const target of ['-2', '0', '1', '2', '9007199254740991', '-9007199254740991']) {
      check(decimalData(vals, 0, 64), [{ column: 'x', op, value: target }], { kind: 'numeric' }, op !== '<>');
      check(decimalData(vals, 0, 64), [{ column: 'x', op, value: target }, { column: 'x', op: '>=', value: '-1' }], { kind: 'numeric' }, op !== '<>');
    }
  }
});

test('typed Decimal128 and Decimal64 comparisons agree with the value path at every scale gap, NULLs and 2^53 included', () => {
  const MAX = 2n ** 53n - 1n;
  const unscaled = fc.oneof(fc.bigInt({ min: -3000n, max: 3000n }), fc.bigInt({ min: MAX - 3n, max: MAX + 3n }), fc.constant(null));
  fc.assert(fc.property(
    fc.array(unscaled, { minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 4 }),
    fc.constantFrom(...OPS), fc.bigInt({ min: -40000n, max: 40000n }), fc.integer({ min: 0, max: 6 }),
    (vals, scale, op, tu, ts) => {
      const digits = (tu < 0n ? -tu : tu).toString().padStart(ts + 1, '0');
      const text = `${tu < 0n ? '-' : ''}${ts === 0 ? digits : `${digits.slice(0, digits.length - ts)}.${digits.slice(digits.length - ts)}`}`;
      // Past 2^53 the batch may go to the value path, unless the Decimal64 loop decides it exactly.
      const exact = vals.every((v) => v === null || (v < 2n ** 53n && v > -(2n ** 53n)) && ts <= scale);
      for (const bits of [128, 64] as const) check(decimalData(vals, scale, bits), [{ column: 'x', op, value: text }], { kind: 'numeric' }, exact);
    },
  ), { numRuns: 400 });
});

test('typed int4 and date comparisons agree with the value path, infinite dates and NULLs included', () => {
  fc.assert(fc.property(
    fc.array(fc.option(fc.integer({ min: -50, max: 50 }), { nil: null }), { minLength: 1, maxLength: 30 }),
    fc.constantFrom(...OPS), fc.integer({ min: -60, max: 60 }), fc.boolean(),
    (vals, op, target, asDate) => {
      const withInf = asDate ? [...vals, 2147483647, -2147483648] : vals;
      const props = { length: withInf.length, data: Int32Array.from(withInf, (v) => v ?? 0), ...bitmap(withInf) };
      const data = asDate ? makeData({ type: new DateDay(), ...props }) : makeData({ type: new Int32(), ...props });
      check(data, [{ column: 'x', op, value: target }], asDate ? { kind: 'date' } : { kind: 'int4' });
    },
  ), { numRuns: 300 });
});

test('several comparisons on one column (ranges, <>, fractional targets) select what the value path keeps', () => {
  const filter = fc.record({ op: fc.constantFrom(...OPS), value: fc.oneof(fc.integer({ min: -60, max: 60 }), fc.double({ min: -60, max: 60, noNaN: true })) });
  fc.assert(fc.property(
    fc.array(fc.option(fc.integer({ min: -50, max: 50 }), { nil: null }), { minLength: 1, maxLength: 30 }),
    fc.array(filter, { minLength: 1, maxLength: 4 }),
    (vals, fs) => {
      const data = makeData({ type: new Int32(), length: vals.length, data: Int32Array.from(vals, (v) => v ?? 0), ...bitmap(vals) });
      check(data, fs.map((f) => ({ column: 'x', op: f.op, value: f.value })), { kind: 'int4' });
    },
  ), { numRuns: 300 });
  fc.assert(fc.property(
    fc.array(fc.option(fc.bigInt({ min: -3000n, max: 3000n }), { nil: null }), { minLength: 1, maxLength: 30 }),
    fc.array(fc.record({ op: fc.constantFrom(...OPS), value: fc.integer({ min: -3000, max: 3000 }), scale: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 4 }),
    (vals, fs) => {
      const text = (u: number, s: number): string => (u / 10 ** s).toFixed(s);
      check(decimalData(vals, 2), fs.map((f) => ({ column: 'x', op: f.op, value: text(f.value, f.scale) })), { kind: 'numeric' });
    },
  ), { numRuns: 300 });
});

test('int4 and date IN lists, with each other and with comparisons, select what the value path keeps', () => {
  const list = fc.array(fc.oneof(fc.integer({ min: -60, max: 60 }), fc.constant(null), fc.double({ min: -60, max: 60, noNaN: true })), { maxLength: 6 });
  const filter = fc.oneof(
    fc.record({ op: fc.constant('in' as const), values: list }),
    fc.record({ op: fc.constantFrom(...OPS), value: fc.integer({ min: -60, max: 60 }) }),
  );
  fc.assert(fc.property(
    fc.array(fc.option(fc.integer({ min: -50, max: 50 }), { nil: null }), { minLength: 1, maxLength: 30 }),
    fc.array(filter, { minLength: 1, maxLength: 3 }).filter((fs) => fs.some((f) => f.op === 'in')), fc.boolean(),
    (vals, fs, asDate) => {
      const props = { length: vals.length, data: Int32Array.from(vals, (v) => v ?? 0), ...bitmap(vals) };
      const data = asDate ? makeData({ type: new DateDay(), ...props }) : makeData({ type: new Int32(), ...props });
      check(data, fs.map((f) => ({ column: 'x', ...f }) as ScanFilter), asDate ? { kind: 'date' } : { kind: 'int4' });
    },
  ), { numRuns: 400 });
  // Lists spanning more than a byte table covers are tested through a set.
  const wide = makeData({ type: new Int32(), length: 6, data: Int32Array.from([-2000000000, 0, 5, 70000, 2000000000, 7]), nullCount: 0 });
  check(wide, [{ column: 'x', op: 'in', values: [2000000000, 5, -2000000000, 6] }], { kind: 'int4' });
  check(wide, [{ column: 'x', op: 'in', values: [2000000000, 5, -2000000000] }, { column: 'x', op: '<>', value: 5 }, { column: 'x', op: '<', value: 70001 }], { kind: 'int4' });
  // As long as a write's key lookup makes them (every key it holds): 300k values.
  const keys = Array.from({ length: 300_000 }, (_, i) => i * 7);
  check(wide, [{ column: 'x', op: 'in', values: keys }], { kind: 'int4' });
});

/** One filter: a comparison with a target, or an IN list of up to `maxList` targets and NULLs. */
function comparisonOrList<T>(target: fc.Arbitrary<T>, maxList: number) {
  return fc.oneof(
    fc.record({ op: fc.constant('in' as const), values: fc.array(fc.oneof(target, fc.constant(null)), { maxLength: maxList }) }),
    fc.record({ op: fc.constantFrom(...OPS), value: target }),
  );
}

test('int8 comparisons and IN lists (bigint or number targets) agree with the value path, values past 2^53 and NULLs included', () => {
  const big = 2n ** 53n;
  // Values past 2^53 rarely, so most batches are decided here rather than handed to the value path.
  const value = fc.oneof(
    { arbitrary: fc.bigInt({ min: -40n, max: 40n }), weight: 40 },
    { arbitrary: fc.constantFrom(big - 1n, -(big - 1n)), weight: 2 },
    { arbitrary: fc.constantFrom(big, big + 1n, -big - 1n, 2n ** 63n - 1n, -(2n ** 63n)), weight: 1 },
  );
  const target = fc.oneof(fc.bigInt({ min: -45n, max: 45n }), fc.integer({ min: -45, max: 45 }), fc.constantFrom(big - 1n, -(big - 1n)));
  const filter = comparisonOrList(target, 6);
  fc.assert(fc.property(
    fc.array(fc.option(value, { nil: null }), { minLength: 1, maxLength: 30 }), fc.array(filter, { minLength: 1, maxLength: 3 }),
    (vals, fs) => {
      const data = makeData({ type: new Int64(), length: vals.length, data: BigInt64Array.from(vals, (v) => v ?? 0n), ...bitmap(vals) });
      // Values within ±2^53 are decided here; past it the batch may go to the value path.
      check(data, fs.map((f) => ({ column: 'x', ...f }) as ScanFilter), { kind: 'int8' }, vals.every((v) => v === null || (v < big && v > -big)));
    },
  ), { numRuns: 600 });
  // A sliced column (a batch's rows past the first), read through its own offset.
  const whole = makeData({ type: new Int64(), length: 6, data: BigInt64Array.from([1n, 2n, 3n, 4n, 5n, 6n]), nullCount: 0 });
  const sliced = whole.slice(2, 4);
  check(sliced, [{ column: 'x', op: 'in', values: [3n, 6n, 4] }], { kind: 'int8' }, true);
  const out = new Int32Array(2);
  assert.deepEqual([...out.subarray(0, typedSelection(sliced, [{ column: 'x', op: 'in', values: [4n, 6n] }], { kind: 'int8' })!.select(undefined, 2, out))], [1]);
});

test('uuid comparisons and IN lists agree with the value path (canonical text order), NULLs included; other spellings are left to it', () => {
  // Heads shared and not, differences in the last byte, bytes past 0x7f (compared unsigned).
  const pool = [
    '00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-0000000000ff', '00000000-0000-0000-0000-000000000001',
    'ffffffff-ffff-ffff-ffff-ffffffffffff', '7fffffff-0000-0000-0000-000000000000', '80000000-0000-0000-0000-000000000000',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12', 'a0eebc99-0000-4ef8-bb6d-6bb9bd380a11',
  ];
  const uuid = fc.constantFrom(...pool);
  const filter = comparisonOrList(uuid, 5);
  fc.assert(fc.property(
    fc.array(fc.option(uuid, { nil: null }), { minLength: 1, maxLength: 30 }), fc.array(filter, { minLength: 1, maxLength: 3 }),
    (vals, fs) => {
      check(buildColumnData({ kind: 'uuid' }, vals, 'x'), fs.map((f) => ({ column: 'x', ...f }) as ScanFilter), { kind: 'uuid' }, true);
    },
  ), { numRuns: 500 });
  const data = buildColumnData({ kind: 'uuid' }, [pool[6]!], 'x');
  assert.equal(typedSelection(data, [{ column: 'x', op: '=', value: pool[6]!.toUpperCase() }], { kind: 'uuid' }), undefined);
  assert.equal(typedSelection(data, [{ column: 'x', op: 'in', values: [pool[0]!, `{${pool[6]!}}`] }], { kind: 'uuid' }), undefined);
});

test('shapes without a typed test are left to the value path', () => {
  const ints = makeData({ type: new Int32(), length: 2, data: Int32Array.from([1, 2]) });
  assert.equal(typedSelection(ints, [{ column: 'x', op: 'in', values: [1, Infinity] }], { kind: 'int4' }), undefined);
  assert.equal(typedSelection(decimalData([1n], 2), [{ column: 'x', op: 'in', values: ['0.01'] }], { kind: 'numeric' }), undefined);
  assert.equal(typedSelection(ints, [{ column: 'x', op: '=', value: 1n }], { kind: 'int4' }), undefined);
  const int8s = makeData({ type: new Int64(), length: 1, data: BigInt64Array.from([1n]) });
  assert.equal(typedSelection(int8s, [{ column: 'x', op: '=', value: 2n ** 60n }], { kind: 'int8' }), undefined);
  assert.equal(typedSelection(int8s, [{ column: 'x', op: 'in', values: [1n, -(2n ** 60n)] }], { kind: 'int8' }), undefined);
  const dates = makeData({ type: new DateDay(), length: 1, data: Int32Array.from([5]) });
  assert.equal(typedSelection(dates, [{ column: 'x', op: '<', value: Infinity }], { kind: 'date' }), undefined);
  assert.equal(typedSelection(decimalData([1n], 2), [{ column: 'x', op: '<', value: 'NaN' }], { kind: 'numeric' }), undefined);
});

// Units chosen to straddle UTF-16's order: U+FF21 sorts below the surrogate pair of U+1D11E in code points, above it in UTF-16.
const textValue = fc.array(fc.constantFrom('a', 'b', 'ab', '', ' ', 'é', '✓', '\uff21', '𝄞'), { maxLength: 3 }).map((parts) => parts.join(''));
const textColumn = fc.array(fc.oneof(textValue, fc.constant(null)), { minLength: 1, maxLength: 30 });
const textFilter = fc.oneof(
  fc.record({ column: fc.constant('x'), op: fc.constantFrom(...OPS), value: textValue }),
  fc.record({ column: fc.constant('x'), op: fc.constant('in' as const), values: fc.array(fc.oneof(textValue, fc.constant(null)), { maxLength: 4 }) }),
);

test('typed text comparisons and IN lists agree with the value path in code point order, multibyte text, char(n) blanks and NULLs included', () => {
  fc.assert(fc.property(
    textColumn, fc.array(textFilter, { minLength: 1, maxLength: 2 }),
    fc.constantFrom<SqlType>({ kind: 'text' }, { kind: 'varchar' }, { kind: 'name' }, { kind: 'bpchar', length: 3 }),
    (vals, filters, type) => {
      check(buildColumnData(type, vals, 'x'), filters as ScanFilter[], type);
    },
  ), { numRuns: 500 });
});

test('a text column as dictionary codes selects the rows its strings select (filter-only columns read by code)', () => {
  fc.assert(fc.property(
    textColumn, fc.array(textFilter, { minLength: 1, maxLength: 2 }),
    fc.constantFrom<SqlType>({ kind: 'text' }, { kind: 'varchar' }, { kind: 'bpchar', length: 3 }),
    (vals, filters, type) => {
      const strings = buildColumnData(type, vals, 'x');
      // The dictionary in an order of its own (reversed), so a code is not the row's rank.
      const distinct = [...new Set(vals.filter((v) => v !== null))].reverse();
      const codes = Int32Array.from(vals, (v) => (v === null ? 0 : distinct.indexOf(v)));
      const dictionary = makeVector(buildColumnData(type, distinct.length > 0 ? distinct : [''], 'x'));
      const coded = makeData({ type: new Dictionary(dictionary.type, new Int32()), length: vals.length, data: codes, dictionary, ...bitmap(vals) });
      const selectAll = (data: Data, rows: Int32Array | undefined, n: number): number[] => {
        const typed = typedSelection(data, filters as ScanFilter[], type)!;
        const out = new Int32Array(n);
        return [...out.subarray(0, typed.select(rows, n, out))];
      };
      const odd = Int32Array.from({ length: vals.length >> 1 }, (_, k) => 2 * k + 1);
      assert.deepEqual(selectAll(coded, undefined, vals.length), selectAll(strings, undefined, vals.length));
      assert.deepEqual(selectAll(coded, odd, odd.length), selectAll(strings, odd, odd.length));
    },
  ), { numRuns: 300 });
});
