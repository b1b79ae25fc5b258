import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Int32, Utf8, makeVector, vectorFromArray } from 'apache-arrow';
import type { SqlType } from '../../src/common/sql-type.js';
import { lazyBatch } from '../../src/exec/arrow/columnar-batch.js';
import { arrowColumn, decodeColumn, valuesColumn } from '../../src/exec/arrow/column-source.js';
import type { ColumnSource } from '../../src/exec/arrow/column-source.js';
import { vectorToValues } from '../../src/exec/arrow/vector-values.js';
import type { Expr } from '../../src/exec/index.js';
import { AggregateTable } from '../../src/exec/aggregate/aggregate-table.js';
import { compileAggregation } from '../../src/exec/aggregate/compile-aggregation.js';
import type { AggregateSpec } from '../../src/exec/aggregate/compile-aggregation.js';
import { createRunState } from '../../src/exec/run-state.js';
import { aggId, col, t } from './exec-test-helpers.js';

/*
 * GROUP BY keys that the other keys determine (HashAggregatePlan.dependentKeys)
 * are not hashed but kept from each group's first row: the groups and every
 * key value must be what hashing all the keys gives, whether the rows arrive
 * as Arrow data (with selections, one shared build-side data as a join hands
 * on), as decoded values, or in partials merged from other tables.
 */

const run = createRunState({ params: [], settings: new Map(), transactionStartMicros: 0n });

/** Input columns: 0 the key (int4, NULL for a null-extended row), 1 name (text), 2 note (text), 3 int4, all determined by the key. */
const TYPES: SqlType[] = [t.int4, t.text, t.text, t.int4];
type Row = [number | null, string | null, string | null, number | null];

/** Row values for key k: what a table with primary key k holds (a NULL key stands for a null-extended row: all NULL). */
function rowFor(k: number | null): Row {
  if (k === null) return [null, null, null, null];
  return [k, `name ${k}`, k % 5 === 0 ? null : `note ${k} ${'x'.repeat(k % 13)}`, k % 3 === 0 ? null : k * 7];
}

/** Every batch selects rows of one shared "build side" holding each key once, as a join's probe output does. */
const KEYS = 60;
const BUILD: Row[] = [...Array.from({ length: KEYS }, (_, k) => rowFor(k)), rowFor(null)];
const buildData = TYPES.map((type, ci) => (type.kind === 'int4'
  ? vectorFromArray(BUILD.map((r) => r[ci] as number | null), new Int32()).data[0]!
  : vectorFromArray(BUILD.map((r) => r[ci] as string | null), new Utf8()).data[0]!));

interface BatchSpec { readonly rows: number[]; readonly shared: boolean }
const batchArb: fc.Arbitrary<BatchSpec> = fc.record({
  rows: fc.array(fc.nat(KEYS), { minLength: 1, maxLength: 200 }),
  shared: fc.boolean(),
});

/** The batch as Arrow data: rows of the shared build data, or data of its own. */
function arrowBatch(b: BatchSpec) {
  const sources: ColumnSource[] = TYPES.map((type, ci) => {
    if (b.shared) return arrowColumn(buildData[ci]!, type, Int32Array.from(b.rows));
    const own = b.rows.map((r) => BUILD[r]![ci]);
    const data = type.kind === 'int4' ? vectorFromArray(own as (number | null)[], new Int32()).data[0]! : vectorFromArray(own as (string | null)[], new Utf8()).data[0]!;
    return arrowColumn(data, type);
  });
  return lazyBatch(b.rows.length, sources);
}

function valueBatch(b: BatchSpec) {
  return lazyBatch(b.rows.length, TYPES.map((_, ci) => valuesColumn(b.rows.map((r) => BUILD[r]![ci]))));
}

const count = aggId('count');
/** GROUP BY in `order` (column indexes); `dependent`: whether keys other than column 0 are marked dependent. */
function spec(order: number[], dependent: boolean): AggregateSpec {
  return {
    groupBy: order.map((k): Expr => col(k, TYPES[k]!)),
    ...(dependent ? { dependentKeys: order.flatMap((k, i) => (k === 0 ? [] : [i])) } : {}),
    aggregates: [{ fn: count.id, args: [], distinct: false, type: count.type }],
  };
}

function rowsOf(table: AggregateTable): string[] {
  const finished = table.finish(false);
  const columns = finished.columns.map(decodeColumn);
  const out: string[] = [];
  for (let r = 0; r < finished.numRows; r++) out.push(JSON.stringify(columns.map((c) => (typeof c[r] === 'bigint' ? Number(c[r]) : c[r]))));
  return out.sort();
}

const ORDERS = [[0, 1, 2, 3], [1, 0, 3], [2, 3, 0, 1], [3, 0]];

test('dependent keys give the groups and key values of hashing every key', async () => {
  await fc.assert(fc.asyncProperty(fc.array(fc.tuple(batchArb, fc.boolean()), { minLength: 1, maxLength: 5 }), async (batches) => {
    for (const order of ORDERS) {
      const dependent = new AggregateTable(compileAggregation(spec(order, true)));
      const hashed = new AggregateTable(compileAggregation(spec(order, false)));
      for (const [b, arrow] of batches) {
        await dependent.sink(arrow ? arrowBatch(b) : valueBatch(b), run);
        await hashed.sink(valueBatch(b), run);
      }
      const got = rowsOf(dependent);
      assert.deepEqual(got, rowsOf(hashed), `order ${order}`);
      assert.equal(got.length, new Set(batches.flatMap(([b]) => b.rows)).size);
    }
  }), { numRuns: 60 });
});

test('dependent keys travel in partials and merge into tables that began them elsewhere', async () => {
  await fc.assert(fc.asyncProperty(fc.array(fc.tuple(batchArb, fc.nat(1)), { minLength: 2, maxLength: 5 }), async (batches) => {
    for (const order of ORDERS) {
      const s = compileAggregation(spec(order, true));
      const main = new AggregateTable(s);
      const worker = new AggregateTable(s);
      const oracle = new AggregateTable(compileAggregation(spec(order, false)));
      for (const [b, where] of batches) {
        await (where === 0 ? main : worker).sink(arrowBatch(b), run);
        await oracle.sink(valueBatch(b), run);
      }
      main.merge(structuredClone(worker.partial()));
      assert.deepEqual(rowsOf(main), rowsOf(oracle), `order ${order}`);
    }
  }), { numRuns: 40 });
});

test('a dependent key of Arrow rows stays Arrow data: one selection of a shared data, one gathered data otherwise', async () => {
  const table = new AggregateTable(compileAggregation(spec([0, 1], true)));
  await table.sink(arrowBatch({ rows: [3, 1, 3, 60], shared: true }), run);
  await table.sink(arrowBatch({ rows: [1, 2, 5], shared: true }), run);
  const shared = table.finish(false).columns[1]!;
  assert.ok(shared.kind === 'arrowRows');
  assert.equal(shared.base, buildData[1], 'groups of one build side select from its data without a copy');
  assert.deepEqual(vectorToValues(makeVector(shared.data), t.text), ['name 3', 'name 1', null, 'name 2', 'name 5']);

  const mixed = new AggregateTable(compileAggregation(spec([0, 1], true)));
  await mixed.sink(arrowBatch({ rows: [4, 9], shared: true }), run);
  await mixed.sink(arrowBatch({ rows: [9, 7], shared: false }), run);
  const gathered = mixed.finish(false).columns[1]!;
  assert.ok(gathered.kind === 'arrow');
  assert.deepEqual(vectorToValues(makeVector(gathered.data), t.text), ['name 4', 'name 9', 'name 7']);
});
