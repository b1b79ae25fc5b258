import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { SqlType } from '../../../src/common/sql-type.js';
import { buildBatch } from '../../../src/lake/arrow/batch-builder.js';
import { computeColumnStats, decodeStatValue, encodeStatValue, statsMayMatch } from '../../../src/lake/stats/column-stats.js';

const T = (kind: string, extra: object = {}) => ({ kind, ...extra }) as SqlType;

test('min, max and null count per column, in canonical values', () => {
  const cols = [
    { name: 'i', type: T('int4') }, { name: 'b', type: T('int8') }, { name: 's', type: T('text') },
    { name: 'n', type: T('numeric', { precision: 10, scale: 2 }) }, { name: 'd', type: T('date') },
    { name: 'f', type: T('float8') }, { name: 'iv', type: T('interval') }, { name: 'e', type: T('text') },
    { name: 'by', type: T('bytea') }, { name: 'ts', type: T('timestamptz') },
  ];
  const batch = buildBatch(cols.map((c, i) => ({ ...c, fieldId: i + 1, nullable: true })), [
    [3, null, -7, 10],
    [5n, -9n, null, 2n],
    ['b', 'a', 'é', null],
    ['10.50', '-2.00', '9.99', null],
    [Infinity, 5, -3, null],
    [1.5, NaN, -2, null],
    [{ months: 1, days: 0, micros: 0n }, null, null, null],
    [null, null, null, null],
    [new Uint8Array([2]), new Uint8Array([1, 9]), null, null],
    [10n, 20n, null, null],
  ]);
  const s = computeColumnStats(batch, cols);
  assert.deepEqual(s['i'], { min: -7, max: 10, nullCount: 1 });
  assert.deepEqual(s['b'], { min: -9n, max: 5n, nullCount: 1 });
  assert.deepEqual(s['s'], { min: 'a', max: 'é', nullCount: 1 });
  assert.deepEqual(s['n'], { min: '-2.00', max: '10.50', nullCount: 1 });
  assert.deepEqual(s['d'], { min: -3, max: Infinity, nullCount: 1 });
  assert.ok(Number.isNaN(s['f']!.max as number), 'NaN sorts above every number, as in PostgreSQL');
  assert.equal(s['f']!.min, -2);
  assert.deepEqual(s['iv'], { min: null, max: null, nullCount: 3 });
  assert.deepEqual(s['e'], { min: null, max: null, nullCount: 4 });
  assert.deepEqual(s['by'], { min: new Uint8Array([1, 9]), max: new Uint8Array([2]), nullCount: 2 });
  assert.deepEqual(s['ts'], { min: 10n, max: 20n, nullCount: 2 });
  // JSON round trip of encoded stats
  for (const c of cols) {
    const st = s[c.name]!;
    const json = JSON.parse(JSON.stringify({ min: encodeStatValue(c.type, st.min), max: encodeStatValue(c.type, st.max) }));
    assert.deepEqual(decodeStatValue(c.type, json.min), st.min, c.name);
    assert.deepEqual(decodeStatValue(c.type, json.max), st.max, c.name);
  }
});

test('long strings keep a truncated min and no max', () => {
  const long = 'z'.repeat(100);
  const batch = buildBatch([{ name: 's', type: T('text'), fieldId: 1, nullable: true }], [[long, 'zz']]);
  const s = computeColumnStats(batch, [{ name: 's', type: T('text') }])['s']!;
  assert.equal(s.min, 'zz');
  assert.equal(s.max, null);
  assert.ok(statsMayMatch(s, T('text'), { op: '=', value: long }));
  assert.ok(statsMayMatch(s, T('text'), { op: '>', value: 'zzz' }));
});

test('statsMayMatch is conservative: never prunes a file holding a match (property)', () => {
  const types: [SqlType, fc.Arbitrary<unknown>][] = [
    [T('int4'), fc.integer({ min: -20, max: 20 })],
    [T('int8'), fc.bigInt({ min: -20n, max: 20n })],
    [T('float8'), fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant(NaN), fc.constant(Infinity))],
    [T('text'), fc.string({ maxLength: 3 })],
    [T('numeric', { precision: 6, scale: 1 }), fc.integer({ min: -100, max: 100 }).map((i) => (i / 10).toFixed(1))],
    [T('date'), fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant(Infinity), fc.constant(-Infinity))],
  ];
  for (const [type, arb] of types) {
    fc.assert(fc.property(fc.array(fc.option(arb, { nil: null }), { minLength: 1, maxLength: 8 }), arb, fc.constantFrom('=', '<', '<=', '>', '>=', '<>', 'in', 'isNull', 'isNotNull'), (vals, lit, op) => {
      const batch = buildBatch([{ name: 'c', type, fieldId: 1, nullable: true }], [vals]);
      const st = computeColumnStats(batch, [{ name: 'c', type }])['c']!;
      const enc = { min: encodeStatValue(type, st.min), max: encodeStatValue(type, st.max), nullCount: st.nullCount };
      const pred = op === 'in' ? { op, values: [lit] } : op === 'isNull' || op === 'isNotNull' ? { op } : { op, value: lit };
      const cmp = (a: unknown, b: unknown): number => {
        if (type.kind === 'float8') { const x = a as number; const y = b as number; if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1; if (Number.isNaN(y)) return -1; return x < y ? -1 : x > y ? 1 : 0; }
        if (type.kind === 'numeric') return Math.sign(Number(a) - Number(b));
        if (typeof a === 'string') { const x = Array.from(a).map((c) => c.codePointAt(0)!); const y = Array.from(b as string).map((c) => c.codePointAt(0)!); for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!; return x.length - y.length; }
        return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
      };
      const anyMatch = vals.some((v) => {
        if (op === 'isNull') return v === null;
        if (op === 'isNotNull') return v !== null;
        if (v === null) return false;
        const c = cmp(v, lit);
        return op === '=' || op === 'in' ? c === 0 : op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : op === '>=' ? c >= 0 : c !== 0;
      });
      const may = statsMayMatch(enc, type, pred as never, vals.length);
      if (anyMatch) assert.ok(may, `${type.kind} ${op}`);
      // and the canonical form gives the same answer
      assert.equal(statsMayMatch(st, type, pred as never, vals.length), may);
    }), { numRuns: 200 });
  }
});

test('statsMayMatch prunes by range', () => {
  const st = { min: '10', max: '20', nullCount: 0 };
  assert.equal(statsMayMatch(st, T('int8'), { op: '=', value: 5n }), false);
  assert.equal(statsMayMatch(st, T('int8'), { op: '=', value: 15n }), true);
  assert.equal(statsMayMatch(st, T('int8'), { op: '<', value: 10n }), false);
  assert.equal(statsMayMatch(st, T('int8'), { op: '>', value: 20n }), false);
  assert.equal(statsMayMatch(st, T('int8'), { op: 'in', values: [1n, 30n] }), false);
  assert.equal(statsMayMatch(st, T('int8'), { op: 'isNull' }), false);
  assert.equal(statsMayMatch({ min: 3, max: 3, nullCount: 0 }, T('int4'), { op: '<>', value: 3 }), false);
  assert.equal(statsMayMatch({ min: null, max: null, nullCount: 5 }, T('int4'), { op: '=', value: 3 }, 5), false);
  assert.equal(statsMayMatch({ min: null, max: null, nullCount: 0 }, T('interval'), { op: '=', value: 3 }), true);
});
