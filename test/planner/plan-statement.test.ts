import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MaterializedCte, PhysicalPlan } from '../../src/exec/plan/physical-plan.js';
import { explainPlan, planStatement } from '../../src/planner/index.js';
import { bind } from '../sql/bind-helpers.js';

/** Every object reachable from `root` whose `kind` is `kind` (plans, expressions, nested plans). */
function nodesOfKind(root: unknown, kind: string): object[] {
  const found: object[] = [];
  const seen = new Set<object>();
  const visit = (v: unknown): void => {
    if (v === null || typeof v !== 'object' || seen.has(v) || ArrayBuffer.isView(v)) return;
    seen.add(v);
    if ((v as { kind?: unknown }).kind === kind) found.push(v);
    for (const x of Object.values(v)) visit(x);
  };
  visit(root);
  return found;
}

function logicalOf(sql: string): Parameters<typeof planStatement>[0] {
  const b = bind(sql);
  assert.ok(b.kind === 'query' || b.kind === 'dml', sql);
  return b.logical;
}

test('the binder leaves subqueries logical; planStatement plans every one of them', () => {
  const logical = logicalOf('select o_id, (select max(c_id) from customers) from orders where exists (select 1 from customers where c_id = 7)');
  assert.ok(nodesOfKind(logical, 'unplannedSubquery').length > 0, 'the bound plan holds logical subqueries');
  assert.equal(nodesOfKind(logical, 'lakeScan').length, 0, 'and nothing physical');
  const physical = planStatement(logical);
  assert.deepEqual(nodesOfKind(physical, 'unplannedSubquery'), []);
  assert.match(explainPlan(physical).join('\n'), /SubPlan 1/);
});

test('a WITH query read by the query and by a subquery is planned once, for both readers', () => {
  const physical = planStatement(logicalOf('with c as materialized (select c_id from customers) select c_id, (select count(*) from c) from c'));
  const scans = nodesOfKind(physical, 'cteScan') as { cte: MaterializedCte }[];
  assert.equal(scans.length, 2);
  assert.equal(scans[0]!.cte, scans[1]!.cte, 'one MaterializedCte object, so the executor computes it once');
});

test('a lateral right side and recursive terms are planned as nested plans', () => {
  const lateral = planStatement(logicalOf('select o_id, x.n from orders, lateral (select count(*) as n from customers where c_id = o_cust) x'));
  const [join] = nodesOfKind(lateral, 'lateralJoin') as { right: PhysicalPlan }[];
  assert.ok(join !== undefined && nodesOfKind(join.right, 'lakeScan').length === 1);
  const recursive = planStatement(logicalOf('with recursive r(n) as (select 1 union all select n + 1 from r where n < 3) select n from r'));
  const [union] = nodesOfKind(recursive, 'recursiveUnion') as { left: PhysicalPlan; right: PhysicalPlan }[];
  assert.ok(union !== undefined && nodesOfKind(union.left, 'workTableScan').length === 0 && nodesOfKind(union.right, 'workTableScan').length === 1);
});

test('disabled rules are skipped in nested plans too', () => {
  const sql = 'select o_id, (select max(c_name) from customers where c_id = 3) from orders';
  const pushed = explainPlan(planStatement(logicalOf(sql))).join('\n');
  const kept = explainPlan(planStatement(logicalOf(sql), { disabledRules: new Set(['push-filter-into-scan']) })).join('\n');
  assert.match(pushed, /Pushed Filters: c_id = 3/);
  assert.doesNotMatch(kept, /Pushed Filters/);
  assert.match(kept, /->  Filter/);
});

test('planning is pure: the same bound statement plans to the same text each time', () => {
  const logical = logicalOf('with c as materialized (select * from customers) select o_id from orders join c on c_id = o_cust where o_amount > (select 1)');
  assert.equal(explainPlan(planStatement(logical)).join('\n'), explainPlan(planStatement(logical)).join('\n'));
});
