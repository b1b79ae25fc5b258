import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Int32, Utf8, vectorFromArray } from 'apache-arrow';
import type { SqlType } from '../../src/common/sql-type.js';
import { lazyBatch } from '../../src/exec/arrow/columnar-batch.js';
import { arrowColumn } from '../../src/exec/arrow/column-source.js';
import type { ColumnarBatch } from '../../src/exec/arrow/columnar-batch.js';
import { compileExpr, compileExprWith } from '../../src/exec/expr/compile-expr.js';
import type { Expr } from '../../src/exec/expr/expr.js';
import type { CallExpr } from '../../src/exec/expr/node-fn.js';
import { CALL_SPECIALIZATIONS } from '../../src/exec/expr/specialize/call-specializations.js';
import { createRunState } from '../../src/exec/run-state.js';
import { formatScaled } from '../../src/exec/types/numeric.js';
import { col, decimalData, lit, op, t } from './exec-test-helpers.js';

const run = createRunState({ params: [], settings: new Map(), transactionStartMicros: 0n });
const NUM: SqlType = { kind: 'numeric', precision: 15, scale: 2 };
const ALL = new Set(CALL_SPECIALIZATIONS.map((s) => s.name));

/** The specialization `name`, asserted to take `e` (so the comparison below is not between two general routes). */
function assertCovers(name: string, e: Expr): void {
  const s = CALL_SPECIALIZATIONS.find((x) => x.name === name);
  assert.ok(s, `no specialization ${name}`);
  assert.equal(e.kind, 'call');
  const stub = () => () => [];
  assert.ok(s.tryCompile(e as CallExpr, { compile: stub, general: stub }) !== undefined, `${name} does not take ${JSON.stringify(e)}`);
}

/** `e` over `b` gives the same values by default, with only `name` off, and with every specialization off. */
function assertSameAsGeneral(name: string, e: Expr, b: ColumnarBatch): void {
  const expected = compileExprWith(e, { disabled: ALL }).evaluateSync(b, run);
  assert.deepEqual(compileExpr(e).evaluateSync(b, run), expected);
  assert.deepEqual(compileExprWith(e, { disabled: new Set([name]) }).evaluateSync(b, run), expected);
}

test('the specializations have distinct names, in the order they are tried', () => {
  assert.deepEqual(CALL_SPECIALIZATIONS.map((s) => s.name), ['fused-numeric', 'equality-as-in-list', 'scaled-comparison', 'int-column-comparison']);
});

const unscaled = fc.oneof(fc.bigInt({ min: -10_000_000n, max: 10_000_000n }), fc.constant(null));

test('fused-numeric: a * (1 - b) + a over Arrow decimals equals the general route', () => {
  const one = { kind: 'cast', arg: lit(1, t.int4), type: NUM } as Expr;
  const e = op('+', op('*', col(0, NUM), op('-', one, col(1, NUM))), col(0, NUM));
  assertCovers('fused-numeric', e);
  fc.assert(fc.property(fc.array(fc.tuple(unscaled, unscaled), { minLength: 1, maxLength: 30 }), (rows) => {
    const b = lazyBatch(rows.length, [0, 1].map((k) => arrowColumn(decimalData(rows.map((r) => r[k]!), 2), NUM)));
    assertSameAsGeneral('fused-numeric', e, b);
  }), { numRuns: 100 });
});

test('scaled-comparison: a decimal column against a numeric constant equals the general route', () => {
  for (const o of ['<', '<=', '=', '<>', '>', '>=']) {
    const e = op(o, col(0, NUM), lit('12.5', { kind: 'numeric' }));
    assertCovers('scaled-comparison', e);
    fc.assert(fc.property(fc.array(fc.oneof(fc.bigInt({ min: 1240n, max: 1260n }), unscaled), { minLength: 1, maxLength: 30 }), (rows) => {
      const b = lazyBatch(rows.length, [arrowColumn(decimalData(rows, 2), NUM)]);
      assertSameAsGeneral('scaled-comparison', e, b);
      // The values themselves, so the comparison is checked against the data and not only against itself.
      const got = compileExpr(e).evaluateSync(b, run);
      rows.forEach((u, i) => assert.equal(got[i], u === null ? null : compare(o, Number(formatScaled(Number(u), 2)), 12.5)));
    }), { numRuns: 50 });
  }
});

test('equality-as-in-list: text = constant and text <> constant over Arrow UTF-8 equal the general route', () => {
  const words = fc.oneof(fc.constantFrom('AIR', 'RAIL', 'air', '', 'AIR '), fc.constant(null));
  for (const o of ['=', '<>']) {
    const e = op(o, col(0, t.text), lit('AIR', t.text));
    assertCovers('equality-as-in-list', e);
    fc.assert(fc.property(fc.array(words, { minLength: 1, maxLength: 30 }), (rows) => {
      const b = lazyBatch(rows.length, [arrowColumn(vectorFromArray(rows, new Utf8()).data[0]!, t.text)]);
      assertSameAsGeneral('equality-as-in-list', e, b);
      const got = compileExpr(e).evaluateSync(b, run);
      rows.forEach((w, i) => assert.equal(got[i], w === null ? null : (w === 'AIR') === (o === '=')));
    }), { numRuns: 50 });
  }
});

test('int-column-comparison: two Arrow int4 columns compared in their buffers equal the general route', () => {
  const ints = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant(null));
  for (const o of ['<', '<=', '=', '<>', '>', '>=']) {
    const e = op(o, col(0, t.int4), col(1, t.int4));
    assertCovers('int-column-comparison', e);
    fc.assert(fc.property(fc.array(fc.tuple(ints, ints), { minLength: 1, maxLength: 30 }), (rows) => {
      const b = lazyBatch(rows.length, [0, 1].map((k) => arrowColumn(vectorFromArray(rows.map((r) => r[k]!), new Int32()).data[0]!, t.int4)));
      assertSameAsGeneral('int-column-comparison', e, b);
      const got = compileExpr(e).evaluateSync(b, run);
      rows.forEach(([x, y], i) => assert.equal(got[i], x === null || y === null ? null : compare(o, x, y)));
    }), { numRuns: 50 });
  }
});

function compare(o: string, x: number, y: number): boolean {
  switch (o) {
    case '<': return x < y;
    case '<=': return x <= y;
    case '=': return x === y;
    case '<>': return x !== y;
    case '>': return x > y;
    default: return x >= y;
  }
}
