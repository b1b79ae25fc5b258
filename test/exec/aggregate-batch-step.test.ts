import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SqlType } from '../../src/common/sql-type.js';
import { functionById, resolveFunction } from '../../src/exec/functions/function-registry.js';
import type { AggregateImpl } from '../../src/exec/functions/function-registry.js';
import { aggId, col, rowsOf, t, values } from './exec-test-helpers.js';

function implOf(name: string, type: SqlType): AggregateImpl {
  const r = resolveFunction(name, [type]);
  assert.ok(r, `no ${name}(${type.kind})`);
  return functionById(r.id)!.aggregate!([type]);
}

/** Final value after stepping row by row (the window operator's path). */
function byRow(impl: AggregateImpl, values: readonly unknown[]): unknown {
  let s = impl.init();
  for (const v of values) if (v !== null) s = impl.step(s, [v]);
  return impl.final(s);
}

/**
 * Final values of two groups (even/odd rows) stepped in one batch call with a
 * selection that skips NULLs, then the same split into two partial states per
 * group merged with combine.
 */
function byBatch(impl: AggregateImpl, values: readonly unknown[]): { even: unknown; odd: unknown; merged: unknown } {
  assert.ok(impl.batchStep, 'has a batch step');
  const states = [impl.init(), impl.init()];
  const groups = Int32Array.from(values, (_, i) => i % 2);
  const sel = Int32Array.from(values.map((v, i) => (v === null ? -1 : i)).filter((i) => i >= 0));
  impl.batchStep(states, groups, [values], sel, sel.length);
  const a = [impl.init()];
  const b = [impl.init()];
  const half = Math.floor(values.length / 2);
  const left = values.slice(0, half).filter((v) => v !== null);
  const right = values.slice(half).filter((v) => v !== null);
  impl.batchStep(a, new Int32Array(left.length), [left], undefined, left.length);
  impl.batchStep(b, new Int32Array(right.length), [right], undefined, right.length);
  return { even: impl.final(states[0]), odd: impl.final(states[1]), merged: impl.final(impl.combine(a[0], b[0])) };
}

function check(name: string, type: SqlType, values: readonly unknown[]): void {
  const impl = implOf(name, type);
  const { even, odd, merged } = byBatch(impl, values);
  assert.deepEqual(even, byRow(implOf(name, type), values.filter((_, i) => i % 2 === 0)), `${name}(${type.kind}) even group`);
  assert.deepEqual(odd, byRow(implOf(name, type), values.filter((_, i) => i % 2 === 1)), `${name}(${type.kind}) odd group`);
  assert.deepEqual(merged, byRow(implOf(name, type), values), `${name}(${type.kind}) merged partials`);
}

test('numeric sum/avg batch steps: 15/16-digit values, BigInt spill, scale changes, "-0.00", NULLs', () => {
  const cases: string[][] = [
    ['1.5', '2.25', '-0.00', null as unknown as string, '0.001'],
    ['999999999999999', '999999999999999', '999999999999999', '999999999999999', '999999999999999', '999999999999999'],
    ['9999999999999999', '-9999999999999999', '1.0000000000000001', '0.1'],
    ['-0.00', '-0.00'],
    ['4503599627370495', '4503599627370497', '1'],
    Array.from({ length: 5000 }, (_, i) => `${i % 2 ? '-' : ''}${i}${i % 3 ? '.' + String(i % 1000).padStart(3, '0') : ''}`),
    ['12345678901234.5', '0.000000000000001', '-12345678901234.5'],
    ['NaN', '1.5'],
  ];
  for (const values of cases) {
    check('sum', t.numeric, values);
    check('avg', t.numeric, values);
  }
  // Exact totals at the largest scale seen, with the zero's scale kept.
  assert.equal(byRow(implOf('sum', t.numeric), ['-0.00', '-0.00']), '0.00');
  assert.equal(byRow(implOf('sum', t.numeric), Array.from({ length: 10 }, () => '999999999999999.9')), '9999999999999999.0');
  assert.equal(byBatch(implOf('sum', t.numeric), ['4503599627370495', '1', '4503599627370497', '1']).even, '9007199254740992');
  assert.equal(byBatch(implOf('sum', t.numeric), ['4503599627370495', '1', '4503599627370497', '1']).merged, '9007199254740994');
});

test('integer, float, count and min/max batch steps agree with the row steps', () => {
  const big = 2n ** 62n;
  check('sum', t.int4, [2147483647, 2147483647, -5, null, 7, 2147483647]);
  check('avg', t.int4, [1, 2, null, 4]);
  check('sum', t.int8, [big, big, -big, 1n, 4503599627370496n, -4503599627370497n, null, 3n]);
  check('avg', t.int8, [big, 1n, null, 2n, 9007199254740993n]);
  check('sum', t.int2, [32767, 32767, null, 1]);
  check('sum', t.float8, [0.5, 0.25, null, 1e300]);
  check('avg', t.float8, [0.5, 0.25, null, 2]);
  check('count', t.int4, [1, null, 3, 4, null]);
  for (const name of ['min', 'max']) {
    check(name, t.int4, [3, -1, null, 7, 7]);
    check(name, t.int8, [big, -big, null, 0n]);
    check(name, t.date, [10000, -Infinity, 12000, null, Infinity]);
    check(name, t.text, ['b', 'a', null, 'ab', 'B']);
    check(name, t.numeric, ['1.50', '1.5', '-0.00', null, '10']);
    check(name, t.float8, [NaN, 1, -0, null, Infinity]);
  }
  // count(*) has no argument columns; its batch step counts the selected rows.
  const star = functionById('count()')!.aggregate!([]);
  const states = [star.init(), star.init()];
  star.batchStep!(states, Int32Array.of(0, 1, 1, 0, 1), [], Int32Array.of(0, 1, 2), 3);
  assert.deepEqual(states.map((s) => star.final(s)), [1n, 2n]);
});

test('group keys: numeric groups by value (1.50 = 1.5, -0.00 = 0), bpchar ignores trailing blanks, NULL is its own group', async () => {
  const count = aggId('count');
  const group = async (type: SqlType, vals: unknown[]): Promise<number[]> => {
    const plan = {
      kind: 'hashAggregate' as const, input: values([{ name: 'k', type }], vals.map((v) => [v])), groupBy: [col(0, type)],
      aggregates: [{ fn: count.id, args: [], distinct: false, type: count.type }],
      columns: [{ name: 'k', type }, { name: 'n', type: t.int8 }],
    };
    return (await rowsOf(plan)).map((r) => Number(r[1])).sort((a, b) => a - b);
  };
  assert.deepEqual(await group(t.numeric, ['1.50', '1.5', '-0.00', '0', '0.0', null, '10', '1', '1.000', '-1.5', '-1.50', 'NaN', 'NaN', '100.10', '100.1']),
    [1, 1, 2, 2, 2, 2, 2, 3]);
  const bpchar: SqlType = { kind: 'bpchar', length: 3 } as SqlType;
  assert.deepEqual(await group(bpchar, ['a  ', 'a', 'b ', null, 'b', ' a']), [1, 1, 2, 2]);
  // The same normalization holds inside composite keys.
  const both = {
    kind: 'hashAggregate' as const,
    input: values([{ name: 'a', type: t.numeric }, { name: 'b', type: t.text }], [['1.50', 'x'], ['1.5', 'x'], ['1.5', 'y'], [null, 'x'], [null, 'x']]),
    groupBy: [col(0, t.numeric), col(1, t.text)],
    aggregates: [{ fn: count.id, args: [], distinct: false, type: count.type }],
    columns: [{ name: 'a', type: t.numeric }, { name: 'b', type: t.text }, { name: 'n', type: t.int8 }],
  };
  assert.deepEqual((await rowsOf(both)).map((r) => Number(r[2])).sort(), [1, 2, 2]);
});

test('GROUP BY three and four columns: every distinct combination is one group, across batches (property, against a Map)', async () => {
  const fc = (await import('fast-check')).default;
  const count = aggId('count');
  await fc.assert(fc.asyncProperty(
    fc.integer({ min: 1, max: 6000 }), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 40 }), fc.boolean(), fc.integer({ min: 0, max: 1000 }),
    async (n, card1, card2, fourth, seed) => {
      // Deterministic columns of chosen cardinalities, NULLs included, so combinations repeat.
      const rows = Array.from({ length: n }, (_, i) => {
        const h = (i * 2654435761 + seed) >>> 0;
        return [h % card1, (h >>> 8) % 7 === 0 ? null : `s${(h >>> 4) % card2}`, `${(h >>> 12) % 5}.50`, ...(fourth ? [(h >>> 16) % 3] : [])];
      });
      const cols = [{ name: 'a', type: t.int4 }, { name: 'b', type: t.text }, { name: 'c', type: t.numeric }, ...(fourth ? [{ name: 'd', type: t.int4 }] : [])];
      const plan = {
        kind: 'hashAggregate' as const, input: values(cols, rows), groupBy: cols.map((c, i) => col(i, c.type)),
        aggregates: [{ fn: count.id, args: [], distinct: false, type: count.type }],
        columns: [...cols, { name: 'n', type: t.int8 }],
      };
      const got = (await rowsOf(plan)).map((r) => `${JSON.stringify(r.slice(0, cols.length))}=${Number(r[cols.length])}`).sort();
      const oracle = new Map<string, number>();
      for (const r of rows) { const k = JSON.stringify(r); oracle.set(k, (oracle.get(k) ?? 0) + 1); }
      assert.deepEqual(got, [...oracle].map(([k, c]) => `${k}=${c}`).sort());
    },
  ), { numRuns: 25 });
});
