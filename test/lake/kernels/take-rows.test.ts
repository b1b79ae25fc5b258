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
