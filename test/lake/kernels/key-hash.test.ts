import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Dictionary, Int32, Int64, RecordBatch, Utf8, vectorFromArray } from 'apache-arrow';
import type { SqlType } from '../../../src/common/sql-type.js';
import { FloeError } from '../../../src/common/floe-error.js';
import { buildBatch } from '../../../src/lake/arrow/batch-builder.js';
import { hashKey, hashKeyBatch, hashKeyColumns, keyValueBytes } from '../../../src/lake/bucket/key-hash.js';
import { encodeKeyAccessors, encodeKeyBatch } from '../../../src/lake/bucket/key-encoding.js';
import { murmur3X86_32 } from '../../../src/lake/bucket/murmur3.js';

const signed = (h: number) => h | 0;
const T = (kind: string, extra: object = {}) => ({ kind, ...extra }) as SqlType;

test('single-value hashes match Iceberg Appendix B', () => {
  assert.equal(hashKey([T('int4')], [34]), 2017239379);
  assert.equal(hashKey([T('int8')], [34n]), 2017239379);
  assert.equal(hashKey([T('int2')], [34]), 2017239379);
  assert.equal(signed(hashKey([T('numeric', { precision: 9, scale: 2 })], ['14.20'])), -500754589);
  assert.equal(signed(hashKey([T('numeric', { precision: 9, scale: 2 })], ['14.2'])), -500754589);
  assert.equal(signed(hashKey([T('date')], [17486])), -653330422); // 2017-11-16
  assert.equal(signed(hashKey([T('time')], [81068000000n])), -662762989); // 22:31:08
  assert.equal(signed(hashKey([T('timestamp')], [1510871468000000n])), -2047944441); // 2017-11-16T22:31:08
  assert.equal(signed(hashKey([T('timestamptz')], [1510871468000000n])), -2047944441); // 2017-11-16T14:31:08-08:00
  assert.equal(hashKey([T('text')], ['iceberg']), 1210000089);
  assert.equal(hashKey([T('varchar', { length: 10 })], ['iceberg']), 1210000089);
  assert.equal(hashKey([T('uuid')], ['f79c3e09-677c-4bbd-a479-3f349cb785e7']), 1488055340);
  assert.equal(hashKey([T('uuid')], ['F79C3E09677C4BBDA4793F349CB785E7']), 1488055340);
  assert.equal(signed(hashKey([T('bytea')], [new Uint8Array([0, 1, 2, 3])])), -188683207);
  assert.equal(hashKey([T('bool')], [true]), 1392991556);
  assert.equal(signed(hashKey([T('float8')], [1])), -142385009);
  assert.equal(signed(hashKey([T('float4')], [1])), -142385009);
});

test('decimal serialization is minimal big-endian two\'s complement', () => {
  const n = T('numeric', { precision: 38, scale: 0 });
  assert.deepEqual([...keyValueBytes(n, '0')], [0]);
  assert.deepEqual([...keyValueBytes(n, '-1')], [0xff]);
  assert.deepEqual([...keyValueBytes(n, '127')], [0x7f]);
  assert.deepEqual([...keyValueBytes(n, '128')], [0x00, 0x80]);
  assert.deepEqual([...keyValueBytes(n, '-128')], [0x80]);
  assert.deepEqual([...keyValueBytes(n, '-129')], [0xff, 0x7f]);
  assert.deepEqual([...keyValueBytes(T('numeric', { precision: 9, scale: 2 }), '14.20')], [0x05, 0x8c]);
  // unconstrained numeric: equal values hash alike whatever their written scale
  assert.equal(hashKey([T('numeric')], ['1.0']), hashKey([T('numeric')], ['1.00']));
  assert.equal(hashKey([T('numeric')], ['1.5']), hashKey([T('numeric', { precision: 10, scale: 1 })], ['1.5']));
});

test('composite keys hash the length-prefixed concatenation', () => {
  const a = new TextEncoder().encode('iceberg');
  const bytes = new Uint8Array(4 + 7 + 4 + 8);
  const v = new DataView(bytes.buffer);
  v.setInt32(0, 7, false);
  bytes.set(a, 4);
  v.setInt32(11, 8, false);
  v.setBigInt64(15, 34n, true);
  assert.equal(hashKey([T('text'), T('int4')], ['iceberg', 34]), murmur3X86_32(bytes));
});

test('NULL key is 23502; wrong JS type is 42804', () => {
  assert.throws(() => hashKey([T('int4')], [null]), (e: unknown) => e instanceof FloeError && e.sqlstate === '23502');
  assert.throws(() => hashKey([T('int4')], ['x']), (e: unknown) => e instanceof FloeError && e.sqlstate === '42804');
  const b = buildBatch([{ name: 'k', type: T('int4'), fieldId: 1, nullable: true }], [[1, null]]);
  assert.throws(() => hashKeyBatch(b, ['k'], [T('int4')]), (e: unknown) => e instanceof FloeError && e.sqlstate === '23502' && /"k"/.test(e.message));
});

test('bpchar ignores trailing spaces', () => {
  assert.equal(hashKey([T('bpchar', { length: 5 })], ['ab   ']), hashKey([T('bpchar', { length: 5 })], ['ab']));
  const b = buildBatch([{ name: 'k', type: T('bpchar', { length: 5 }), fieldId: 1, nullable: false }], [['ab   ', 'ab']]);
  const h = hashKeyBatch(b, ['k'], [T('bpchar', { length: 5 })]);
  assert.equal(h[0], h[1]);
});

const keyTypes: { type: SqlType; arb: fc.Arbitrary<unknown> }[] = [
  { type: T('bool'), arb: fc.boolean() },
  { type: T('int2'), arb: fc.integer({ min: -32768, max: 32767 }) },
  { type: T('int4'), arb: fc.integer() },
  { type: T('int8'), arb: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }) },
  { type: T('oid'), arb: fc.integer({ min: 0, max: 0xffffffff }) },
  { type: T('float8'), arb: fc.double() },
  { type: T('float4'), arb: fc.float().map((f) => Math.fround(f)) },
  { type: T('numeric', { precision: 20, scale: 3 }), arb: fc.bigInt({ min: -(10n ** 20n) + 1n, max: 10n ** 20n - 1n }).map((u) => { const s = (u < 0n ? -u : u).toString().padStart(4, '0'); return `${u < 0n ? '-' : ''}${s.slice(0, -3)}.${s.slice(-3)}`; }) },
  { type: T('numeric'), arb: fc.integer().map((i) => `${i / 100}`) },
  { type: T('text'), arb: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { type: T('bpchar', { length: 8 }), arb: fc.string({ maxLength: 8 }) },
  { type: T('bytea'), arb: fc.uint8Array({ maxLength: 20 }) },
  { type: T('date'), arb: fc.oneof(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.constant(Infinity), fc.constant(-Infinity)) },
  { type: T('time'), arb: fc.bigInt({ min: 0n, max: 86_400_000_000n }) },
  { type: T('timestamp'), arb: fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }) },
  { type: T('timestamptz'), arb: fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }) },
  { type: T('uuid'), arb: fc.uuid() },
  { type: T('interval'), arb: fc.record({ months: fc.integer(), days: fc.integer(), micros: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }) }) },
  { type: T('array', { element: T('int4') }), arb: fc.array(fc.option(fc.integer(), { nil: null }), { maxLength: 5 }) },
];

test('batch, column and per-value hashing agree for every key type (single and composite)', () => {
  for (const { type, arb } of keyTypes) {
    fc.assert(fc.property(fc.array(arb, { minLength: 1, maxLength: 30 }), (vals) => {
      const b = buildBatch([{ name: 'k', type, fieldId: 1, nullable: false }], [vals]);
      const fromBatch = hashKeyBatch(b, ['k'], [type]);
      const fromColumns = hashKeyColumns([type], [{ get: (i) => vals[i] }], vals.length);
      for (let i = 0; i < vals.length; i++) {
        const one = hashKey([type], [vals[i]]);
        assert.equal(fromBatch[i], one, type.kind);
        assert.equal(fromColumns[i], one);
      }
    }), { numRuns: 30 });
  }
  // composite: every type paired with text
  for (const { type, arb } of keyTypes) {
    fc.assert(fc.property(fc.array(fc.tuple(arb, fc.string()), { minLength: 1, maxLength: 10 }), (rows) => {
      const types = [type, T('text')];
      const b = buildBatch(
        [{ name: 'a', type, fieldId: 1, nullable: false }, { name: 'b', type: T('text'), fieldId: 2, nullable: false }],
        [rows.map((r) => r[0]), rows.map((r) => r[1])],
      );
      const fromBatch = hashKeyBatch(b, ['a', 'b'], types);
      rows.forEach((r, i) => assert.equal(fromBatch[i], hashKey(types, r)));
    }), { numRuns: 15 });
  }
});

test('composite keys of long-serialized columns (the word-at-a-time path) encode and hash like the general path', () => {
  const longKinds = ['bool', 'int2', 'int4', 'int8', 'oid', 'date', 'time', 'timestamp', 'timestamptz'];
  const longTypes = keyTypes.filter((k) => longKinds.includes(k.type.kind));
  assert.equal(longTypes.length, longKinds.length);
  const pick = fc.array(fc.integer({ min: 0, max: longTypes.length - 1 }), { minLength: 2, maxLength: 5 });
  fc.assert(fc.property(pick.chain((cols) => fc.tuple(fc.constant(cols), fc.array(fc.tuple(...cols.map((c) => longTypes[c]!.arb)), { minLength: 1, maxLength: 20 }))), ([cols, rows]) => {
    const types = cols.map((c) => longTypes[c]!.type);
    const names = cols.map((_, i) => `k${i}`);
    const b = buildBatch(types.map((type, i) => ({ name: names[i]!, type, fieldId: i + 1, nullable: false })), types.map((_, i) => rows.map((r) => r[i])));
    const fast = encodeKeyBatch(b, names, types);
    const general = encodeKeyAccessors(types, types.map((_, c) => ({ get: (i: number) => rows[i]![c] })), rows.length);
    assert.equal(fast.kind, 'bytes');
    assert.deepEqual([...fast.offsets], [...general.offsets]);
    assert.deepEqual([...fast.bytes.subarray(0, fast.offsets[rows.length])], [...general.bytes.subarray(0, general.offsets[rows.length])]);
    rows.forEach((r, i) => assert.equal(fast.hashes[i], hashKey(types, r)));
  }), { numRuns: 100 });
});

test('encoded keys: equal keys have equal encodings, different keys differ', () => {
  const type = T('text');
  const b = buildBatch([{ name: 'k', type, fieldId: 1, nullable: false }], [['a', 'b', 'a', 'ab']]);
  const e = encodeKeyBatch(b, ['k'], [type]);
  const key = (i: number) => Buffer.from(e.bytes.subarray(e.offsets[i]!, e.offsets[i + 1]!)).toString('hex');
  assert.equal(e.kind, 'bytes');
  assert.equal(key(0), key(2));
  assert.notEqual(key(0), key(1));
  assert.notEqual(key(0), key(3));
  const l = encodeKeyBatch(buildBatch([{ name: 'k', type: T('int8'), fieldId: 1, nullable: false }], [[1n, -1n]]), ['k'], [T('int8')]);
  assert.equal(l.kind, 'long');
  assert.deepEqual([...l.lo, ...l.hi], [1, -1, 0, -1]);
});

test('dictionary-encoded key columns hash like plain ones (indices are not values)', () => {
  for (const [type, arrowValue, vals] of [
    [T('int8'), new Int64(), [5n, 7n, 5n, -1n]],
    [T('int4'), new Int32(), [5, 7, 5, -1]],
    [T('text'), new Utf8(), ['x', 'y', 'x', 'zz']],
  ] as const) {
    const vec = vectorFromArray(vals as unknown as unknown[], new Dictionary(arrowValue as never, new Int32()));
    const batch = new RecordBatch({ k: vec.data[0]! as never });
    const h = hashKeyBatch(batch, ['k'], [type]);
    vals.forEach((v, i) => assert.equal(h[i], hashKey([type], [v]), `${type.kind} ${i}`));
  }
});
