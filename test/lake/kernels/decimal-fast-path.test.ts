import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildBatch } from '../../../src/lake/arrow/batch-builder.js';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';
import {
  formatDecimal, formatDecimalExact, formatDecimalNumber, naturalScale, naturalScaleExact, parseDecimal, parseDecimalExact, parseDecimalNumber,
} from '../../../src/lake/arrow/decimal-text.js';
import { computeColumnStats } from '../../../src/lake/stats/column-stats.js';
import { compareNumericTextExact, comparePlainDecimals, valueOrderOf } from '../../../src/lake/stats/value-order.js';
import type { SqlType } from '../../../src/common/sql-type.js';

/** Plain decimal texts around the 2^53 boundary: 1–20 integer digits, 0–8 fraction digits, signs, leading/trailing zeros. */
const digitString = (min: number, max: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));
const plainDecimal = fc.tuple(fc.constantFrom('', '-', '+'), digitString(0, 20), fc.boolean(), digitString(0, 8))
  .filter(([, int, dot, frac]) => int.length + frac.length > 0 && (dot || frac.length === 0))
  .map(([sign, int, dot, frac]) => `${sign}${int}${dot ? `.${frac}` : ''}`);
const boundaryTexts = [
  '0', '-0', '-0.00', '0.000', '+0.5', '-.5', '5.', '.5', '9007199254740991', '9007199254740992', '-9007199254740991', '-9007199254740992',
  '90071992547409.91', '90071992547409.92', '900719925474099.1', '999999999999999', '9999999999999999', '99999999999999999',
  '123456789012345.67', '-123456789012345.675', '0.005', '-0.005', '0.0049', '99999999999999.995', '1e5', ' 12 ', 'NaN', '1.2.3', '', '-', '.',
];

function exactOrError(f: () => unknown): unknown {
  try { return f(); } catch (e) { return `error ${(e as Error).message}`; }
}

test('parseDecimal (number fast path) equals the exact BigInt path, including boundaries', () => {
  for (const t of boundaryTexts) {
    for (const scale of [0, 1, 2, 4, 6]) {
      assert.deepEqual(exactOrError(() => parseDecimal(t, scale)), exactOrError(() => parseDecimalExact(t, scale)), `${t} @${scale}`);
      const n = parseDecimalNumber(t, scale);
      if (n !== undefined) {
        assert.ok(Number.isSafeInteger(n));
        assert.equal(BigInt(n), parseDecimalExact(t, scale), `${t} @${scale}`);
      }
    }
  }
  fc.assert(fc.property(plainDecimal, fc.integer({ min: 0, max: 10 }), (t, scale) => {
    assert.equal(parseDecimal(t, scale), parseDecimalExact(t, scale));
    const n = parseDecimalNumber(t, scale);
    if (n !== undefined) assert.equal(BigInt(n), parseDecimalExact(t, scale));
  }), { numRuns: 3000 });
  // the fast path takes the common 15/16-digit cases and refuses beyond 2^53
  assert.equal(parseDecimalNumber('12345678901234.56', 2), 1234567890123456);
  assert.equal(parseDecimalNumber('123456789012345.67', 2), undefined);
  assert.equal(parseDecimalNumber('99999999999999999', 0), undefined);
  assert.equal(parseDecimalNumber('-0.00', 2), 0);
  assert.ok(!Object.is(parseDecimalNumber('-0.00', 2), -0));
});

test('naturalScale char loop equals the regex version', () => {
  for (const t of [...boundaryTexts, '1.2300', '-0.000', '1e-3', '1.50e2', '00.10']) assert.equal(naturalScale(t), naturalScaleExact(t), t);
  fc.assert(fc.property(plainDecimal, (t) => { assert.equal(naturalScale(t), naturalScaleExact(t)); }), { numRuns: 3000 });
});

test('formatDecimal number path equals the BigInt path', () => {
  const big = fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n });
  const near = fc.bigInt({ min: -(2n ** 53n) - 5n, max: 2n ** 53n + 5n });
  fc.assert(fc.property(fc.oneof(big, near), fc.integer({ min: 0, max: 12 }), (u, scale) => {
    assert.equal(formatDecimal(u, scale), formatDecimalExact(u, scale));
    if (u >= -BigInt(Number.MAX_SAFE_INTEGER) && u <= BigInt(Number.MAX_SAFE_INTEGER)) assert.equal(formatDecimalNumber(Number(u), scale), formatDecimalExact(u, scale));
  }), { numRuns: 3000 });
  assert.equal(formatDecimal(-5n, 2), '-0.05');
  assert.equal(formatDecimal(0n, 2), '0.00');
});

test('comparePlainDecimals orders like the exact comparison', () => {
  const sgn = (x: number) => Math.sign(x);
  for (const a of boundaryTexts) {
    for (const b of boundaryTexts) {
      const fast = comparePlainDecimals(a, b);
      if (fast === undefined) continue;
      assert.equal(sgn(fast), sgn(compareNumericTextExact(a, b)), `${a} vs ${b}`);
    }
  }
  fc.assert(fc.property(plainDecimal, plainDecimal, (a, b) => {
    const fast = comparePlainDecimals(a, b);
    assert.notEqual(fast, undefined);
    assert.equal(sgn(fast!), sgn(compareNumericTextExact(a, b)));
  }), { numRuns: 5000 });
  const order = valueOrderOf({ kind: 'numeric' })!;
  assert.equal(order('NaN', '5'), 1);
  assert.equal(order('1e2', '99.5'), 1);
  assert.equal(order('-0.00', '0'), 0);
});

/** A value as numeric(p, s) accepts it: unscaled magnitude below 10^p. */
function fits(t: string, precision: number, scale: number): boolean {
  const u = parseDecimalExact(t, scale);
  return (u < 0n ? -u : u) < 10n ** BigInt(precision);
}

test('Decimal128 columns round-trip through batch builder and reader, and stats equal the reference', () => {
  for (const [precision, scale] of [[15, 2], [18, 0], [38, 6], [12, 4]] as const) {
    const type: SqlType = { kind: 'numeric', precision, scale };
    fc.assert(fc.property(fc.array(fc.option(plainDecimal, { freq: 5 }), { minLength: 1, maxLength: 40 }), (raw) => {
      const vals = raw.map((v) => (v === null || !fits(v, precision, scale) ? null : v));
      const batch = buildBatch([{ name: 'c', type, fieldId: 1, nullable: true }], [vals]);
      const r = columnReader(batch.getChild('c')!, type);
      vals.forEach((v, i) => assert.equal(r.get(i), v === null ? null : formatDecimalExact(parseDecimalExact(v, scale), scale)));
      const stats = computeColumnStats(batch, [{ name: 'c', type }])['c']!;
      const ref = referenceStats(vals.map((_, i) => r.get(i)), type);
      assert.deepEqual(stats, ref);
    }), { numRuns: 150 });
  }
  // overflow still raises 22003 on the fast path's bound
  assert.throws(() => buildBatch([{ name: 'c', type: { kind: 'numeric', precision: 4, scale: 2 }, fieldId: 1, nullable: true }], [['100.00']]), /numeric field overflow/);
  assert.throws(() => buildBatch([{ name: 'c', type: { kind: 'numeric', precision: 4, scale: 2 }, fieldId: 1, nullable: true }], [['-99.995']]), /numeric field overflow/);
});

test('string column stats compare bytes like the code-point reference (bpchar without padding)', () => {
  const str = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a', 'a ', 'a  ', 'é', '\u{1F600}', '\uFFFF', 'b', ''));
  for (const kind of ['text', 'bpchar', 'varchar'] as const) {
    const type: SqlType = kind === 'bpchar' ? { kind, length: 8 } as SqlType : { kind } as SqlType;
    fc.assert(fc.property(fc.array(fc.option(str, { freq: 5 }), { minLength: 1, maxLength: 30 }), (vals) => {
      const batch = buildBatch([{ name: 'c', type, fieldId: 1, nullable: true }], [vals]);
      const stats = computeColumnStats(batch, [{ name: 'c', type }])['c']!;
      assert.deepEqual(stats, referenceStats(vals, type));
    }), { numRuns: 200 });
  }
});

/** The pre-fast-path algorithm: first strict minimum and maximum under valueOrderOf. */
function referenceStats(vals: readonly unknown[], type: SqlType): { min: unknown; max: unknown; nullCount: number } {
  const order = valueOrderOf(type)!;
  let min: unknown = null;
  let max: unknown = null;
  let nullCount = 0;
  for (const v of vals) {
    if (v === null) { nullCount++; continue; }
    if (min === null || order(v, min) < 0) min = v;
    if (max === null || order(v, max) > 0) max = v;
  }
  return { min, max, nullCount };
}
