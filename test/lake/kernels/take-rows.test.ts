import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { SqlType } from '../../../src/common/sql-type.js';
import { buildBatch } from '../../../src/lake/arrow/batch-builder.js';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';
import { takeBatch } from '../../../src/lake/arrow/take-rows.js';

const T = (kind: string, extra: object = {}) => ({ kind, ...extra }) as SqlType;

const columns: [SqlType, fc.Arbitrary<unknown>][] = [
  [T('bool'), fc.boolean()],
  [T('int2'), fc.integer({ min: -32768, max: 32767 })],
  [T('int4'), fc.integer()],
  [T('int8'), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })],
  [T('float8'), fc.double({ noNaN: true })],
  [T('numeric', { precision: 20, scale: 2 }), fc.integer().map((i) => (i / 100).toFixed(2))],
  [T('text'), fc.string({ maxLength: 80 })],
  [T('bytea'), fc.uint8Array({ maxLength: 10 })],
  [T('date'), fc.integer({ min: -100000, max: 100000 })],
  [T('timestamptz'), fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n })],
  [T('uuid'), fc.uuid()],
  [T('interval'), fc.record({ months: fc.integer(), days: fc.integer(), micros: fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }) }).map((r) => ({ ...r }))],
  [T('array', { element: T('text') }), fc.array(fc.option(fc.string({ maxLength: 3 }), { nil: null }), { maxLength: 4 })],
];

test('takeBatch gathers any rows (runs, repeats, reorderings) of every column type', () => {
  const rowArb = fc.tuple(...columns.map(([, a]) => fc.option(a, { nil: null })));
  fc.assert(fc.property(
    fc.array(rowArb, { minLength: 1, maxLength: 60 }).chain((rows) => fc.tuple(
      fc.constant(rows),
      fc.oneof(
        fc.array(fc.nat(rows.length - 1), { maxLength: 80 }),
        fc.subarray(Array.from({ length: rows.length }, (_, i) => i)),
      ),
      fc.nat(rows.length - 1),
    )),
    ([rows, idx, sliceAt]) => {
      const cols = columns.map(([type], c) => ({ name: `c${c}`, type, fieldId: c + 1, nullable: true }));
      const full = buildBatch(cols, cols.map((_, c) => rows.map((r) => r[c])));
      // also from a sliced batch, whose buffers carry an offset
      for (const [batch, shift] of [[full, 0], [full.slice(sliceAt, rows.length), sliceAt]] as const) {
        const ix = Int32Array.from(idx.filter((i) => i >= shift).map((i) => i - shift));
        const out = takeBatch(batch, ix);
        assert.equal(out.numRows, ix.length);
        assert.deepEqual(out.schema.fields.map((f) => f.metadata.get('floe.field_id')), cols.map((c) => String(c.fieldId)));
        cols.forEach((col, c) => {
          const r = columnReader(out.getChild(col.name)!, col.type);
          ix.forEach((i, j) => assert.deepEqual(r.get(j), rows[i + shift]![c], `${col.type.kind} row ${j}`));
        });
      }
    },
  ), { numRuns: 150 });
});

test('takeBatch gathers every fixed-width layout (words and bytes) like a value-by-value copy', () => {
  const cols: { name: string; type: SqlType; gen: (i: number) => unknown }[] = [
    { name: 'a', type: { kind: 'int2' }, gen: (i) => (i * 7) % 3000 - 1500 },
    { name: 'b', type: { kind: 'int4' }, gen: (i) => i * 1001 },
    { name: 'c', type: { kind: 'int8' }, gen: (i) => BigInt(i) * -3_000_000_019n },
    { name: 'd', type: { kind: 'float8' }, gen: (i) => i / 7 },
    { name: 'e', type: { kind: 'float4' }, gen: (i) => i / 4 },
    { name: 'f', type: { kind: 'numeric', precision: 20, scale: 3 }, gen: (i) => `-${i}12345678901.125` },
    { name: 'g', type: { kind: 'uuid' }, gen: (i) => `00000000-0000-0000-0000-${String(i).padStart(12, '0')}` },
    { name: 'h', type: { kind: 'date' }, gen: (i) => 10000 + i },
    { name: 'k', type: { kind: 'text' }, gen: (i) => `t${i}` },
  ];
  const n = 50;
  const batch = buildBatch(cols.map((c, i) => ({ name: c.name, type: c.type, fieldId: i + 1, nullable: true })),
    cols.map((c) => Array.from({ length: n }, (_, i) => (i % 9 === 4 ? null : c.gen(i)))));
  fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: 80 }), fc.boolean(), (idx, sorted) => {
    const indices = Int32Array.from(sorted ? [...idx].sort((x, y) => x - y) : idx);
    const out = takeBatch(batch, indices);
    for (const c of cols) {
      const src = columnReader(batch.getChild(c.name)!, c.type);
      const dst = columnReader(out.getChild(c.name)!, c.type);
      for (let j = 0; j < indices.length; j++) assert.deepEqual(dst.get(j), src.get(indices[j]!), `${c.name}[${j}]`);
    }
  }), { numRuns: 200 });
});
