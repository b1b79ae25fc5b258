import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FloeError } from '../../src/common/floe-error.js';
import type { OperatorMetrics } from '../../src/exec/exec-context.js';
import type { PhysicalPlan } from '../../src/exec/plan/physical-plan.js';
import { parseExplainOptions } from '../../src/planner/explain/explain-options.js';
import { explainPlan } from '../../src/planner/index.js';
import { bind, physical } from '../sql/bind-helpers.js';

function planOf(sql: string): PhysicalPlan {
  const b = bind(sql);
  assert.ok(b.kind === 'query');
  return physical(b);
}

function walk(p: PhysicalPlan, f: (p: PhysicalPlan) => void): void {
  f(p);
  for (const k of ['input', 'left', 'right'] as const) {
    const c = (p as unknown as Record<string, PhysicalPlan | undefined>)[k];
    if (c) walk(c, f);
  }
}

const metric = (rows: number, ms: number, extra: Record<string, number> = {}): OperatorMetrics => ({ rowsOut: rows, batchesOut: 1, elapsedNs: BigInt(Math.round(ms * 1e6)), extra });

test('explainPlan with metrics: actual time/rows/loops on every node, scan and join details, never-executed nodes', () => {
  const plan = planOf('select o_id from orders o join customers c on c.c_id = o.o_cust where o.o_id > 5');
  const metrics = new Map<PhysicalPlan, OperatorMetrics>();
  let skipped: PhysicalPlan | undefined;
  walk(plan, (p) => {
    if (p.kind === 'lakeScan' && p.table.name === 'customers') { skipped = p; return; }
    metrics.set(p, metric(p.kind === 'lakeScan' ? 7 : 3, 1.5, p.kind === 'lakeScan'
      ? { rowsScanned: 10, filesTotal: 4, filesPruned: 1, partitionsPruned: 0, nodesPruned: 0, rowGroupsRead: 5, rowGroupsSkippedByStats: 2 }
      : p.kind === 'hashJoin' ? { buildRows: 9 } : {}));
  });
  const text = explainPlan(plan, undefined, { metrics, timing: true }).join('\n');
  assert.match(text, /^\S.* \(actual time=1\.500 ms rows=3 loops=1\)$/m);
  assert.match(text, /Lake Scan on public\.orders \(actual time=1\.500 ms rows=7 loops=1\)/);
  assert.match(text, /Files: 3 scanned, 1 skipped \(of 4;/);
  assert.match(text, /Row Groups: 5 read, 2 skipped \(min\/max 2, key hash 0\)/);
  assert.match(text, /Rows Scanned: 10/);
  assert.match(text, /Build Rows: 9/);
  assert.ok(skipped);
  assert.match(text, /Lake Scan on public\.customers \(never executed\)/);
  const untimed = explainPlan(plan, undefined, { metrics, timing: false }).join('\n');
  assert.doesNotMatch(untimed, /actual time/);
  assert.match(untimed, /\(actual rows=7 loops=1\)/);
  // A first-batch time, when the executor records it, prints as first..total.
  const first = new Map(metrics);
  first.set(plan, metric(3, 2, { firstBatchNs: 500000 }));
  assert.match(explainPlan(plan, undefined, { metrics: first, timing: true })[0]!, /\(actual time=0\.500\.\.2\.000 ms rows=3 loops=1\)$/);
  // Plain EXPLAIN has no actuals.
  assert.doesNotMatch(explainPlan(plan).join('\n'), /actual/);
});

const code = (f: () => unknown): string | undefined => {
  try { f(); return undefined; } catch (e) { return e instanceof FloeError ? e.sqlstate : 'not a FloeError'; }
};

test('parseExplainOptions follows PostgreSQL: booleans, TIMING needs ANALYZE, TEXT and JSON, unknown options rejected', () => {
  assert.deepEqual(parseExplainOptions([]), { analyze: false, verbose: false, timing: false, summary: false, format: 'text' });
  assert.deepEqual(parseExplainOptions([{ name: 'ANALYZE' }]), { analyze: true, verbose: false, timing: true, summary: true, format: 'text' });
  assert.deepEqual(parseExplainOptions([{ name: 'analyze', value: 'on' }, { name: 'timing', value: 'off' }, { name: 'costs', value: 'off' }, { name: 'buffers' }, { name: 'format', value: 'text' }]),
    { analyze: true, verbose: false, timing: false, summary: true, format: 'text' });
  assert.equal(parseExplainOptions([{ name: 'analyze', value: 0 }, { name: 'verbose', value: 'y' }]).verbose, true);
  assert.equal(parseExplainOptions([{ name: 'analyze' }, { name: 'summary', value: false }]).summary, false);
  assert.equal(code(() => parseExplainOptions([{ name: 'timing' }])), '22023');
  assert.equal(code(() => parseExplainOptions([{ name: 'analyze', value: 'maybe' }])), '22023');
  assert.equal(parseExplainOptions([{ name: 'format', value: 'json' }]).format, 'json');
  assert.equal(code(() => parseExplainOptions([{ name: 'format', value: 'yaml' }])), '0A000');
  assert.equal(code(() => parseExplainOptions([{ name: 'format', value: 'csv' }])), '22023');
  assert.equal(code(() => parseExplainOptions([{ name: 'frobnicate' }])), '42601');
});

test('a key-range split aggregate: EXPLAIN names the key, ANALYZE how many ranges the workers finished', () => {
  const scan: PhysicalPlan = {
    kind: 'lakeScan', table: { id: 1, namespace: 'public', name: 'orders' }, projection: ['o_id'], filters: [],
    columns: [{ name: 'o_id', type: { kind: 'int8' } }],
  };
  const plan: PhysicalPlan = {
    kind: 'hashAggregate', input: scan, groupBy: [{ kind: 'column', index: 0, type: { kind: 'int8' } }], aggregates: [],
    keyRangeSplit: { key: 0, column: 'o_id', min: 1, max: 9 }, columns: [{ name: 'o_id', type: { kind: 'int8' } }],
  };
  assert.match(explainPlan(plan).join('\n'), /Group Key: o_id\n\s+Key Range Split: o_id\n/);
  const metrics = new Map<PhysicalPlan, OperatorMetrics>([[plan, metric(9, 2, { groups: 9, keyRanges: 2 })], [scan, metric(9, 1)]]);
  assert.match(explainPlan(plan, undefined, { metrics, timing: true }).join('\n'), /Aggregate: in scan workers, 2 ranges of o_id \(each range's groups finished in its worker\)/);
});
