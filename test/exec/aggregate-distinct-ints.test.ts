import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { lazyBatch } from '../../src/exec/arrow/columnar-batch.js';
import { decodeColumn, valuesColumn } from '../../src/exec/arrow/column-source.js';
import { AggregateTable } from '../../src/exec/aggregate/aggregate-table.js';
import { compileAggregation } from '../../src/exec/aggregate/compile-aggregation.js';
import { createRunState } from '../../src/exec/run-state.js';
import { aggId, col, t } from './exec-test-helpers.js';

/*
 * DISTINCT aggregates over int2/int4 arguments keep the (group, value) pairs they
 * have seen in one packed table: every group counts each value once, whatever
 * batch brings it, values at both ends of int4 and negative ones included, and
 * NULL arguments count for nothing. Checked against sets kept per group here.
 */

const run = createRunState({ params: [], settings: new Map(), transactionStartMicros: 0n });
const countInt4 = aggId('count', t.int4);
const sumInt4 = aggId('sum', t.int4);
const countInt2 = aggId('count', t.int2);

const int4Arb = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  // Multiples of 2^16: a packing narrower than group · 2^32 would mix groups' values up.
  fc.integer({ min: -3, max: 3 }).map((k) => k * 65536),
  fc.constantFrom(-2147483648, 2147483647, -2147483647, 2147483646),
  fc.integer(),
  fc.constant(null),
);
const int2Arb = fc.oneof(fc.integer({ min: -32768, max: 32767 }), fc.constantFrom(-32768, 32767), fc.constant(null));
type Row = [number, number | null, number | null];
const rowArb: fc.Arbitrary<Row> = fc.tuple(fc.integer({ min: 0, max: 40 }), int4Arb, int2Arb);

test('count(DISTINCT) and sum(DISTINCT) over int4 and int2 count each value once per group, across batches', async () => {
  await fc.assert(fc.asyncProperty(fc.array(fc.array(rowArb, { minLength: 1, maxLength: 200 }), { minLength: 1, maxLength: 4 }), async (batches) => {
    const spec = compileAggregation({
      groupBy: [col(0, t.int4)],
      aggregates: [
        { fn: countInt4.id, args: [col(1, t.int4)], distinct: true, type: countInt4.type },
        { fn: sumInt4.id, args: [col(1, t.int4)], distinct: true, type: sumInt4.type },
        { fn: countInt2.id, args: [col(2, t.int2)], distinct: true, type: countInt2.type },
        { fn: countInt4.id, args: [col(1, t.int4)], distinct: false, type: countInt4.type },
      ],
    });
    const table = new AggregateTable(spec);
    for (const rows of batches) {
      await table.sink(lazyBatch(rows.length, [0, 1, 2].map((k) => valuesColumn(rows.map((r) => r[k])))), run);
    }
    const expected = new Map<number, { v4: Set<number>; v2: Set<number>; all: number }>();
    for (const [g, v4, v2] of batches.flat()) {
      const e = expected.get(g) ?? { v4: new Set(), v2: new Set(), all: 0 };
      if (v4 !== null) { e.v4.add(v4); e.all++; }
      if (v2 !== null) e.v2.add(v2);
      expected.set(g, e);
    }
    const f = table.finish(false);
    assert.equal(f.numRows, expected.size);
    const cols = f.columns.map(decodeColumn);
    for (let r = 0; r < f.numRows; r++) {
      const e = expected.get(Number(cols[0]![r]))!;
      const sum = [...e.v4].reduce((s, v) => s + BigInt(v), 0n);
      assert.deepEqual(
        [Number(cols[1]![r]), cols[2]![r] === null ? null : BigInt(cols[2]![r] as bigint), Number(cols[3]![r]), Number(cols[4]![r])],
        [e.v4.size, e.v4.size === 0 ? null : sum, e.v2.size, e.all],
      );
    }
  }), { numRuns: 150 });
});
