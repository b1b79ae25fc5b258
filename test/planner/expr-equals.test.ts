import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { exprEquals } from '../../src/planner/rules/expr-equals.js';

/*
 * exprEquals compares plan fragments in place. It must agree with comparing their
 * JSON texts (bigints as text), the definition it replaced, wherever key order is
 * the same: undefined and function properties do not count, bigints compare by
 * value, arrays by position, dates by their JSON.
 */

const json = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

// A small domain, so that equal pairs come up often; keys always in one order.
const leaf = fc.oneof(fc.constantFrom(0, 1, -1, 2.5, 'a', 'b', '', true, false, null, 1n, 2n, -1n), fc.constant(undefined));
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('node').filter((v) => v !== undefined), { maxLength: 3 }),
  object: fc.record({ kind: fc.constantFrom('column', 'literal'), a: tie('node'), b: tie('node') }, { requiredKeys: ['kind'] }),
})).node;

test('exprEquals agrees with equal JSON texts (property)', () => {
  fc.assert(fc.property(value, value, (x, y) => {
    assert.equal(exprEquals(x, y), json(x) === json(y), `${json(x)} vs ${json(y)}`);
    assert.equal(exprEquals(x, structuredClone(x)), true);
  }), { numRuns: 2000 });
});

test('exprEquals: undefined and function properties do not count, key order does not matter, dates by value', () => {
  assert.equal(exprEquals({ kind: 'column', index: 1, extra: undefined }, { kind: 'column', index: 1 }), true);
  assert.equal(exprEquals({ kind: 'column', index: 1, f: () => 1 }, { kind: 'column', index: 1 }), true);
  assert.equal(exprEquals({ kind: 'column', index: 1 }, { index: 1, kind: 'column' }), true);
  assert.equal(exprEquals({ kind: 'column', index: 1 }, { kind: 'column', index: 2 }), false);
  assert.equal(exprEquals({ kind: 'column' }, { kind: 'column', index: 0 }), false);
  assert.equal(exprEquals({ v: 10n }, { v: 10n }), true);
  assert.equal(exprEquals({ v: 10n }, { v: 10 }), false);
  assert.equal(exprEquals([1, [2, 3]], [1, [2, 3]]), true);
  assert.equal(exprEquals([1, [2, 3]], [1, [2]]), false);
  assert.equal(exprEquals({ a: [] }, { a: {} }), false);
  assert.equal(exprEquals({ a: {} }, { a: [] }), false);
  assert.equal(exprEquals(new Date(5), new Date(5)), true);
  assert.equal(exprEquals(new Date(5), new Date(6)), false);
  assert.equal(exprEquals({ v: NaN }, { v: NaN }), true);
});
