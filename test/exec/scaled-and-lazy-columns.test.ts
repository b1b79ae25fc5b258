import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DateDay, Dictionary, Field, Int16, Int32, Schema, Utf8, RecordBatch, Struct, makeData, makeVector, vectorFromArray } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import type { SqlType } from '../../src/common/sql-type.js';
import { arrowFormOf, columnSource, decodeBatch, decodeColumns, encodeColumnar, lazyBatch } from '../../src/exec/arrow/columnar-batch.js';
import { arrowColumn, selectColumn, sliceColumn, valuesColumn } from '../../src/exec/arrow/column-source.js';
import type { ColumnarBatch } from '../../src/exec/arrow/columnar-batch.js';
import { concatData } from '../../src/exec/arrow/concat-data.js';
import { scaledColumn } from '../../src/exec/arrow/scaled-vector.js';
import type { ScaledVector } from '../../src/exec/arrow/scaled-vector.js';
import { vectorToValues } from '../../src/exec/arrow/vector-values.js';
import { compileExpr } from '../../src/exec/expr/compile-expr.js';
import type { Expr } from '../../src/exec/expr/expr.js';
import { functionById, resolveFunction } from '../../src/exec/functions/function-registry.js';
import type { AggregateImpl } from '../../src/exec/functions/function-registry.js';
import { selectRows } from '../../src/exec/operators/operator-support.js';
import { createRunState } from '../../src/exec/run-state.js';
import { formatScaled } from '../../src/exec/types/numeric.js';
import { col, decimalData, lit, op, t } from './exec-test-helpers.js';

const run = createRunState({ params: [], settings: new Map(), transactionStartMicros: 0n });


function batchOf(datas: readonly Data[], names: readonly string[]): RecordBatch {
  const fields = datas.map((d, i) => new Field(names[i]!, d.type, true));
  return new RecordBatch(new Schema(fields), makeData({ type: new Struct(fields), length: datas[0]!.length, nullCount: 0, children: [...datas] }));
}

/** The same columns fully decoded into plain arrays (no Arrow form: expressions take the text path). */
function eager(b: ColumnarBatch): ColumnarBatch {
  return { numRows: b.numRows, columns: b.columns.map((c) => [...c]) };
}

const NUM: SqlType = { kind: 'numeric' };
const MAX = 2n ** 53n - 1n;
const unscaledArb = fc.oneof(
  { weight: 5, arbitrary: fc.bigInt({ min: -100000n, max: 100000n }) },
  { weight: 2, arbitrary: fc.bigInt({ min: MAX - 5n, max: MAX + 5n }) },
  { weight: 2, arbitrary: fc.bigInt({ min: -MAX - 5n, max: -MAX + 5n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: 2n ** 40n, max: 2n ** 45n }) },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constant(0n) },
);

test('scaled numeric expressions equal the text path, row for row, NULLs and the safe-integer edge included', () => {
  const one = { kind: 'cast', arg: lit(1, t.int4), type: NUM } as Expr;
  const shapes: ((a: Expr, b: Expr, c: Expr) => Expr)[] = [
    (a, b) => op('*', a, b),
    (a, b) => op('-', a, b),
    (a, b) => op('+', a, b),
    (a, b) => op('*', a, op('-', one, b)),
    (a, b, c) => op('*', op('*', a, op('-', one, b)), op('+', one, c)),
    (a) => op('-', a),
    (a) => op('+', a, lit('0.005', NUM)),
  ];
  fc.assert(fc.property(
    fc.array(fc.tuple(unscaledArb, unscaledArb, unscaledArb), { minLength: 1, maxLength: 40 }),
    fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 })),
    fc.integer({ min: 0, max: shapes.length - 1 }),
    (rows, [sa, sb, sc], shape) => {
      const datas = [0, 1, 2].map((k) => decimalData(rows.map((r) => r[k]!), [sa, sb, sc][k]!));
      const b = decodeColumns(batchOf(datas, ['a', 'b', 'c']), ['a', 'b', 'c'], [NUM, NUM, NUM]);
      const e = shapes[shape]!(col(0, NUM), col(1, NUM), col(2, NUM));
      const c = compileExpr(e);
      const expected = c.evaluateSync(eager(b), run);
      const viaText = c.evaluateSync(b, run);
      assert.deepEqual(viaText, expected);
      const v = c.evaluateScaled?.(b);
      const allSmall = rows.every((r) => r.every((x) => x === null || (x <= MAX && x >= -MAX)));
      if (allSmall && shape === 5) assert.ok(v, 'a plain negation of an exact column has a scaled form');
      if (v) {
        const formatted = Array.from({ length: v.length }, (_, i) => (v.valid && v.valid[i] === 0 ? null : formatScaled(v.unscaled[i]!, v.scale)));
        assert.deepEqual(formatted, expected);
      }
    },
  ), { numRuns: 300 });
});

test('an int2/int4 column cast to numeric takes the scaled path: the text path\'s values, NULLs and row selections included', () => {
  fc.assert(fc.property(
    fc.array(fc.tuple(fc.option(fc.integer({ min: -2147483648, max: 2147483647 }), { nil: null }), fc.bigInt({ min: -100000n, max: 100000n }), fc.option(fc.integer({ min: -32768, max: 32767 }), { nil: null })), { minLength: 1, maxLength: 40 }),
    fc.integer({ min: 0, max: 4 }), fc.boolean(),
    (rows, scale, select) => {
      const ints = vectorFromArray(rows.map((r) => r[0]), new Int32()).data[0]!;
      const smalls = vectorFromArray(rows.map((r) => r[2]), new Int16()).data[0]!;
      const decimals = decimalData(rows.map((r) => r[1]), scale);
      const sel = select ? Int32Array.from(rows.flatMap((_, i) => (i % 3 === 1 ? [] : [i, i]))) : undefined;
      const n = sel?.length ?? rows.length;
      const b = lazyBatch(n, [arrowColumn(ints, t.int4, sel), arrowColumn(decimals, NUM, sel), arrowColumn(smalls, t.int2, sel)]);
      const asNumeric = (i: number, type: SqlType): Expr => ({ kind: 'cast', arg: col(i, type), type: NUM } as Expr);
      for (const e of [op('*', col(1, NUM), asNumeric(0, t.int4)), op('-', asNumeric(2, t.int2), col(1, NUM)), asNumeric(0, t.int4)]) {
        const c = compileExpr(e);
        const expected = c.evaluateSync(eager(b), run);
        const fresh = lazyBatch(n, [arrowColumn(ints, t.int4, sel), arrowColumn(decimals, NUM, sel), arrowColumn(smalls, t.int2, sel)]);
        const v: ScaledVector | undefined = c.evaluateScaled?.(fresh);
        assert.ok(v !== undefined || e.kind === 'call', 'a plain cast of an int column has a scaled form');
        if (v) assert.deepEqual(Array.from({ length: v.length }, (_, i) => (v.valid && v.valid[i] === 0 ? null : formatScaled(v.unscaled[i]!, v.scale))), expected);
      }
    },
  ), { numRuns: 200 });
});

test('a Decimal column beyond 2^53 has no scaled view; one that fits has its exact values and NULLs', () => {
  const big = decodeColumns(batchOf([decimalData([1n, MAX + 1n], 2)], ['x']), ['x'], [NUM]);
  assert.equal(scaledColumn(big, 0), undefined);
  // Values whose low 64 bits look small: only the upper words tell (with and without NULLs).
  for (const v of [2n ** 64n + 5n, -(2n ** 64n) + 3n, 2n ** 96n, -(2n ** 100n)]) {
    for (const others of [[7n], [7n, null]]) {
      const wide = decodeColumns(batchOf([decimalData([...others, v], 2)], ['x']), ['x'], [NUM]);
      assert.equal(scaledColumn(wide, 0), undefined, `${v} with ${others.length - 1} NULL`);
    }
  }
  const small = decodeColumns(batchOf([decimalData([150n, null, -MAX], 2)], ['x']), ['x'], [NUM]);
  const v = scaledColumn(small, 0)!;
  assert.equal(v.scale, 2);
  assert.deepEqual([v.unscaled[0], v.valid?.[1], v.unscaled[2]], [150, 0, -Number(MAX)]);
  assert.deepEqual(small.columns[0], ['1.50', null, '-90071992547409.91']);
  // Still available after the column was read as text.
  assert.equal(scaledColumn(small, 0), v);
});

test('numeric sum and avg stepped from scaled vectors equal their text steps, including the BigInt spill', () => {
  for (const fnName of ['sum', 'avg']) {
    const id: string = resolveFunction(fnName, [NUM])!.id;
    const impl: AggregateImpl = functionById(id)!.aggregate!([NUM]);
    assert.ok(impl.batchStepScaled, `${fnName}(numeric) has a scaled step`);
    const unscaled = [125n, -7n, MAX, MAX, -3n, 0n, MAX - 1n, 42n];
    const b = decodeColumns(batchOf([decimalData([...unscaled, null], 3)], ['x']), ['x'], [NUM]);
    const v = scaledColumn(b, 0)!;
    const groups = Int32Array.from({ length: 9 }, (_, i) => i % 2);
    const sel = Int32Array.from([0, 1, 2, 3, 4, 5, 6, 7]);
    const scaledStates: unknown[] = [impl.init(), impl.init()];
    impl.batchStepScaled!(scaledStates, groups, v, sel, sel.length);
    const textStates: unknown[] = [impl.init(), impl.init()];
    impl.batchStep!(textStates, groups, [b.columns[0]!], sel, sel.length);
    assert.deepEqual(scaledStates.map((s) => impl.final(s)), textStates.map((s) => impl.final(s)), fnName);
  }
});

test('columns decode on first read; untouched ones move as Arrow data through selection and encoding', () => {
  const ints = makeVector(Int32Array.from([10, 20, 30, 40])).data[0]!;
  const texts = vectorFromArray(['a', null, 'c', 'd'], new Utf8()).data[0]!;
  const b = decodeColumns(batchOf([ints, texts], ['i', 's']), ['i', 's'], [t.int4, t.text]);
  assert.ok(columnSource(b, 1).kind !== 'values', 'not decoded before it is read');
  const picked = selectRows(b, Int32Array.from([3, 1, 0]));
  assert.ok(columnSource(picked, 1).kind !== 'values', 'selection keeps an unread column in Arrow form');
  assert.deepEqual(picked.columns[1], ['d', null, 'a']);
  assert.deepEqual(picked.columns[0], [40, 20, 10]);
  assert.ok(columnSource(picked, 1).kind === 'values', 'a read text column is values from then on');
  assert.ok(arrowFormOf(picked, 1) !== undefined, 'its Arrow form stays known');
  assert.ok(columnSource(picked, 0).kind !== 'values', 'a read int column still moves as Arrow data');
  const again = selectRows(picked, Int32Array.from([2, 0]));
  assert.ok(columnSource(again, 0).kind !== 'values' && columnSource(again, 1).kind === 'values');
  assert.deepEqual(again.columns.map((c) => [...c]), [[10, 40], ['a', 'd']]);
  // A 64-bit int decodes through a BigInt a value: once read, its values move on.
  const wide = lazyBatch(2, [arrowColumn(makeVector(BigInt64Array.from([5n, 6n])).data[0]!, t.int8)]);
  assert.ok(columnSource(wide, 0).kind !== 'values', 'unread, an int8 column is Arrow data');
  assert.deepEqual([...wide.columns[0]!], [5n, 6n]);
  assert.ok(columnSource(wide, 0).kind === 'values', 'read, an int8 column is values');
  // An encoded batch carries the unread column as it is and decodes to the same values.
  const fresh = selectRows(b, Int32Array.from([2, 1]));
  const rb = encodeColumnar([{ name: 'i', type: t.int4 }, { name: 's', type: t.text }], fresh);
  assert.deepEqual(vectorToValues(rb.getChildAt(1)!, t.text), ['c', null]);
  assert.deepEqual(decodeBatch(rb, [t.int4, t.text]).columns.map((c) => [...c]), [[30, 20], ['c', null]]);
  const mixed = lazyBatch(2, [valuesColumn([1, 2]), arrowColumn(makeVector(Int32Array.from([7, 8])).data[0]!, t.int4)]);
  assert.deepEqual(mixed.columns.map((c) => [...c]), [[1, 2], [7, 8]]);
  assert.equal(new Int32().typeId, ints.typeId);
});

test('a lazy batch\'s columns act as an array: each column decodes once, at its first read, and batches of one width stay apart', () => {
  const ints = (xs: number[]) => arrowColumn(makeVector(Int32Array.from(xs)).data[0]!, t.int4);
  const plain = valuesColumn(['x', 'y']);
  const a = lazyBatch(2, [ints([1, 2]), plain, ints([3, 4])]);
  const b = lazyBatch(2, [ints([5, 6]), valuesColumn(['p', 'q']), ints([7, 8])]);
  assert.equal(a.columns.length, 3);
  assert.ok(columnSource(a, 0).kind !== 'values' && columnSource(a, 2).kind !== 'values');
  const one = columnSource(a, 1);
  assert.ok(one.kind === 'values' && one.values === a.columns[1], 'a plain column is its values');
  const first = a.columns[0];
  assert.deepEqual(first, [1, 2]);
  assert.equal(a.columns[0], first, 'decoded once: the same array at every read');
  assert.equal(columnSource(a, 0), arrowFormOf(a, 0), 'a read int column is still carried as Arrow data');
  assert.ok(columnSource(a, 2).kind !== 'values', 'another column is still undecoded');
  assert.ok(arrowFormOf(a, 0) !== undefined && arrowFormOf(a, 1) === undefined);
  // Batches sharing a width share nothing else.
  assert.deepEqual(b.columns[0], [5, 6]);
  assert.deepEqual([...a.columns], [[1, 2], ['x', 'y'], [3, 4]]);
  assert.deepEqual(b.columns.map((c) => c[1]), [6, 'q', 8]);
  assert.deepEqual(a.columns.slice(1), [['x', 'y'], [3, 4]]);
  const seen: unknown[] = [];
  for (const c of b.columns) seen.push(c[0]);
  assert.deepEqual(seen, [5, 'p', 7]);
  // Without Arrow columns the batch holds a plain array of its own.
  const p = lazyBatch(1, [valuesColumn([1]), valuesColumn([2])]);
  assert.ok(Array.isArray(p.columns));
  assert.deepEqual(p.columns, [[1], [2]]);
});

test('concatData joins chunks (sliced, with NULLs) into one Data that decodes to the same values; other layouts are refused', () => {
  const ints = vectorFromArray([1, null, 3, 4, 5], new Int32()).data[0]!;
  const texts = vectorFromArray(['a', 'bb', null, 'dddd', ''], new Utf8()).data[0]!;
  const decs = decimalData([1n, null, -(2n ** 52n), 7n], 2);
  const cases: [Data[], SqlType][] = [
    [[ints.slice(1, 3), ints, ints.slice(4, 1)], t.int4],
    [[texts.slice(2, 3), texts.slice(0, 2)], t.text],
    [[decs.slice(1, 2), decs], NUM],
    [[vectorFromArray([true, null, false]).data[0]!.slice(1, 2), vectorFromArray([false, true]).data[0]!], t.bool],
  ];
  for (const [chunks, type] of cases) {
    const joined = concatData(chunks)!;
    assert.ok(joined, `${type.kind} concatenates`);
    const expected = chunks.flatMap((c) => vectorToValues(makeVector(c), type));
    assert.deepEqual(vectorToValues(makeVector(joined), type), expected, type.kind);
  }
  const dict = vectorFromArray(['x', 'y', 'x'], new Dictionary(new Utf8(), new Int32())).data[0]!;
  assert.equal(concatData([dict, dict]), undefined);
  assert.equal(concatData([ints, texts]), undefined);
});

test('Utf8 decoding: short ASCII values come from the per-batch cache and equal a plain decode', () => {
  const values = ['A', 'N', '', null, 'AIR', 'é', 'MAIL', '1234567', '12345678', 'A', 'ab\u0000c', 'TRUCK', '€uro', 'N', null, ''];
  const data = vectorFromArray(values, new Utf8()).data[0]!;
  assert.deepEqual(vectorToValues(makeVector(data), t.text), values);
  assert.deepEqual(vectorToValues(makeVector(data.slice(3, 9)), t.text), values.slice(3, 12));
  assert.deepEqual(vectorToValues(makeVector(data), { kind: 'bpchar', length: 8 }), values);
});

test('scan batches with a row selection: selections compose, slices and decoding see only the selected rows, unread columns stay Arrow', () => {
  fc.assert(fc.property(
    fc.array(fc.option(fc.string({ maxLength: 4 }), { nil: null }), { minLength: 1, maxLength: 40 }),
    fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
    fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
    (values, keep1, keep2) => {
      const texts = makeVector(vectorFromArray(values, new Utf8()).data[0]!);
      const ints = makeData({ type: new Int32(), length: values.length, data: Int32Array.from(values, (_, i) => i * 3) });
      const batch = new RecordBatch(new Schema([new Field('t', new Utf8(), true), new Field('n', new Int32(), false)]),
        makeData({ type: new Struct([new Field('t', new Utf8(), true), new Field('n', new Int32(), false)]), length: values.length, nullCount: 0, children: [texts.data[0]!, ints] }));
      const rows = Int32Array.from(values.map((_, i) => i).filter((i) => keep1[i]));
      const b = decodeColumns(batch, ['t', 'n'], [{ kind: 'text' }, { kind: 'int4' }], rows);
      assert.equal(b.numRows, rows.length);
      const sel = Int32Array.from([...rows.keys()].filter((k) => keep2[k]));
      const narrowed = selectRows(b, sel);
      const expectedRows = [...sel].map((k) => rows[k]!);
      assert.deepEqual(narrowed.columns[0], expectedRows.map((i) => values[i] ?? null));
      // The int column was never read: it is still Arrow, and its data holds exactly the selected rows.
      const n = columnSource(narrowed, 1);
      assert.ok(n.kind === 'arrowRows');
      assert.deepEqual([...makeVector(n.data)], expectedRows.map((i) => i * 3));
      if (expectedRows.length >= 2) {
        const half = sliceColumn(n, 1, expectedRows.length);
        assert.ok(half.kind === 'arrowRows');
        assert.equal(half.length, expectedRows.length - 1);
        assert.deepEqual([...makeVector(half.data)], expectedRows.slice(1).map((i) => i * 3));
      }
    },
  ), { numRuns: 200 });
});

test('LIKE on a text column still in Arrow form (matched on its bytes) equals LIKE on its decoded values, NULLs, selections and NOT included', () => {
  const TEXT: SqlType = { kind: 'varchar' };
  const word = fc.array(fc.constantFrom('a', 'b', 'é', ' ', 'x'), { maxLength: 6 }).map((a) => a.join(''));
  fc.assert(fc.property(
    fc.array(fc.option(word, { nil: null }), { minLength: 1, maxLength: 30 }),
    fc.constantFrom('%a%b%', 'a%', '%b', 'ab', '%', '', 'x%x', '%é%', 'a_b'), fc.boolean(), fc.boolean(), fc.boolean(),
    fc.option(fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }), { nil: undefined }),
    (all, pattern, negated, useSel, castToText, keep) => {
      // With `keep`, the batch is a row selection of a larger column (as scan batches are).
      const rows = keep === undefined ? undefined : Int32Array.from(all.map((_, i) => i).filter((i) => keep[i]));
      const values = rows === undefined ? all : [...rows].map((i) => all[i]!);
      const data = vectorFromArray(all, new Utf8()).data[0]!;
      const b = decodeColumns(batchOf([data], ['t']), ['t'], [TEXT], rows);
      // varchar LIKE text compares (t)::text, which reads the column as it is.
      const arg: Expr = castToText ? { kind: 'cast', arg: col(0, TEXT), type: { kind: 'text' } } : col(0, TEXT);
      const like = (p: string, not: boolean): Expr => ({ kind: 'like', arg, pattern: lit(p, { kind: 'text' }), caseInsensitive: false, negated: not, type: { kind: 'bool' } });
      // Under AND, the second LIKE runs only on the rows the first left undecided (a selection).
      const e: Expr = useSel ? { kind: 'and', args: [like('%a%', false), like(pattern, negated)], type: { kind: 'bool' } } : like(pattern, negated);
      const c = compileExpr(e);
      const got = c.evaluateSync(b, run);
      const want = c.evaluateSync(eager(decodeColumns(batchOf([vectorFromArray(values, new Utf8()).data[0]!], ['t']), ['t'], [TEXT])), run);
      values.forEach((v, i) => assert.equal(got[i], want[i], `${JSON.stringify(v)} ${negated ? 'NOT ' : ''}LIKE ${pattern}${useSel ? ' under AND' : ''}`));
      assert.ok(columnSource(b, 0).kind !== 'values' || pattern === 'a_b' || pattern === '%é%', 'the byte path leaves the column undecoded');
    },
  ), { numRuns: 300 });
});

test('the scaled view of a numeric column read through a row selection is the view of those rows, without gathering them first', () => {
  fc.assert(fc.property(
    fc.array(fc.option(fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }), { nil: null }), { minLength: 1, maxLength: 40 }),
    fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), fc.integer({ min: 0, max: 4 }),
    (values, keep, scale) => {
      const data = decimalData(values, scale);
      const rows = Int32Array.from(values.map((_, i) => i).filter((i) => keep[i]));
      const selected = decodeColumns(batchOf([data], ['x']), ['x'], [NUM], rows);
      const form = columnSource(selected, 0);
      assert.equal(form.kind, 'arrowRows', 'not gathered yet');
      const v = scaledColumn(selected, 0);
      const chosen = [...rows].map((i) => values[i]!);
      const fits = chosen.every((x) => x === null || (x <= MAX && x >= -MAX));
      assert.equal(v !== undefined, fits, 'a view exactly when every selected value fits');
      if (v) {
        assert.equal(v.length, rows.length);
        chosen.forEach((x, k) => {
          if (x === null) assert.equal(v.valid?.[k], 0);
          else assert.equal(v.unscaled[k], Number(x));
        });
      }
      // Decoding reads the same rows in place: the text values of exactly the selected rows.
      const all = decodeColumns(batchOf([data], ['x']), ['x'], [NUM]).columns[0]!;
      assert.deepEqual(selected.columns[0], [...rows].map((i) => all[i]));
    },
  ), { numRuns: 300 });
});

test('a column selected through a view of a reused buffer keeps its rows when the buffer is overwritten', () => {
  const data = makeData({ type: new Int32(), length: 6, data: Int32Array.from([10, 11, 12, 13, 14, 15]) });
  const col = arrowColumn(data, { kind: 'int4' });
  const buffer = Int32Array.from([5, 3, 1, 0]);
  const picked = selectColumn(col, buffer.subarray(0, 3)); // rows 5, 3, 1
  buffer.set([0, 0, 0, 0]); // the caller reuses its buffer (a join's pair buffer does)
  const again = selectColumn(picked, Int32Array.from([2, 0]));
  assert.ok(picked.kind === 'arrowRows' && again.kind === 'arrowRows');
  assert.deepEqual([...makeVector(again.data)], [11, 15]);
  assert.deepEqual([...makeVector(picked.data)], [15, 13, 11]);
});

test('comparing two int4/int2/date columns still in Arrow form (in their buffers) equals comparing their decoded values', () => {
  const kinds = [
    { type: { kind: 'int4' } as SqlType, arrow: () => new Int32(), arr: (v: number[]) => Int32Array.from(v) },
    { type: { kind: 'int2' } as SqlType, arrow: () => new Int16(), arr: (v: number[]) => Int16Array.from(v) },
    { type: { kind: 'date' } as SqlType, arrow: () => new DateDay(), arr: (v: number[]) => Int32Array.from(v) },
  ];
  const value = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(2147483647, -2147483648, 32767, -32768));
  fc.assert(fc.property(
    fc.integer({ min: 0, max: 2 }), fc.array(fc.tuple(fc.option(value, { nil: null }), fc.option(value, { nil: null })), { minLength: 1, maxLength: 30 }),
    fc.constantFrom('=', '<>', '<', '<=', '>', '>='), fc.boolean(), fc.option(fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }), { nil: undefined }),
    (k, pairs, oper, underAnd, keep) => {
      const kind = kinds[k]!;
      const fit = (v: number | null): number | null => (v === null ? null : kind.type.kind === 'int2' ? Math.max(-32768, Math.min(32767, v)) : v);
      const cols = [0, 1].map((side) => pairs.map((p) => fit(p[side]!)));
      const datas = cols.map((vals) => {
        const bm = new Uint8Array((vals.length + 7) >> 3);
        let nulls = 0;
        vals.forEach((v, i) => { if (v === null) nulls++; else bm[i >> 3]! |= 1 << (i & 7); });
        return makeData({ type: kind.arrow(), length: vals.length, data: kind.arr(vals.map((v) => v ?? 0)), nullCount: nulls, ...(nulls > 0 ? { nullBitmap: bm } : {}) } as never);
      });
      const rows = keep === undefined ? undefined : Int32Array.from(pairs.map((_, i) => i).filter((i) => keep[i]));
      const lazy = decodeColumns(batchOf(datas, ['a', 'b']), ['a', 'b'], [kind.type, kind.type], rows);
      const cmp = op(oper, col(0, kind.type), col(1, kind.type));
      // Under AND the comparison sees a selection (the rows the first arm left undecided).
      const notNull: Expr = { kind: 'isNotNull', arg: col(0, kind.type), type: { kind: 'bool' } };
      const e: Expr = underAnd ? { kind: 'and', args: [notNull, cmp], type: { kind: 'bool' } } : cmp;
      const c = compileExpr(e);
      const got = c.evaluateSync(lazy, run);
      const want = c.evaluateSync(eager(decodeColumns(batchOf(datas, ['a', 'b']), ['a', 'b'], [kind.type, kind.type], rows)), run);
      assert.deepEqual(got, want, `${kind.type.kind} ${oper}`);
    },
  ), { numRuns: 400 });
});

test('operators hand batches on as they are: a filtered, projected Arrow column stays a pending selection until read, with the right rows', async () => {
  const { createFilterOperator } = await import('../../src/exec/operators/filter-operator.js');
  const { createProjectOperator } = await import('../../src/exec/operators/project-operator.js');
  const ints = makeVector(Int32Array.from({ length: 100 }, (_, i) => i)).data[0]!;
  const texts = vectorFromArray(Array.from({ length: 100 }, (_, i) => (i % 10 === 0 ? null : `t${i}`)), new Utf8()).data[0]!;
  const columns = [{ name: 'i', type: t.int4 }, { name: 's', type: t.text }];
  const source = {
    plan: { kind: 'values', columns, rows: [] } as never, columns,
    async *execute() { yield lazyBatch(100, [arrowColumn(ints, t.int4), arrowColumn(texts, t.text)]); },
  };
  const filter = createFilterOperator({ kind: 'filter', input: source.plan, predicate: op('>', col(0, t.int4), lit(90, t.int4)), columns } as never, source);
  const project = createProjectOperator({ kind: 'project', input: filter.plan, exprs: [col(1, t.text)], columns: [columns[1]!] } as never, filter);
  const out: ColumnarBatch[] = [];
  for await (const b of project.execute(run)) out.push(b);
  assert.equal(out.length, 1);
  const s = columnSource(out[0]!, 0);
  assert.ok(s.kind === 'arrowRows', 'the text column is not gathered between operators');
  assert.deepEqual([...s.rows], [91, 92, 93, 94, 95, 96, 97, 98, 99]);
  assert.deepEqual(out[0]!.columns[0], ['t91', 't92', 't93', 't94', 't95', 't96', 't97', 't98', 't99']);
});

test('numeric comparisons with a constant over scaled columns equal the text path (both orders, NULLs, constants finer than the column)', () => {
  fc.assert(fc.property(
    fc.array(unscaledArb, { minLength: 1, maxLength: 40 }),
    fc.integer({ min: 0, max: 4 }),
    fc.tuple(fc.integer({ min: -300000, max: 300000 }), fc.integer({ min: 0, max: 5 })),
    fc.constantFrom('<', '<=', '>', '>=', '=', '<>'),
    fc.boolean(),
    fc.nat(),
    (values, scale, [cu, cs], cmp, constantFirst, pick) => {
      const b = decodeColumns(batchOf([decimalData(values, scale)], ['x']), ['x'], [NUM]);
      // Half the time the constant is one of the values (written without trailing zeros when it can be): ties matter.
      const same = values[pick % values.length];
      const text = pick % 2 === 0 && same !== null && same !== undefined && same <= MAX && same >= -MAX
        ? formatScaled(Number(same), scale).replace(/\.?0+$/, (z) => (z.startsWith('.') || scale > 0 ? '' : z))
        : formatScaled(cu, cs);
      const constant = lit(text, NUM);
      const e = constantFirst ? op(cmp, constant, col(0, NUM)) : op(cmp, col(0, NUM), constant);
      const c = compileExpr(e);
      assert.deepEqual(c.evaluateSync(b, run), c.evaluateSync(eager(b), run));
    },
  ), { numRuns: 400 });
});

test('[NOT] IN over text and bpchar columns in Arrow form (tested on bytes) equals the decoded path, NULLs and row selections included', () => {
  const word = fc.constantFrom('MAIL', 'SHIP', 'AIR', 'AIR REG', 'MAIL  ', 'é', 'éa', '', ' ', 'a b ');
  fc.assert(fc.property(
    fc.array(fc.option(word, { nil: null }), { minLength: 1, maxLength: 50 }),
    fc.array(word, { minLength: 1, maxLength: 4 }),
    fc.constantFrom<SqlType>(t.text, { kind: 'bpchar', length: 8 } as SqlType),
    fc.boolean(),
    fc.boolean(),
    (values, items, type, negated, selected) => {
      const data = vectorFromArray(values, new Utf8()).data[0]!;
      const rows = selected ? Int32Array.from(values.map((_, i) => i).filter((i) => i % 3 !== 1)) : undefined;
      const n = rows?.length ?? values.length;
      const b = lazyBatch(n, [arrowColumn(data, type, rows)]);
      const e = { kind: 'inList', arg: col(0, type), list: items.map((x) => ({ kind: 'cast', arg: lit(x, t.text), type })), eqFn: type.kind === 'text' ? '=(text,text)' : '=(bpchar,bpchar)', negated, type: t.bool } as Expr;
      const c = compileExpr(e);
      const onBytes = c.evaluateSync(b, run);
      assert.deepEqual(onBytes, c.evaluateSync(eager(b), run));
      // NULL items leave the byte path: the general one answers NULL for rows not found.
      const withNull = compileExpr({ ...e, list: [...(e as unknown as { list: Expr[] }).list, { kind: 'cast', arg: lit(null, t.text), type }] } as Expr);
      assert.deepEqual(withNull.evaluateSync(b, run), withNull.evaluateSync(eager(b), run));
      // = and <> against a constant take the same path, either operand first.
      const constant = { kind: 'cast', arg: lit(items[0]!, t.text), type } as Expr;
      const norm = (x: string): string => (type.kind === 'bpchar' ? x.replace(/ +$/, '') : x);
      const shown = rows ? Array.from(rows, (r) => values[r]!) : values;
      const expected = shown.map((v) => (v === null ? null : (norm(v) === norm(items[0]!)) !== negated));
      for (const cmp of [op(negated ? '<>' : '=', col(0, type), constant), op(negated ? '<>' : '=', constant, col(0, type))]) {
        const ce = compileExpr(cmp);
        assert.deepEqual(ce.evaluateSync(b, run), expected);
        assert.deepEqual(ce.evaluateSync(eager(b), run), expected);
      }
    },
  ), { numRuns: 300 });
});

test('int2/int4/float/date Arrow columns decode to their numbers: NULLs, ±infinity dates, read through a row selection', () => {
  const nulls = (n: number, isNull: (i: number) => boolean): Uint8Array => {
    const m = new Uint8Array(Math.ceil(n / 8));
    for (let i = 0; i < n; i++) if (!isNull(i)) m[i >> 3]! |= 1 << (i & 7);
    return m;
  };
  const ints = Int32Array.from([5, -7, 0, 2147483647, -2147483648, 42]);
  const intData = makeData({ type: new Int32(), length: 6, nullCount: 1, nullBitmap: nulls(6, (i) => i === 2), data: ints });
  assert.deepEqual(vectorToValues(makeVector(intData), t.int4), [5, -7, null, 2147483647, -2147483648, 42]);
  const shorts = makeData({ type: new Int16(), length: 3, data: Int16Array.from([-32768, 1, 32767]) });
  assert.deepEqual(vectorToValues(makeVector(shorts), t.int2), [-32768, 1, 32767]);
  const days = makeData({ type: new DateDay(), length: 5, nullCount: 1, nullBitmap: nulls(5, (i) => i === 1), data: Int32Array.from([10957, 0, 2147483647, -2147483648, -1]) });
  assert.deepEqual(vectorToValues(makeVector(days), t.date), [10957, null, Infinity, -Infinity, -1]);
  assert.deepEqual(vectorToValues(vectorFromArray([1.5, -0.25, null]), t.float8), [1.5, -0.25, null]);
  // Through a selection (a filter's or a join's rows), the same values.
  const b = batchOf([intData.slice(0, 5), days], ['i', 'd']);
  const picked = selectRows(decodeColumns(b, ['i', 'd'], [t.int4, t.date]), Int32Array.of(3, 2, 0));
  assert.deepEqual(picked.columns[0], [2147483647, null, 5]);
  assert.deepEqual(picked.columns[1], [-Infinity, Infinity, 10957]);
});
