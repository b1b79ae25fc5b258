import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainPlan, type ScanReport } from '../../src/planner/index.js';
import type { LakeScanPlan, PhysicalPlan } from '../../src/exec/plan/physical-plan.js';
import { bind, physical } from '../sql/bind-helpers.js';

function planOf(sql: string): PhysicalPlan {
  const b = bind(sql);
  assert.ok(b.kind === 'query' || b.kind === 'dml');
  return physical(b);
}

function findScan(p: PhysicalPlan): LakeScanPlan {
  if (p.kind === 'lakeScan') return p;
  for (const k of ['input', 'left', 'right'] as const) {
    const child = (p as unknown as Record<string, PhysicalPlan | undefined>)[k];
    if (child) {
      try { return findScan(child); } catch { /* try the next input */ }
    }
  }
  throw new Error('no lake scan');
}

test('EXPLAIN shows scan tasks and pruning when the lake reports them', () => {
  const plan = planOf("select o_id from orders where o_ts >= '2024-01-01 00:00:00+00' and o_id = 7");
  const scan = findScan(plan);
  const report: ScanReport = {
    snapshotId: 12n, tasks: 3, pushdown: ['inexact', 'exact'],
    stats: { partitionsTotal: 30, partitionsPruned: 28, filesTotal: 40, filesPruned: 35, nodesScanned: 1, nodesPruned: 7, changeFiles: 2, baseFiles: 3 },
  };
  const text = explainPlan(plan, new Map([[scan, report]])).join('\n');
  assert.match(text, /Lake Scan on public\.orders/);
  assert.match(text, /Pushed Filters: o_ts >= 1704067200000000 \[inexact\], o_id = 7 \[exact\]/);
  assert.match(text, /Scan Tasks: 3 \(snapshot 12\)/);
  assert.match(text, /Partitions: 2 of 30 \(pruned 28\)/);
  assert.match(text, /Files: 5 of 40 \(pruned 35; base 3, change 2\)/);
  assert.match(text, /Bucket Nodes: 1 scanned, 7 pruned/);
});

test('EXPLAIN of DML and time travel', () => {
  assert.match(explainPlan(planOf('delete from orders$branch_dev where o_id = 1')).join('\n'), /^Delete on public\.orders \(branch dev\)\n->  Lake Scan on public\.orders at ref dev/);
  assert.match(explainPlan(planOf('select * from orders for system_version as of 3')).join('\n'), /Lake Scan on public\.orders at version 3/);
  assert.match(explainPlan(planOf('insert into orders (o_id) values (1) on conflict (o_id) do nothing')).join('\n'), /Insert on public\.orders\n\s+Conflict Resolution: NOTHING\n->  Values \(1 row\)/);
});

test('EXPLAIN prints subquery plans under the node that evaluates them', () => {
  const text = explainPlan(planOf('select o_id, (select c_name from customers c where c.c_id = o.o_cust) from orders o')).join('\n');
  assert.match(text, /^Project\n\s+Output: o_id, \(SubPlan correlated\) AS c_name\n\s+SubPlan 1 \(correlated\)\n\s+->  (Project|Lake Scan on public\.customers)/);
  assert.match(text, /Filter: \(c_id = outer1\.o_cust\)/);
});
