import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AggregateCall, Expr } from '../../src/exec/index.js';
import { lazyBatch } from '../../src/exec/arrow/columnar-batch.js';
import { decodeColumn, valuesColumn } from '../../src/exec/arrow/column-source.js';
import { AggregateTable } from '../../src/exec/aggregate/aggregate-table.js';
import { BufferedStates } from '../../src/exec/aggregate/buffered-states.js';
import { compileAggregation } from '../../src/exec/aggregate/compile-aggregation.js';
import type { AggregateSpec } from '../../src/exec/aggregate/compile-aggregation.js';
import { CompositeKeyGroups } from '../../src/exec/aggregate/composite-key-groups.js';
import { GrandTotalKeys } from '../../src/exec/aggregate/grand-total-keys.js';
import { chooseGroupKeys } from '../../src/exec/aggregate/group-keys.js';
import { chooseGroupStates } from '../../src/exec/aggregate/group-states.js';
import { GroupingSetKeys } from '../../src/exec/aggregate/grouping-set-keys.js';
import { RowStates } from '../../src/exec/aggregate/row-states.js';
import { SingleKeyGroups } from '../../src/exec/aggregate/single-key-groups.js';
import { TextKeyGroups } from '../../src/exec/aggregate/text-key-groups.js';
import { TypedStates } from '../../src/exec/aggregate/typed-states.js';
import { createRunState } from '../../src/exec/run-state.js';
import { aggId, col, t } from './exec-test-helpers.js';

const run = createRunState({ params: [], settings: new Map(), transactionStartMicros: 0n });

function call(name: string, args: Expr[], distinct = false): AggregateCall {
  const a = aggId(name, ...args.map((x) => x.type));
  return { fn: a.id, args, distinct, type: a.type };
}

const spec = (groupBy: Expr[], more: Partial<AggregateSpec> = {}): AggregateSpec => ({ groupBy, aggregates: [call('count', [])], ...more });

test('chooseGroupKeys picks one route per way of keying', () => {
  const cases: [AggregateSpec, new (...a: never[]) => unknown][] = [
    [spec([]), GrandTotalKeys],
    [spec([col(0, t.int4)]), SingleKeyGroups],
    [spec([col(1, t.numeric)]), SingleKeyGroups],
    [spec([col(2, t.text)]), TextKeyGroups],
    [spec([col(0, t.int4), col(2, t.text)]), CompositeKeyGroups],
    [spec([col(0, t.int4), col(2, t.text)], { groupingSets: [[0], [1], []] }), GroupingSetKeys],
  ];
  for (const [s, route] of cases) assert.ok(chooseGroupKeys(compileAggregation(s), 0) instanceof route, `${route.name} for ${JSON.stringify(s.groupBy)}`);
});

test('chooseGroupStates: typed columns where the aggregate has them, the row adapter otherwise, buffers for DISTINCT', () => {
  const c = compileAggregation(spec([], {
    aggregates: [call('count', []), call('string_agg', [col(2, t.text), col(2, t.text)]), call('count', [col(0, t.int4)], true)],
  }));
  assert.deepEqual(c.aggs.map((ag) => chooseGroupStates(ag).constructor), [TypedStates, RowStates, BufferedStates]);
  const objects = compileAggregation(spec([], { aggregates: [call('count', [])] }), { columnar: false });
  assert.ok(chooseGroupStates(objects.aggs[0]!) instanceof RowStates);
});

test('every route groups the same rows alike: int, numeric, text, composite keys and grouping sets', async () => {
  // Keys as values: 0 int4, 1 numeric (0.50 = 0.5), 2 text.
  const rows: [number | null, string | null, string | null][] = [
    [1, '0.50', 'a'], [2, '0.5', 'b'], [1, '1', 'a'], [null, null, null], [2, '0.50', 'b'], [null, '1.0', 'a'], [1, '0.5', null],
  ];
  const batch = lazyBatch(rows.length, [0, 1, 2].map((k) => valuesColumn(rows.map((r) => r[k] ?? null))));
  const groups = async (s: AggregateSpec) => {
    const table = new AggregateTable(compileAggregation(s));
    await table.sink(batch, run);
    table.ensureEmptySets();
    const { columns, numRows } = table.finish(s.groupingSets !== undefined);
    const values = columns.map(decodeColumn);
    return Array.from({ length: numRows }, (_, g) => values.map((col) => String(col[g])).join('|')).sort();
  };
  assert.deepEqual(await groups(spec([])), ['7']);
  assert.deepEqual(await groups(spec([col(0, t.int4)])), ['1|3', '2|2', 'null|2']);
  assert.deepEqual(await groups(spec([col(1, t.numeric)])), ['0.50|4', '1|2', 'null|1']);
  assert.deepEqual(await groups(spec([col(2, t.text)])), ['a|3', 'b|2', 'null|2']);
  assert.deepEqual(await groups(spec([col(0, t.int4), col(2, t.text)])), ['1|a|2', '1|null|1', '2|b|2', 'null|a|1', 'null|null|1']);
  assert.deepEqual(await groups(spec([col(0, t.int4), col(2, t.text)], { groupingSets: [[0], []] })), ['1|null|3|1', '2|null|2|1', 'null|null|2|1', 'null|null|7|3']);
});
