import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planStatement } from '../../src/planner/index.js';
import { KEY_RANGE_MIN_ROWS } from '../../src/planner/physical/rules/key-range-aggregate.js';
import type { HashAggregatePlan, PhysicalPlan } from '../../src/exec/plan/physical-plan.js';
import { bindLogicalQuery } from '../../src/sql/binder/bind-logical-query.js';
import { parseStatements } from '../../src/sql/index.js';
import { stubEnv } from '../sql/stub-env.js';

const SPANS = { o_id: [1, 4_000_000] as const, o_cust: [1, 4_000_000] as const, c_id: [1, 4_000_000] as const };

/** The physical plan of `sql` over tables of `rows` rows whose key columns span SPANS (or `spans`), with some rules disabled. */
function planOf(sql: string, rows = KEY_RANGE_MIN_ROWS, spans: Record<string, readonly [number, number]> = SPANS, disabled: readonly string[] = []): PhysicalPlan {
  const env = { ...stubEnv(), estimateRows: () => rows, columnRanges: () => spans };
  return planStatement(bindLogicalQuery(parseStatements(sql)[0]!, env), { disabledRules: new Set(disabled) });
}

/** The first hash aggregate of the plan of `sql`, and the node above it. */
function physicalAggregateOf(sql: string, rows?: number, spans?: Record<string, readonly [number, number]>, disabled?: readonly string[]): { aggregate: HashAggregatePlan; parent: PhysicalPlan | undefined } {
  let parent: PhysicalPlan | undefined;
  let p = planOf(sql, rows, spans, disabled);
  while (p.kind !== 'hashAggregate') { parent = p; p = (p as { input: PhysicalPlan }).input; }
  return { aggregate: p, parent };
}

const aggregateOf = (sql: string, rows?: number, spans?: Record<string, readonly [number, number]>): HashAggregatePlan => physicalAggregateOf(sql, rows, spans).aggregate;

test('an aggregate over one big scan grouped by its leading key column is split by ranges of that key', () => {
  assert.deepEqual(aggregateOf('select o_id, sum(o_amount) from orders group by o_id').keyRangeSplit, { key: 0, column: 'o_id', min: 1, max: 4_000_000 });
  // Through a filter and a projection, and as the second key (the first being computed).
  assert.deepEqual(
    aggregateOf('select o_cust % 3, o_id, count(*) from (select o_id * 1 as x, o_id, o_cust from orders where o_amount > 5) s group by o_cust % 3, o_id').keyRangeSplit,
    { key: 1, column: 'o_id', min: 1, max: 4_000_000 },
  );
  assert.deepEqual(aggregateOf('select c_id, c_name, count(*) from customers group by c_id, c_name').keyRangeSplit?.column, 'c_id');
});

test('no split for a small table, a key of few values, another column, a join, a missing span or DISTINCT', () => {
  const none = (sql: string, rows?: number, spans?: Record<string, readonly [number, number]>) => assert.equal(aggregateOf(sql, rows, spans).keyRangeSplit, undefined, sql);
  none('select o_id, count(*) from orders group by o_id', KEY_RANGE_MIN_ROWS - 1);
  none('select o_id, count(*) from orders group by o_id', KEY_RANGE_MIN_ROWS, { o_id: [1, KEY_RANGE_MIN_ROWS / 32] });
  none('select o_id, count(*) from orders group by o_id', KEY_RANGE_MIN_ROWS, {});
  none('select o_cust, count(*) from orders group by o_cust');
  none('select o_id + 1, count(*) from orders group by o_id + 1');
  none('select o_id, count(*) from orders join customers on o_cust = c_id group by o_id');
  none('select o_id, count(distinct o_cust) from orders group by o_id');
  none('select o_id, count(*) from (select * from orders limit 10) s group by o_id');
  none('select i_id, count(*) from sales.items group by i_id', KEY_RANGE_MIN_ROWS, { i_id: [1, 4_000_000] });
});

test('a HAVING over a split aggregate is applied by the aggregate (in its workers); one with a subquery, or over an unsplit aggregate, stays a Filter', () => {
  const split = physicalAggregateOf('select o_id, sum(o_amount) from orders group by o_id having sum(o_amount) > 300 and count(*) > 1');
  assert.equal(split.aggregate.keyRangeSplit?.column, 'o_id');
  assert.ok(split.aggregate.having, 'the HAVING rides on the aggregate');
  assert.notEqual(split.parent?.kind, 'filter');
  const withSubquery = physicalAggregateOf('select o_id, sum(o_amount) from orders group by o_id having sum(o_amount) > (select max(c_id) from customers)');
  assert.equal(withSubquery.aggregate.having, undefined);
  assert.equal(withSubquery.parent?.kind, 'filter');
  const unsplit = physicalAggregateOf('select o_cust, count(*) from orders group by o_cust having count(*) > 2');
  assert.equal(unsplit.aggregate.keyRangeSplit, undefined);
  assert.equal(unsplit.aggregate.having, undefined);
  assert.equal(unsplit.parent?.kind, 'filter');
});

test('the split and where the aggregate runs are physical rules: EXPLAIN names them, disabling one by name undoes it', () => {
  const sql = 'select o_id, sum(o_amount) from orders group by o_id having count(*) > 1';
  const split = physicalAggregateOf(sql);
  assert.equal(split.aggregate.strategy, 'keyRanges');
  const noSplit = physicalAggregateOf(sql, undefined, undefined, ['key-range-aggregate']);
  assert.equal(noSplit.aggregate.keyRangeSplit, undefined);
  assert.equal(noSplit.aggregate.strategy, 'partialPerTask');
  assert.equal(noSplit.parent?.kind, 'filter', 'the HAVING stays a Filter');
  const here = physicalAggregateOf(sql, undefined, undefined, ['aggregate-in-workers']);
  assert.equal(here.aggregate.strategy, undefined);
  assert.equal(here.aggregate.keyRangeSplit?.column, 'o_id');
  assert.equal(physicalAggregateOf('select o_cust, count(distinct o_id) from orders group by o_cust').aggregate.strategy, undefined, 'DISTINCT does not ship');
});
