import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { SqlType } from '../../src/common/sql-type.js';
import { lazyBatch } from '../../src/exec/arrow/columnar-batch.js';
import { arrowColumn, decodeColumn, valuesColumn } from '../../src/exec/arrow/column-source.js';
import type { ColumnSource } from '../../src/exec/arrow/column-source.js';
import type { AggregateCall, Expr } from '../../src/exec/index.js';
import { AggregateTable } from '../../src/exec/aggregate/aggregate-table.js';
import { compileAggregation } from '../../src/exec/aggregate/compile-aggregation.js';
import type { AggregateSpec } from '../../src/exec/aggregate/compile-aggregation.js';
import { createRunState } from '../../src/exec/run-state.js';
import { aggId, col, decimalData, int, lit, op, t } from './exec-test-helpers.js';

/*
 * The typed per-group states (ColumnarAggregate) against the object states
 * they replace (compileAggregation's `columnar: false`): the same batches,
 * stepped from numeric text or from exact scaled Decimal data, split across
 * tables whose partials cross a structured clone and merge, must finish with
 * the same values — around 2^52/2^53 where numeric and int8 sums leave the
 * double, with NULLs, negative values, "-0.00", NaN and changing scales.
 */

const run = createRunState({ params: [], settings: new Map(), transactionStartMicros: 0n });

/** Input columns: 0 k int4 (group key, NULLs), 1 n numeric, 2 i int4, 3 b int8, 4 f float8, 5 d date. */
const TYPES: SqlType[] = [t.int4, t.numeric, t.int4, t.int8, t.float8, t.date];
const c = (i: number): Expr => col(i, TYPES[i]!);

function call(name: string, args: Expr[], filter?: Expr): AggregateCall {
  const a = aggId(name, ...args.map((x) => x.type));
  return { fn: a.id, args, distinct: false, type: a.type, ...(filter ? { filter } : {}) };
}

const AGGS: AggregateCall[] = [
  call('count', []), call('count', [c(1)]), call('sum', [c(1)]), call('avg', [c(1)]),
  call('sum', [c(2)]), call('avg', [c(2)]), call('sum', [c(3)]), call('avg', [c(3)]),
  call('sum', [c(4)]), call('avg', [c(4)]), call('min', [c(2)]), call('max', [c(2)]), call('min', [c(5)]), call('max', [c(5)]),
  call('sum', [c(1)], op('>', c(2), int(0))), call('count', [c(3)], op('<', c(2), int(0))),
  // No typed columns: their object states ride along in the same partials.
  call('min', [c(1)]), call('max', [c(3)]),
];

/** Every aggregate typed: the table's int32 key loop then makes new groups without any object state. */
const TYPED_AGGS = AGGS.slice(0, -2);

const spec = (groupBy: Expr[], aggregates = AGGS): AggregateSpec => ({ groupBy, aggregates });

const MAX = 2n ** 53n - 1n;
const P52 = 2n ** 52n;

/** Unscaled numerics around where the running double must give way to BigInt, plus small ones. */
const unscaledArb = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: -1000n, max: 1000n }) },
  { weight: 2, arbitrary: fc.bigInt({ min: P52 - 40n, max: P52 + 40n }) },
  { weight: 2, arbitrary: fc.bigInt({ min: -P52 - 40n, max: -P52 + 40n }) },
  { weight: 2, arbitrary: fc.bigInt({ min: MAX - 40n, max: MAX + 40n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: -MAX - 40n, max: -MAX + 40n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }) },
  { weight: 1, arbitrary: fc.constantFrom(0n, P52, -P52, MAX, -MAX, 2n ** 53n, -(2n ** 53n)) },
);

function formatUnscaled(u: bigint, scale: number): string {
  if (scale === 0) return u.toString();
  const neg = u < 0n;
  const s = (neg ? -u : u).toString().padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
}

/** Numeric text at mixed scales, with "-0.00", NaN and scales far apart (0 and 33). */
const numericTextArb = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(unscaledArb, fc.integer({ min: 0, max: 4 })).map(([u, s]) => formatUnscaled(u, s)) },
  { weight: 1, arbitrary: fc.constantFrom('-0.00', '0', 'NaN', '0.000000000000000000000000000000001', '4503599627370496.5') },
  { weight: 2, arbitrary: fc.constant(null) },
);

const int4Arb = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(2147483647, -2147483648), fc.constant(null));
const int8Arb = fc.oneof(
  fc.bigInt({ min: -10n, max: 10n }), fc.bigInt({ min: P52 - 5n, max: P52 + 5n }), fc.bigInt({ min: -P52 - 5n, max: -P52 + 5n }),
  fc.constantFrom(MAX, -MAX - 1n, 2n ** 62n, -(2n ** 62n)), fc.constant(null),
);
const float8Arb = fc.oneof(fc.double({ noNaN: false }), fc.constantFrom(-0, 0.1, 0.2, 1e308), fc.constant(null));
const dateArb = fc.oneof(fc.integer({ min: -1000, max: 30000 }), fc.constantFrom(Infinity, -Infinity), fc.constant(null));

type Row = [number | null, string | null, number | null, bigint | null, number | null, number | null];

/** One batch: rows, and for the numeric column either text or Decimal data at one scale (unscaled values). */
interface BatchSpec { rows: Row[]; decimal: { scale: number; unscaled: (bigint | null)[] } | undefined }

const rowArb = (keys: number): fc.Arbitrary<Row> => fc.tuple(
  fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: keys - 1 }) }, { weight: 1, arbitrary: fc.constant(null) }),
  numericTextArb, int4Arb, int8Arb, float8Arb, dateArb,
);

const batchArb = (keys: number): fc.Arbitrary<BatchSpec> => fc.tuple(
  fc.array(rowArb(keys), { minLength: 1, maxLength: 40 }),
  fc.option(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.array(fc.oneof({ weight: 6, arbitrary: unscaledArb }, { weight: 1, arbitrary: fc.constant(null) }), { minLength: 40, maxLength: 40 }))),
).map(([rows, dec]) => {
  if (!dec) return { rows, decimal: undefined };
  const [scale, unscaled] = dec;
  const u = unscaled.slice(0, rows.length);
  // The rows' numeric text is what the Decimal data decodes to.
  return { rows: rows.map((r, i) => [r[0], u[i] === null ? null : formatUnscaled(u[i]!, scale), r[2], r[3], r[4], r[5]] as Row), decimal: { scale, unscaled: u } };
});


function batchOf(b: BatchSpec) {
  const sources: ColumnSource[] = TYPES.map((_, ci) => valuesColumn(b.rows.map((r) => r[ci])));
  // Decimal data gives the numeric argument a scaled view (when every value is a safe integer).
  if (b.decimal) sources[1] = arrowColumn(decimalData(b.decimal.unscaled, b.decimal.scale), t.numeric);
  return lazyBatch(b.rows.length, sources);
}

const text = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : typeof x === 'number' && !Number.isFinite(x) ? String(x) : Object.is(x, -0) ? '-0' : x));

/** Rows of a finished table, sorted (partial merges may number groups differently); Arrow columns decoded as readers would. */
function rowsOf(table: AggregateTable): string[] {
  const finished = table.finish(false);
  const numRows = finished.numRows;
  const columns = finished.columns.map(decodeColumn);
  const out: string[] = [];
  for (let r = 0; r < numRows; r++) out.push(text(columns.map((col) => col[r])));
  return out.sort();
}

/**
 * Sinks `batches` split into `parts` tables by `split` (table per batch), ships each table's
 * partial through a structured clone (as a worker's result), and merges them into a table that
 * has itself sunk batches assigned to part 0.
 */
async function viaPartials(s: AggregateSpec, columnar: boolean, batches: BatchSpec[], split: number[], parts: number): Promise<string[]> {
  const compiled = compileAggregation(s, { columnar });
  const tables = Array.from({ length: parts }, () => new AggregateTable(compiled));
  for (let i = 0; i < batches.length; i++) await tables[split[i]! % parts]!.sink(batchOf(batches[i]!), run);
  const into = tables[0]!;
  for (let p = 1; p < parts; p++) into.merge(structuredClone(tables[p]!.partial()));
  return rowsOf(into);
}

async function direct(s: AggregateSpec, columnar: boolean, batches: BatchSpec[]): Promise<string[]> {
  const table = new AggregateTable(compileAggregation(s, { columnar }));
  for (const b of batches) await table.sink(batchOf(b), run);
  return rowsOf(table);
}

test('typed states equal object states: GROUP BY int4, global aggregate, stepped from text and from scaled Decimal data', async () => {
  await fc.assert(fc.asyncProperty(
    fc.integer({ min: 1, max: 6 }).chain((keys) => fc.array(batchArb(keys), { minLength: 1, maxLength: 5 })),
    async (batches) => {
      for (const s of [spec([c(0)]), spec([]), spec([c(0)], TYPED_AGGS), spec([c(2)], TYPED_AGGS)]) {
        assert.deepEqual(await direct(s, true, batches), await direct(s, false, batches));
      }
    },
  ), { numRuns: 150 });
});

test('typed partials (cloned, merged) equal object partials merged the same way', async () => {
  await fc.assert(fc.asyncProperty(
    fc.integer({ min: 1, max: 6 }).chain((keys) => fc.tuple(
      fc.array(batchArb(keys), { minLength: 1, maxLength: 6 }), fc.array(fc.nat(10), { minLength: 6, maxLength: 6 }), fc.integer({ min: 2, max: 3 }),
    )),
    async ([batches, split, parts]) => {
      for (const s of [spec([c(0)]), spec([c(0), c(2)]), spec([]), spec([c(0)], TYPED_AGGS)]) {
        const typed = await viaPartials(s, true, batches, split, parts);
        const objects = await viaPartials(s, false, batches, split, parts);
        assert.deepEqual(typed, objects);
      }
    },
  ), { numRuns: 100 });
});

/** Exact sum of numeric texts at the largest scale seen (the reference PostgreSQL's numeric sum gives). */
function exactSum(texts: readonly string[]): string {
  let scale = 0;
  for (const v of texts) scale = Math.max(scale, (v.split('.')[1] ?? '').length);
  let total = 0n;
  for (const v of texts) {
    const neg = v.startsWith('-');
    const [ip, fp = ''] = (neg ? v.slice(1) : v).split('.');
    const u = BigInt(ip! + fp.padEnd(scale, '0'));
    total += neg ? -u : u;
  }
  return formatUnscaled(total, scale);
}

test('numeric sums at the 2^52/2^53 boundary are exact, typed or spilled, in one table or across merged partials', async () => {
  const P = 2 ** 52;
  const groups: [number, string[]][] = [
    [0, [String(P - 1), '1', '1', '-1']], // reaches 2^52 + 1: spills
    [1, [String(2 ** 53 - 1), String(-(2 ** 53 - 1)), '0.5']], // addends past 2^52 themselves
    [2, ['4503599627370495.99', '0.01', '-0.00']], // 2^52 at scale 2
    [3, ['-0.00', '-0.00']], // keeps the scale, loses the sign
    [4, ['1.5', '2.25', '-3.125', '10']], // scale grows 1 → 2 → 3
    [5, ['0.000000000000000000000000000000001', '5']], // scales 33 apart
    [6, ['99999999999999999999.5', '-99999999999999999999.5', '1']], // BigInt addends cancel
    [7, [String(-P), '-1', String(P), '1']], // leaves and comes back under 2^52
  ];
  const batches: BatchSpec[] = [];
  for (const [k, vals] of groups) for (const v of vals) batches.push({ rows: [[k, v, 1, 1n, 1, 1]], decimal: undefined });
  const s: AggregateSpec = { groupBy: [c(0)], aggregates: [call('sum', [c(1)]), call('count', [c(1)])] };
  const expected = groups.map(([k, vals]) => text([k, exactSum(vals), BigInt(vals.length)])).sort();
  assert.deepEqual(await direct(s, true, batches), expected);
  assert.deepEqual(await direct(s, false, batches), expected);
  // Every row in its own partial: each merge crosses the boundary instead of each step.
  assert.deepEqual(await viaPartials(s, true, batches, batches.map((_, i) => i), batches.length), expected);
  assert.deepEqual(await viaPartials(s, true, batches, batches.map((_, i) => i % 2), 2), expected);
});

test('a scaled sum that outgrows the double many times (Q1\'s sum of charges) stays exact, with its scale rising midway, in one table or across partials', async () => {
  // Scale-6 values near 3·10^12 in 600-row batches: each group's running double passes
  // 2^52 every ~1,500 rows, folding into the exact part again and again.
  const batches: BatchSpec[] = [];
  const texts: string[][] = [[], []];
  let seed = 12345;
  for (let b = 0; b < 400; b++) {
    const unscaled: bigint[] = [];
    const rows: Row[] = [];
    for (let i = 0; i < 600; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const u = BigInt(3_000_000_000_000 + seed) * (i % 7 === 0 ? -1n : 1n);
      const k = (b + i) % 2;
      unscaled.push(u);
      rows.push([k, formatUnscaled(u, 6), 1, 1n, 1, 1]);
      texts[k]!.push(formatUnscaled(u, 6));
    }
    batches.push({ rows, decimal: { scale: 6, unscaled } });
    // Midway, one row at scale 8 as text: the running double rescales after folds.
    if (b === 200) { batches.push({ rows: [[0, '0.00000001', 1, 1n, 1, 1]], decimal: undefined }); texts[0]!.push('0.00000001'); }
  }
  const s: AggregateSpec = { groupBy: [c(0)], aggregates: [call('sum', [c(1)]), call('avg', [c(1)]), call('count', [c(1)])] };
  const expected = [0, 1].map((k) => {
    const total = exactSum(texts[k]!);
    return [k, total, texts[k]!.length] as const;
  });
  for (const rows of [await direct(s, true, batches), await viaPartials(s, true, batches, batches.map((_, i) => i % 3), 3)]) {
    const parsed = rows.map((r) => JSON.parse(r) as [number, string, string, string]);
    assert.deepEqual(parsed.map((r) => [r[0], r[1], r[3]]), expected.map(([k, total, n]) => [k, total, `${n}n`]));
  }
  assert.deepEqual(await direct(s, true, batches), await direct(s, false, batches));
});

test('int8 sums past 2^52 and 2^63, int4 sums as int8, float and date columns, NULL-only groups: typed and object states agree', async () => {
  const big = 2n ** 62n;
  const rows: Row[] = [
    [0, null, 2147483647, big, null, null], [0, null, 2147483647, big, null, null], [0, null, -5, 1n, null, null],
    [1, null, null, null, null, null],
    [2, '1.10', 7, 2n ** 52n, 0.1, 5], [2, '2.205', 8, 2n ** 52n, 0.2, -Infinity], [2, null, -1, -(2n ** 53n), -0, 7],
  ];
  const batches: BatchSpec[] = [{ rows, decimal: undefined }];
  const s: AggregateSpec = {
    groupBy: [c(0)],
    aggregates: [call('sum', [c(2)]), call('sum', [c(3)]), call('sum', [c(4)]), call('min', [c(5)]), call('max', [c(5)]), call('count', [c(3)]),
      call('avg', [c(2)]), call('avg', [c(3)]), call('avg', [c(1)])],
  };
  const typed = await direct(s, true, batches);
  assert.deepEqual(typed, await direct(s, false, batches));
  const sums = typed.map((r) => (JSON.parse(r) as unknown[]).slice(0, 7));
  assert.deepEqual(sums, [
    [0, '4294967289n', String(2n * big + 1n), null, null, null, '3n'],
    [1, null, null, null, null, null, '0n'],
    [2, '14n', '0', 0.30000000000000004, '-Infinity', 7, '3n'],
  ]);
});

test('typed sums and counts finish as Arrow data (Decimal128, Int64) that decodes to the object path values: negatives, NULL groups, one scale', async () => {
  const rows: Row[] = [
    [0, '-1.25', -7, -(2n ** 40n), null, null], [0, '-4503599627370.49', -2147483648, 5n, null, null],
    [1, null, null, null, null, null],
    [2, '0.00', 2147483647, 2n ** 50n, null, null], [2, '-0.00', 1, 3n, null, null],
    [3, '12.50', 0, -1n, null, null], [3, '-12.50', 0, 1n, null, null],
  ];
  const s: AggregateSpec = { groupBy: [c(0)], aggregates: [call('sum', [c(1)]), call('count', []), call('count', [c(1)]), call('sum', [c(2)]), call('sum', [c(3)]), call('avg', [c(1)])] };
  const batches: BatchSpec[] = [{ rows, decimal: undefined }];
  const table = new AggregateTable(compileAggregation(s));
  await table.sink(batchOf(batches[0]!), run);
  const kinds = table.finish(false).columns.map((col) => (col.kind === 'values' ? 'values' : String(col.data.type)));
  // The key column stays values; avg(numeric) has no Arrow form.
  assert.deepEqual(kinds, ['values', 'Decimal[38e+2]', 'Int64', 'Int64', 'Int64', 'Decimal[38e0]', 'values']);
  const typed = await direct(s, true, batches);
  assert.deepEqual(typed, await direct(s, false, batches));
  assert.deepEqual(typed.map((r) => (JSON.parse(r) as unknown[]).slice(0, 6)), [
    [0, '-4503599627371.74', '2n', '2n', '-2147483655n', String(5n - 2n ** 40n)],
    [1, null, '1n', '0n', null, null],
    [2, '0.00', '2n', '2n', '2147483648n', String(2n ** 50n + 3n)],
    [3, '0.00', '2n', '2n', '0n', '0'],
  ]);
  // A second scale in one group keeps the text path for that column (numeric sums show each group's own scale).
  const mixed: BatchSpec[] = [{ rows: [[0, '1.5', 1, 1n, null, null], [1, '2.25', 1, 1n, null, null]], decimal: undefined }];
  const t2 = new AggregateTable(compileAggregation(s));
  await t2.sink(batchOf(mixed[0]!), run);
  assert.equal(t2.finish(false).columns[1]!.kind, 'values');
  assert.deepEqual(await direct(s, true, mixed), await direct(s, false, mixed));
});
