import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FloeError } from '../../src/common/floe-error.js';
import { openWarehouse } from '../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { createScanPool } from '../../src/exec/index.js';
import { decidePhysicalPlan } from '../../src/planner/index.js';
import type { ExecContext, Expr, PhysicalPlan, OutputColumn, LakeTableRef } from '../../src/exec/index.js';
import { col, int, lit, op, rowsOf, t, values } from './exec-test-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'floe-exec-'));
let wh: Warehouse;
const pool = createScanPool({ threads: 2 });
after(async () => {
  await pool.close();
  await wh?.close();
  rmSync(dir, { recursive: true, force: true });
});

const cols: OutputColumn[] = [{ name: 'id', type: t.int4 }, { name: 'name', type: t.text }, { name: 'amount', type: t.numeric }];
const ref = (tm: TableMetadata): LakeTableRef => ({ id: tm.id, namespace: tm.namespace, name: tm.name });
const scan = (tm: TableMetadata, extra: Partial<PhysicalPlan & { kind: 'lakeScan' }> = {}): PhysicalPlan => ({
  kind: 'lakeScan', table: ref(tm), projection: ['id', 'name', 'amount'], filters: [], columns: cols, ...extra,
});

async function inTxn<T>(fn: (ctx: ExecContext) => Promise<T>): Promise<T> {
  const txn = await wh.begin();
  try {
    const r = await fn({ warehouse: wh, txn });
    await txn.commit();
    return r;
  } catch (e) {
    await txn.abort();
    throw e;
  }
}

const byId = (rows: unknown[][]) => [...rows].sort((a, b) => (a[0] as number) - (b[0] as number));

test('DML sinks and lake scans: insert, upsert (ON CONFLICT), update, delete, RETURNING; pool = same thread', async () => {
  wh = await openWarehouse({ path: dir });
  const tm = await wh.createTable({
    namespace: 'public', name: 'accounts', primaryKey: ['id'],
    columns: [{ name: 'id', type: t.int4, nullable: false }, { name: 'name', type: t.text, nullable: true }, { name: 'amount', type: t.numeric, nullable: true }],
  });
  let affected = 0;
  const ret = await inTxn((ctx) => rowsOf({
    kind: 'insert', table: ref(tm), input: values(cols, [[1, 'ann', '10.50'], [2, 'bob', '3'], [3, 'cy', null]]),
    returning: [col(0, t.int4), op('||', col(1, t.text), lit('!', t.text))], columns: [{ name: 'id', type: t.int4 }, { name: 'x', type: t.text }],
  }, { ...ctx, onRowsAffected: (n) => { affected = n; } }));
  assert.equal(affected, 3);
  assert.deepEqual(ret, [[1, 'ann!'], [2, 'bob!'], [3, 'cy!']]);
  assert.deepEqual(byId(await rowsOf(scan(tm), { warehouse: wh })), [[1, 'ann', '10.50'], [2, 'bob', '3'], [3, 'cy', null]]);

  // ON CONFLICT DO UPDATE SET amount = existing.amount + excluded.amount
  await inTxn((ctx) => rowsOf({
    kind: 'insert', table: ref(tm), input: values(cols, [[1, 'ann', '1.25'], [4, 'dee', '7']]),
    onConflict: { action: 'update', set: [{ column: 2, expr: op('+', col(2, t.numeric), col(5, t.numeric)) }] }, columns: [],
  }, ctx));
  // ON CONFLICT DO NOTHING
  await inTxn((ctx) => rowsOf({ kind: 'insert', table: ref(tm), input: values(cols, [[2, 'zzz', '0']]), onConflict: { action: 'nothing' }, columns: [] }, ctx));
  // UPDATE … SET name = upper(name) WHERE id = 3
  await inTxn((ctx) => rowsOf({
    kind: 'update', table: ref(tm), input: { kind: 'filter', input: scan(tm), predicate: op('=', col(0, t.int4), int(3)), columns: cols },
    set: [{ column: 1, expr: lit('CY', t.text) }], columns: [],
  }, ctx));
  // DELETE WHERE id = 2 RETURNING name
  const del = await inTxn((ctx) => rowsOf({
    kind: 'delete', table: ref(tm), input: { kind: 'filter', input: scan(tm), predicate: op('=', col(0, t.int4), int(2)), columns: cols },
    returning: [col(1, t.text)], columns: [{ name: 'name', type: t.text }],
  }, ctx));
  assert.deepEqual(del, [['bob']]);
  const expected = [[1, 'ann', '11.75'], [3, 'CY', null], [4, 'dee', '7']];
  assert.deepEqual(byId(await rowsOf(scan(tm), { warehouse: wh })), expected);
  assert.deepEqual(byId(await rowsOf(scan(tm), { warehouse: wh, pool })), expected);
  // residual filter + limit over the scan
  const metrics = new Map();
  const residualScan = scan(tm, { residual: op('>', col(0, t.int4), int(1)) });
  const filtered = await rowsOf(residualScan, { warehouse: wh, pool, metrics });
  assert.deepEqual(byId(filtered), [[3, 'CY', null], [4, 'dee', '7']]);
  assert.equal(metrics.get(residualScan).rowsOut, 2);
  assert.equal(metrics.get(residualScan).extra.rowsScanned, 3);
  assert.equal(typeof metrics.get(residualScan).extra.filesTotal, 'number');

  // NOT NULL key → 23502
  await assert.rejects(inTxn((ctx) => rowsOf({ kind: 'insert', table: ref(tm), input: values(cols, [[null, 'x', '1']]), columns: [] }, ctx)),
    (e: unknown) => e instanceof FloeError && e.sqlstate === '23502');
  // duplicate keys in one ON CONFLICT DO UPDATE → 21000
  await assert.rejects(inTxn((ctx) => rowsOf({
    kind: 'insert', table: ref(tm), input: values(cols, [[9, 'a', '1'], [9, 'b', '2']]),
    onConflict: { action: 'update', set: [{ column: 1, expr: col(4, t.text) }] }, columns: [],
  }, ctx)), (e: unknown) => e instanceof FloeError && e.sqlstate === '21000');
});

test('MERGE: update, delete, insert by match kind; a target row matched twice is 21000', async () => {
  const tm = wh.getTable('public', 'accounts')!;
  const M: OutputColumn[] = [...cols.map((c) => ({ ...c, name: `s_${c.name}` })), ...cols, { name: 'sp', type: t.bool }, { name: 'tp', type: t.bool }];
  const mergePlan = (rows: unknown[][]): PhysicalPlan => ({
    kind: 'merge', table: ref(tm), input: values(M, rows), sourceWidth: 3, sourcePresent: 6, targetPresent: 7,
    actions: [
      { match: 'matched', condition: op('=', col(0, t.int4), int(4)), action: { kind: 'delete' } },
      { match: 'matched', action: { kind: 'update', set: [{ column: 2, expr: op('+', col(5, t.numeric), col(2, t.numeric)) }] } },
      { match: 'notMatchedByTarget', action: { kind: 'insert', values: [col(0, t.int4), col(1, t.text), col(2, t.numeric)] } },
    ],
    columns: [],
  });
  let affected = 0;
  await inTxn((ctx) => rowsOf(mergePlan([
    [1, 'x', '1', 1, 'ann', '11.75', true, true],
    [4, 'y', '0', 4, 'dee', '7', true, true],
    [5, 'eve', '5', null, null, null, true, false],
    [null, null, null, 3, 'CY', null, false, true],
  ]), { ...ctx, onRowsAffected: (n) => { affected = n; } }));
  assert.equal(affected, 3);
  assert.deepEqual(byId(await rowsOf(scan(tm), { warehouse: wh })), [[1, 'ann', '12.75'], [3, 'CY', null], [5, 'eve', '5']]);
  await assert.rejects(inTxn((ctx) => rowsOf(mergePlan([
    [1, 'x', '1', 1, 'ann', '12.75', true, true],
    [1, 'z', '2', 1, 'ann', '12.75', true, true],
  ]), ctx)), (e: unknown) => e instanceof FloeError && e.sqlstate === '21000');
});

test('append table: delete and update through row ids', async () => {
  const tm = await wh.createTable({
    namespace: 'public', name: 'events',
    columns: [{ name: 'id', type: t.int4, nullable: true }, { name: 'name', type: t.text, nullable: true }, { name: 'amount', type: t.numeric, nullable: true }],
  });
  await inTxn((ctx) => rowsOf({ kind: 'insert', table: ref(tm), input: values(cols, [[1, 'a', '1'], [2, 'b', '2'], [2, 'c', '3']]), columns: [] }, ctx));
  const withRowId: OutputColumn[] = [...cols, { name: '_row_id', type: t.int8 }];
  const scanRid: PhysicalPlan = { kind: 'lakeScan', table: ref(tm), projection: ['id', 'name', 'amount', '_row_id'], filters: [], columns: withRowId };
  await inTxn((ctx) => rowsOf({
    kind: 'delete', table: ref(tm), input: { kind: 'filter', input: scanRid, predicate: op('=', col(1, t.text), lit('b', t.text)), columns: withRowId }, columns: [],
  }, ctx));
  await inTxn((ctx) => rowsOf({
    kind: 'update', table: ref(tm), input: { kind: 'filter', input: scanRid, predicate: op('=', col(0, t.int4), int(1)), columns: withRowId },
    set: [{ column: 2, expr: lit('100', t.numeric) }], columns: [],
  }, ctx));
  assert.deepEqual(byId(await rowsOf(scan(tm), { warehouse: wh, pool })), [[1, 'a', '100'], [2, 'c', '3']]);
});

test('multi-task scans: the worker pool returns what the same-thread path returns, aggregates agree', async () => {
  const tm = await wh.createTable({
    namespace: 'public', name: 'sales', primaryKey: ['id', 'region'],
    partitionBy: [{ sourceColumn: 'region', transform: { kind: 'identity' }, name: 'region' }],
    columns: [{ name: 'id', type: t.int4, nullable: false }, { name: 'region', type: t.text, nullable: true }, { name: 'amount', type: t.numeric, nullable: true }],
  });
  const S: OutputColumn[] = [{ name: 'id', type: t.int4 }, { name: 'region', type: t.text }, { name: 'amount', type: t.numeric }];
  const data = Array.from({ length: 300 }, (_, i) => [i, ['north', 'south', 'east', 'west'][i % 4], `${i}.${i % 10}`]);
  await inTxn((ctx) => rowsOf({ kind: 'insert', table: ref(tm), input: values(S, data), columns: [] }, ctx));
  // a second commit, so merge-on-read has change files to combine
  // (an upsert: a plain INSERT of a live key is 23505)
  await inTxn((ctx) => rowsOf({
    kind: 'insert', table: ref(tm), input: values(S, [[1, 'south', '99.9'], [2, 'east', null]]), columns: [],
    onConflict: { action: 'update', set: [{ column: 2, expr: col(5, t.numeric) }] },
  }, ctx));
  const scanS: PhysicalPlan = { kind: 'lakeScan', table: ref(tm), projection: ['id', 'region', 'amount'], filters: [], columns: S };
  const plan = await wh.planScan({ table: tm, projection: ['id'] });
  assert.ok(plan.tasks.length >= 4, `expected a task per partition, got ${plan.tasks.length}`);
  const same = byId(await rowsOf(scanS, { warehouse: wh }));
  let workerTasks = 0;
  const counting = { size: pool.size, close: () => pool.close(), run: (task: unknown, signal?: AbortSignal) => { workerTasks++; return pool.run(task, signal); } };
  const pooled = byId(await rowsOf(scanS, { warehouse: wh, pool: counting }));
  assert.equal(workerTasks, plan.tasks.length);
  assert.equal(same.length, 300);
  assert.deepEqual(pooled, same);
  assert.deepEqual(same[1], [1, 'south', '99.9']);
  const { aggId } = await import('./exec-test-helpers.js');
  const sum = aggId('sum', t.numeric);
  // Decided as the planner decides it: the aggregate runs as partials in the workers.
  const agg: PhysicalPlan = decidePhysicalPlan({
    kind: 'sort', keys: [{ expr: col(0, t.text), descending: false, nullsFirst: false }],
    columns: [{ name: 'region', type: t.text }, { name: 'sum', type: t.numeric }],
    input: {
      kind: 'hashAggregate', input: scanS, groupBy: [col(1, t.text)],
      aggregates: [{ fn: sum.id, args: [col(2, t.numeric)], distinct: false, type: sum.type }],
      columns: [{ name: 'region', type: t.text }, { name: 'sum', type: t.numeric }],
    },
  });
  assert.deepEqual(await rowsOf(agg, { warehouse: wh, pool }), await rowsOf(agg, { warehouse: wh }));
  // The residual filter travels to the workers (with a parameter) and gives the same rows.
  const residualScan: PhysicalPlan = { ...scanS, residual: op('<', col(0, t.int4), { kind: 'param', index: 0, type: t.int4 }) } as PhysicalPlan;
  const metrics = new Map();
  const inWorkers = byId(await rowsOf(residualScan, { warehouse: wh, pool, params: [50], metrics }));
  assert.equal(metrics.get(residualScan).extra.residualInWorkers, 1);
  assert.deepEqual(inWorkers, byId(await rowsOf(residualScan, { warehouse: wh, params: [50] })));
  assert.equal(inWorkers.length, 50);
  // A residual with a subquery conjunct: the other conjunct still travels, the subquery's runs here.
  const ten = { kind: 'scalarSubquery', correlated: false, plan: { kind: 'values', columns: [{ name: 'x', type: t.int4 }], rows: [[lit(10, t.int4)]] }, type: t.int4 } as Expr;
  const mixedScan: PhysicalPlan = { ...scanS, residual: { kind: 'and', args: [op('<', col(0, t.int4), lit(50, t.int4)), op('>', col(0, t.int4), ten)], type: t.bool } } as PhysicalPlan;
  const mixedMetrics = new Map();
  const mixed = byId(await rowsOf(mixedScan, { warehouse: wh, pool, metrics: mixedMetrics }));
  assert.equal(mixedMetrics.get(mixedScan).extra.residualInWorkers, 1);
  assert.deepEqual(mixed, byId(await rowsOf(mixedScan, { warehouse: wh })));
  assert.deepEqual(mixed.map((r) => r[0]), Array.from({ length: 39 }, (_, i) => 11 + i));
});

test('cancel stops a pool scan with 57014', async () => {
  const tm = wh.getTable('public', 'accounts')!;
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(rowsOf(scan(tm), { warehouse: wh, pool, signal: ac.signal }), (e: unknown) => e instanceof FloeError && e.sqlstate === '57014');
});
