import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explainPlan, physicalRules, planStatement } from '../../src/planner/index.js';
import { resolveKeyLookupTargets } from '../../src/exec/operators/key-lookup.js';
import { buildOperator } from '../../src/exec/operators/build-operator.js';
import { resolveRuntimeFilterTargets } from '../../src/exec/operators/runtime-filter.js';
import { planInputs } from '../../src/exec/plan/physical-plan.js';
import type { HashJoinPlan, PhysicalPlan } from '../../src/exec/plan/physical-plan.js';
import { bindLogicalQuery } from '../../src/sql/binder/bind-logical-query.js';
import { parseStatements } from '../../src/sql/index.js';
import { stubEnv } from '../sql/stub-env.js';
import { planText } from './plan-text.js';

function planOf(sql: string, disabled: readonly string[] = []): PhysicalPlan {
  return planStatement(bindLogicalQuery(parseStatements(sql)[0]!, stubEnv()), { disabledRules: new Set(disabled) });
}

/** The first hash join of a plan, depth first. */
function joinOf(p: PhysicalPlan): HashJoinPlan {
  if (p.kind === 'hashJoin') return p;
  for (const i of planInputs(p)) {
    try { return joinOf(i); } catch { /* not under this input */ }
  }
  throw new Error('no hash join');
}

const isXX000 = (e: unknown): boolean => (e as { sqlstate?: string }).sqlstate === 'XX000';

const INNER = 'select * from orders o join customers c on o.o_cust = c.c_id';
const LEFT = 'select * from orders o left join customers c on o.o_cust = c.c_id';

test('the physical rules, in the order each node meets them', () => {
  assert.deepEqual(physicalRules.map((r) => r.name), ['join-build-side', 'runtime-filter-targets', 'key-range-aggregate', 'aggregate-in-workers']);
});

test('join-build-side: each join type gets its read-ahead policy, named in EXPLAIN; disabled, the right input builds as planned', () => {
  assert.equal(joinOf(planOf(INNER)).buildSide, 'smallLeft');
  assert.match(planText(INNER), /Build Side: right input, or the left one if it ends within 50000 rows/);
  assert.equal(joinOf(planOf(LEFT)).buildSide, 'smallLeftProbeFirst');
  assert.match(planText(LEFT), /Build Side: right input, or the left one if it ends within 250000 rows and the right holds more than 50000/);
  for (const sql of [INNER, LEFT]) {
    assert.equal(joinOf(planOf(sql, ['join-build-side'])).buildSide, undefined, sql);
    assert.doesNotMatch(planText(sql, ['join-build-side']), /^\s+Build Side: /m, sql);
  }
  const full = joinOf(planOf('select * from orders o full join customers c on o.o_cust = c.c_id'));
  assert.equal(full.buildSide, 'right');
});

test('runtime-filter-targets: the scans each side\'s keys filter, as paths the operator resolves; EXPLAIN names them; disabled, none', () => {
  const inner = joinOf(planOf(INNER));
  const probe = resolveRuntimeFilterTargets(inner.left, inner.runtimeFilters?.probe ?? [], inner.leftKeys, inner.rightKeys);
  assert.equal(probe.length, 1);
  assert.equal(probe[0]!.scan.kind, 'lakeScan');
  assert.match(planText(INNER), /Runtime Filters: (orders\.o_cust|customers\.c_id)\n/);
  // A left join keeps its unmatched probe rows: only a small left side's keys filter the right side's scans.
  const left = joinOf(planOf(LEFT));
  assert.deepEqual(left.runtimeFilters?.probe, []);
  assert.equal(resolveRuntimeFilterTargets(left.right, left.runtimeFilters?.build ?? [], left.rightKeys, left.leftKeys)[0]?.scan.table.name, 'customers');
  assert.match(planText(LEFT), /Runtime Filters on Build Side: customers\.c_id\n/);
  assert.doesNotMatch(planText(LEFT), /Runtime Filters: /);
  for (const sql of [INNER, LEFT]) {
    assert.equal(joinOf(planOf(sql, ['runtime-filter-targets'])).runtimeFilters, undefined, sql);
    assert.doesNotMatch(planText(sql, ['runtime-filter-targets']), /Runtime Filters/, sql);
  }
});

test('runtime-filter-targets: a probe-side scan whose whole primary key the join keys give is looked up by key, through a value-keeping cast too', () => {
  // customers (c_id) probed by orders' o_cust: the planner's build side is orders.
  const lookup = 'select * from customers c join (select * from orders where o_amount > 5) o on o.o_cust = c.c_id';
  const join = joinOf(planOf(lookup));
  const targets = resolveKeyLookupTargets(join.left, join.runtimeFilters?.lookups ?? []);
  assert.equal(targets.length, 1, planText(lookup));
  assert.equal(targets[0]!.scan.table.name, 'customers');
  assert.deepEqual(targets[0]!.keys, [0]);
  assert.match(planText(lookup), /Key Lookups: customers \(c_id\), when the build has at most 4,096 rows/);
  // o_id is int8 and c_id int4: the key is c_id::int8, which keeps every value.
  const cast = 'select * from customers c join orders o on o.o_id = c.c_id';
  assert.match(planText(cast), /Key Lookups: (customers \(c_id\)|orders \(o_id\))/);
  // The key is not all there (items has none; a filter on a non-key column is no key).
  assert.doesNotMatch(planText('select * from orders o join sales.items i on i.i_id = o.o_cust'), /Key Lookups/);
  assert.doesNotMatch(planText(lookup, ['runtime-filter-targets']), /Key Lookups/);
});

test('keep-scans-decoded: only in the plan of a statement that rereads (an incremental refresh), every lake scan but a point read', () => {
  const bound = () => bindLogicalQuery(parseStatements(INNER)[0]!, stubEnv());
  const scans = (p: PhysicalPlan): PhysicalPlan[] => (p.kind === 'lakeScan' ? [p] : planInputs(p).flatMap(scans));
  const once = scans(planStatement(bound()));
  const again = scans(planStatement(bound(), { rereads: true }));
  assert.equal(again.length, 2);
  assert.ok(once.every((s) => s.kind === 'lakeScan' && s.keepDecoded === undefined));
  assert.ok(again.every((s) => s.kind === 'lakeScan' && s.keepDecoded === true));
  assert.match(explainPlan(planStatement(bound(), { rereads: true })).join('\n'), /Row Groups Kept: decoded, in the reading thread's row-group cache, for the next run/);
  const point = scans(planStatement(bindLogicalQuery(parseStatements('select * from customers where c_id = 3')[0]!, stubEnv()), { rereads: true }));
  assert.ok(point.every((s) => s.kind === 'lakeScan' && s.pointRead === true && s.keepDecoded === undefined));
  const disabled = scans(planStatement(bound(), { rereads: true, disabledRules: new Set(['keep-scans-decoded']) }));
  assert.ok(disabled.every((s) => s.kind === 'lakeScan' && s.keepDecoded === undefined));
});

test('run-union-inputs-together: UNION ALL only, and only in the plan of a statement whose rows nothing reads in order', () => {
  const setOps = (p: PhysicalPlan): PhysicalPlan[] => [...(p.kind === 'setOp' ? [p] : []), ...planInputs(p).flatMap(setOps)];
  const plan = (sql: string, options: Parameters<typeof planStatement>[1] = {}) => planStatement(bindLogicalQuery(parseStatements(sql)[0]!, stubEnv()), options);
  const all = 'select o_id from orders union all select c_id from customers union all select o_cust from orders';
  const concurrent = (p: PhysicalPlan) => setOps(p).map((s) => s.kind === 'setOp' && s.concurrent === true);
  assert.deepEqual(concurrent(plan(all)), [false, false]);
  assert.deepEqual(concurrent(plan(all, { rowOrderFree: true })), [true, true]);
  assert.match(explainPlan(plan(all, { rowOrderFree: true })).join('\n'), /Inputs: run at once, rows in arrival order/);
  assert.doesNotMatch(explainPlan(plan(all)).join('\n'), /Inputs: run at once/);
  // UNION dedupes as it goes; INTERSECT and EXCEPT read one side first.
  assert.deepEqual(concurrent(plan('select o_id from orders union select c_id from customers', { rowOrderFree: true })), [false]);
  assert.deepEqual(concurrent(plan('select o_id from orders except all select c_id from customers', { rowOrderFree: true })), [false]);
  assert.deepEqual(concurrent(plan(all, { rowOrderFree: true, disabledRules: new Set(['run-union-inputs-together']) })), [false, false]);
});

test('operators refuse a decided plan they cannot run when they are built (XX000)', () => {
  const inner = joinOf(planOf(INNER));
  assert.doesNotThrow(() => buildOperator(inner));
  assert.throws(() => buildOperator({ ...inner, runtimeFilters: { probe: [{ path: [7], column: 0, key: 0 }], build: [] } }), isXX000);
  assert.throws(() => buildOperator({ ...inner, runtimeFilters: { probe: [{ path: [], column: 0, key: 3 }], build: [] } }), isXX000);
  assert.throws(() => buildOperator({ ...inner, joinType: 'full', columns: inner.columns, buildSide: 'smallLeft' }), isXX000);
  const values: PhysicalPlan = { kind: 'values', rows: [], columns: [{ name: 'k', type: { kind: 'int4' } }] };
  const aggregate: PhysicalPlan = {
    kind: 'hashAggregate', input: values, groupBy: [{ kind: 'column', index: 0, type: { kind: 'int4' } }], aggregates: [],
    columns: [{ name: 'k', type: { kind: 'int4' } }],
  };
  assert.doesNotThrow(() => buildOperator(aggregate));
  assert.throws(() => buildOperator({ ...aggregate, strategy: 'partialPerTask' }), isXX000, 'a Values input does not ship to the workers');
});
