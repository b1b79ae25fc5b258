import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Int32, Utf8, vectorFromArray } from 'apache-arrow';
import { lazyBatch } from '../../src/exec/arrow/columnar-batch.js';
import { arrowColumn, valuesColumn } from '../../src/exec/arrow/column-source.js';
import type { ColumnarBatch } from '../../src/exec/arrow/columnar-batch.js';
import type { OutputColumn, PhysicalPlan, TopNPlan } from '../../src/exec/plan/physical-plan.js';
import type { Operator } from '../../src/exec/operators/operator.js';
import { createTopNOperator } from '../../src/exec/operators/top-n-operator.js';
import { createRunState } from '../../src/exec/run-state.js';
import { col, lit, t } from './exec-test-helpers.js';

/*
 * ORDER BY … LIMIT/OFFSET over many batches against a stable sort of all rows:
 * ties keep arrival order, NULLs go where the key says, and the payload columns
 * (Arrow data with selections, or values) come out with their own rows, whether
 * a row was passed over on its keys or kept.
 */

const columns: OutputColumn[] = [{ name: 'k', type: t.int4 }, { name: 'id', type: t.int4 }, { name: 'note', type: t.text }];
type Row = [number | null, number, string | null];

interface BatchSpec { readonly rows: Row[]; readonly arrow: boolean; readonly selection: boolean }

/** Keys from a small range (many ties) with NULLs; id numbers rows in arrival order. */
const batchesArb = fc.array(fc.record({
  keys: fc.array(fc.option(fc.integer({ min: 0, max: 30 }), { nil: null, freq: 8 }), { minLength: 0, maxLength: 700 }),
  arrow: fc.boolean(),
  selection: fc.boolean(),
}), { minLength: 1, maxLength: 6 }).map((specs) => {
  let id = 0;
  return specs.map((s): BatchSpec => ({
    rows: s.keys.map((k): Row => { const i = id++; return [k, i, i % 4 === 0 ? null : `row ${i}`]; }),
    arrow: s.arrow,
    selection: s.selection,
  }));
});

/** The batch as the operator receives it: values, or Arrow data standing for some rows of a larger data (padding rows around them). */
function columnarBatch(b: BatchSpec): ColumnarBatch {
  if (!b.arrow) return lazyBatch(b.rows.length, columns.map((_, c) => valuesColumn(b.rows.map((r) => r[c]))));
  if (!b.selection) {
    return lazyBatch(b.rows.length, columns.map((c, ci) => arrowColumn(dataOf(b.rows.map((r) => r[ci]), c.type.kind === 'text'), c.type)));
  }
  const padded = b.rows.flatMap((r): Row[] => [[-1, -1, 'padding'], r]);
  const sel = Int32Array.from(b.rows, (_, i) => 2 * i + 1);
  return lazyBatch(b.rows.length, columns.map((c, ci) => arrowColumn(dataOf(padded.map((r) => r[ci]), c.type.kind === 'text'), c.type, sel)));
}

function dataOf(values: unknown[], text: boolean) {
  return text ? vectorFromArray(values as (string | null)[], new Utf8()).data[0]! : vectorFromArray(values as (number | null)[], new Int32()).data[0]!;
}

function inputOf(batches: readonly BatchSpec[]): Operator {
  const plan: PhysicalPlan = { kind: 'values', columns, rows: [] };
  return {
    plan, columns,
    async *execute() { for (const b of batches) yield columnarBatch(b); },
  };
}

async function topN(batches: readonly BatchSpec[], descending: boolean, nullsFirst: boolean, limit: number, offset: number): Promise<Row[]> {
  const input = inputOf(batches);
  const plan: TopNPlan = {
    kind: 'topN', input: input.plan, keys: [{ expr: col(0, t.int4), descending, nullsFirst }],
    limit: lit(BigInt(limit), t.int8), offset: lit(BigInt(offset), t.int8), columns,
  };
  const out: Row[] = [];
  for await (const b of createTopNOperator(plan, input).execute(createRunState({ params: [], settings: new Map(), transactionStartMicros: 0n }))) {
    for (let i = 0; i < b.numRows; i++) out.push(columns.map((_, c) => b.columns[c]![i]) as Row);
  }
  return out;
}

/** What a stable sort of every row gives. */
function expected(batches: readonly BatchSpec[], descending: boolean, nullsFirst: boolean, limit: number, offset: number): Row[] {
  const rows = batches.flatMap((b) => b.rows);
  const order = (a: Row, b: Row): number => {
    if (a[0] === null || b[0] === null) return a[0] === b[0] ? 0 : (a[0] === null) === nullsFirst ? -1 : 1;
    return descending ? b[0] - a[0] : a[0] - b[0];
  };
  return rows.sort(order).slice(offset, offset + limit);
}

test('top-N keeps what a stable sort of every row keeps, payload columns with their rows', async () => {
  await fc.assert(fc.asyncProperty(
    batchesArb, fc.boolean(), fc.boolean(), fc.integer({ min: 1, max: 1500 }), fc.integer({ min: 0, max: 40 }),
    async (batches, descending, nullsFirst, limit, offset) => {
      assert.deepEqual(await topN(batches, descending, nullsFirst, limit, offset), expected(batches, descending, nullsFirst, limit, offset));
    },
  ), { numRuns: 80 });
});

test('top-N over more rows than its buffer: the rows passed over on their keys leave the result as a full sort would', async () => {
  // 20 batches of 600 rows with 31 distinct keys: the buffer fills and prunes many times.
  let id = 0;
  const batches: BatchSpec[] = Array.from({ length: 20 }, (_, b) => ({
    rows: Array.from({ length: 600 }, (): Row => { const i = id++; return [(i * 7919) % 31, i, `row ${i}`]; }),
    arrow: b % 2 === 0,
    selection: b % 3 === 0,
  }));
  for (const [limit, offset] of [[1, 0], [20, 0], [20, 5], [700, 3], [5000, 0]] as const) {
    assert.deepEqual(await topN(batches, true, false, limit, offset), expected(batches, true, false, limit, offset), `limit ${limit} offset ${offset}`);
  }
});

test('top-N over one batch larger than its buffer: the batch is pruned part way and the result is still a full sort\'s', async () => {
  // One batch of 5000 rows, 31 distinct keys, NULLs: rows after the first prune are passed over on their keys.
  for (const [arrow, selection] of [[false, false], [true, false], [true, true]] as const) {
    const rows = Array.from({ length: 5000 }, (_, i): Row => [i % 97 === 0 ? null : (i * 7919) % 31, i, `row ${i}`]);
    const batches: BatchSpec[] = [{ rows, arrow, selection }];
    for (const [limit, offset, nullsFirst] of [[10, 0, false], [10, 3, true], [600, 0, false], [3000, 10, true]] as const) {
      assert.deepEqual(await topN(batches, true, nullsFirst, limit, offset), expected(batches, true, nullsFirst, limit, offset), `arrow ${arrow} selection ${selection} limit ${limit} offset ${offset}`);
    }
  }
});
