import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { valueOrderOf } from '../../../src/lake/stats/value-order.js';
import type { SqlType } from '../../../src/common/sql-type.js';
import { FloeError } from '../../../src/common/floe-error.js';
import { applyTransform, mayMatch, partitionKeyOf, transformResultType } from '../../../src/lake/partition/partition-transform.js';
import type { PartitionTransform } from '../../../src/lake/partition/partition-transform.js';
import { encodeStatValue } from '../../../src/lake/stats/column-stats.js';

const T = (kind: string, extra: object = {}) => ({ kind, ...extra }) as SqlType;
const ts = 1_510_871_468_000_000n; // 2017-11-16T22:31:08Z

test('Iceberg examples: time transforms are ordinals since 1970', () => {
  assert.equal(applyTransform({ kind: 'year' }, T('date'), 17486), 47);
  assert.equal(applyTransform({ kind: 'month' }, T('date'), 17486), 47 * 12 + 10);
  assert.equal(applyTransform({ kind: 'day' }, T('date'), 17486), 17486);
  assert.equal(applyTransform({ kind: 'year' }, T('timestamp'), ts), 47);
  assert.equal(applyTransform({ kind: 'month' }, T('timestamptz'), ts), 574);
  assert.equal(applyTransform({ kind: 'day' }, T('timestamp'), ts), 17486);
  assert.equal(applyTransform({ kind: 'hour' }, T('timestamp'), ts), 419686);
  // before the epoch: floor, not truncation toward zero
  assert.equal(applyTransform({ kind: 'day' }, T('timestamp'), -1n), -1);
  assert.equal(applyTransform({ kind: 'hour' }, T('timestamp'), -1n), -1);
  assert.equal(applyTransform({ kind: 'year' }, T('date'), -1), -1);
  assert.equal(applyTransform({ kind: 'month' }, T('date'), -1), -1);
  assert.equal(applyTransform({ kind: 'month' }, T('date'), 0), 0);
  assert.equal(applyTransform({ kind: 'year' }, T('date'), 365), 1);
  assert.equal(applyTransform({ kind: 'year' }, T('date'), 364), 0);
  assert.equal(applyTransform({ kind: 'month' }, T('date'), 31 + 28), 2); // 1970-03-01
  assert.equal(applyTransform({ kind: 'month' }, T('date'), 365 + 31 + 28), 14); // 1971-03-01
  assert.equal(applyTransform({ kind: 'day' }, T('date'), null), null);
});

test('Iceberg examples: truncate and bucket', () => {
  const tr = (w: number): PartitionTransform => ({ kind: 'truncate', width: w });
  assert.equal(applyTransform(tr(10), T('int4'), 1), 0);
  assert.equal(applyTransform(tr(10), T('int4'), -1), -10);
  assert.equal(applyTransform(tr(10), T('int8'), -1n), -10n);
  assert.equal(applyTransform(tr(50), T('numeric', { precision: 9, scale: 2 }), '10.65'), '10.50');
  assert.equal(applyTransform(tr(3), T('text'), 'iceberg'), 'ice');
  assert.equal(applyTransform(tr(3), T('text'), '𝄞é𝄞x'), '𝄞é𝄞');
  assert.deepEqual(applyTransform(tr(2), T('bytea'), new Uint8Array([1, 2, 3])), new Uint8Array([1, 2]));
  assert.equal(applyTransform({ kind: 'bucket', buckets: 16 }, T('int4'), 34), 3);
  assert.equal(applyTransform({ kind: 'bucket', buckets: 16 }, T('int8'), 34n), 3);
  const b = applyTransform({ kind: 'bucket', buckets: 7 }, T('text'), 'iceberg');
  assert.equal(b, (1210000089 & 0x7fffffff) % 7);
});

test('result types and invalid transforms', () => {
  assert.deepEqual(transformResultType({ kind: 'day' }, T('timestamptz')), T('date'));
  assert.deepEqual(transformResultType({ kind: 'hour' }, T('timestamp')), T('int4'));
  assert.deepEqual(transformResultType({ kind: 'bucket', buckets: 4 }, T('uuid')), T('int4'));
  assert.deepEqual(transformResultType({ kind: 'identity' }, T('text')), T('text'));
  assert.throws(() => transformResultType({ kind: 'hour' }, T('date')), (e: unknown) => e instanceof FloeError && e.sqlstate === '22023');
  assert.throws(() => transformResultType({ kind: 'truncate', width: 0 }, T('int4')), FloeError);
  assert.throws(() => transformResultType({ kind: 'year' }, T('text')), FloeError);
});

test('partitionKeyOf is stable and distinguishes values', () => {
  const f = [{ sourceColumn: 'a', transform: { kind: 'identity' } as const, name: 'a' }, { sourceColumn: 'b', transform: { kind: 'identity' } as const, name: 'b' }];
  assert.equal(partitionKeyOf(f, [1n, 'x']), partitionKeyOf(f, [1n, 'x']));
  assert.notEqual(partitionKeyOf(f, [1n, 'x']), partitionKeyOf(f, ['1', 'x']));
  assert.notEqual(partitionKeyOf(f, [null, 'x']), partitionKeyOf(f, ['null', 'x']));
});

test('mayMatch never prunes a partition that holds a matching row (property)', () => {
  const cases: { type: SqlType; transform: PartitionTransform; arb: fc.Arbitrary<unknown> }[] = [
    { type: T('timestamp'), transform: { kind: 'day' }, arb: fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }) },
    { type: T('timestamptz'), transform: { kind: 'hour' }, arb: fc.bigInt({ min: -(10n ** 13n), max: 10n ** 13n }) },
    { type: T('date'), transform: { kind: 'month' }, arb: fc.integer({ min: -20000, max: 20000 }) },
    { type: T('date'), transform: { kind: 'year' }, arb: fc.integer({ min: -20000, max: 20000 }) },
    { type: T('int4'), transform: { kind: 'truncate', width: 10 }, arb: fc.integer({ min: -1000, max: 1000 }) },
    { type: T('int8'), transform: { kind: 'bucket', buckets: 8 }, arb: fc.bigInt({ min: -1000n, max: 1000n }) },
    { type: T('text'), transform: { kind: 'truncate', width: 2 }, arb: fc.string({ maxLength: 4 }) },
    { type: T('int4'), transform: { kind: 'identity' }, arb: fc.integer({ min: -5, max: 5 }) },
  ];
  // char(n) compares without trailing blanks; blanks and a byte below them probe that order.
  const padded = fc.array(fc.constantFrom('a', 'b', ' ', '\x01'), { maxLength: 4 }).map((p) => p.join(''));
  for (const transform of [{ kind: 'truncate', width: 2 }, { kind: 'bucket', buckets: 8 }, { kind: 'identity' }] as PartitionTransform[]) {
    cases.push({ type: T('bpchar', { length: 4 }), transform, arb: padded });
  }
  for (const { type, transform, arb } of cases) {
    const cmp = valueOrderOf(type)!;
    fc.assert(fc.property(arb, arb, fc.constantFrom('=', '<', '<=', '>', '>=', 'in'), (row, lit, op) => {
      const pv = applyTransform(transform, type, row);
      const c = cmp(row, lit);
      const holds = op === '=' || op === 'in' ? c === 0 : op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
      const pred = op === 'in' ? { op: 'in' as const, values: [lit] } : { op: op as '=', value: lit };
      const m = mayMatch(transform, type, encodeStatValue(transformResultType(transform, type), pv), pred);
      if (holds) assert.ok(m, `${transform.kind} ${String(row)} ${op} ${String(lit)}`);
    }), { numRuns: 300 });
  }
  // The case the property may miss: 'a b' >= 'a\x01' as char(n), yet its partition 'a' sorts below 'a\x01'.
  const tr2: PartitionTransform = { kind: 'truncate', width: 2 };
  const char4 = T('bpchar', { length: 4 });
  assert.ok(mayMatch(tr2, char4, encodeStatValue(transformResultType(tr2, char4), applyTransform(tr2, char4, 'a b')), { op: '>=', value: 'a\x01' }));
});

test('mayMatch prunes where it can', () => {
  assert.equal(mayMatch({ kind: 'day' }, T('timestamp'), 17486, { op: '=', value: ts }), true);
  assert.equal(mayMatch({ kind: 'day' }, T('timestamp'), 17485, { op: '=', value: ts }), false);
  assert.equal(mayMatch({ kind: 'day' }, T('timestamp'), 17487, { op: '<', value: ts }), false);
  assert.equal(mayMatch({ kind: 'day' }, T('timestamp'), 17485, { op: '>=', value: ts }), false);
  assert.equal(mayMatch({ kind: 'bucket', buckets: 16 }, T('int4'), 3, { op: '=', value: 34 }), true);
  assert.equal(mayMatch({ kind: 'bucket', buckets: 16 }, T('int4'), 4, { op: '=', value: 34 }), false);
  assert.equal(mayMatch({ kind: 'bucket', buckets: 16 }, T('int4'), 4, { op: '<', value: 34 }), true);
  assert.equal(mayMatch({ kind: 'bucket', buckets: 16 }, T('int4'), 4, { op: 'in', values: [34, 35] }), mayMatch({ kind: 'bucket', buckets: 16 }, T('int4'), 4, { op: '=', value: 35 }));
  assert.equal(mayMatch({ kind: 'identity' }, T('int8'), '5', { op: '=', value: 5n }), true);
  assert.equal(mayMatch({ kind: 'identity' }, T('int8'), null, { op: '=', value: 5n }), false);
});
