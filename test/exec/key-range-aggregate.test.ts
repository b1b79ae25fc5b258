import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FloeError } from '../../src/common/floe-error.js';
import { openWarehouse } from '../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { createScanPool } from '../../src/exec/index.js';
import { decidePhysicalPlan } from '../../src/planner/index.js';
import type { AggregateCall, Expr, KeyRangeSplit, OutputColumn, PhysicalPlan } from '../../src/exec/index.js';
import { keyRangeFilters } from '../../src/exec/aggregate/key-range-aggregate.js';
import { Exprs } from '../../src/exec/expr/expr.js';
import { abortingPool, aggId, col, int, lit, op, rowsOf, t } from './exec-test-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'floe-key-range-agg-'));
let wh: Warehouse;
let lines: TableMetadata;
let wide: TableMetadata;
const pool = createScanPool({ threads: 2 });

const C: OutputColumn[] = [
  { name: 'ok', type: t.int4 }, { name: 'line', type: t.int4 }, { name: 'amt', type: t.numeric }, { name: 'tag', type: t.text }, { name: 'd', type: t.date },
];
const W: OutputColumn[] = [{ name: 'id', type: t.int8 }, { name: 'v', type: t.int4 }];
/** Live rows by "ok/line", as the commits below leave them. */
const model = new Map<string, unknown[]>();

const lineRow = (ok: number, line: number, amt: string): unknown[] => [ok, line, amt, ok % 7 === 0 ? null : `t${(ok * line) % 13}`, 9000 + ((ok + line) % 40)];
const columnsOf = (rows: unknown[][], width: number) => Array.from({ length: width }, (_, c) => rows.map((r) => r[c]));

async function upsert(tm: TableMetadata, rows: unknown[][], width: number): Promise<void> {
  const tx = await wh.begin();
  await tx.upsert(tm, 'main', columnsOf(rows, width));
  await tx.commit();
}

before(async () => {
  wh = await openWarehouse({ path: dir });
  lines = await wh.createTable({
    namespace: 'public', name: 'lines', primaryKey: ['ok', 'line'],
    columns: C.map((c) => ({ name: c.name, type: c.name === 'amt' ? { kind: 'numeric', precision: 12, scale: 2 } : c.type, nullable: c.name !== 'ok' && c.name !== 'line' })),
  });
  const base: unknown[][] = [];
  for (let ok = 1; ok <= 800; ok++) for (let line = 1; line <= 1 + (ok % 4); line++) base.push(lineRow(ok, line, `${ok}.${line}0`));
  await upsert(lines, base, C.length);
  await wh.optimize(lines);
  // Changes over the optimized base: new amounts, keys past the statistics' range, deletes,
  // and a key changed twice in two transactions.
  const changed = base.filter((r) => (r[0] as number) % 10 === 0).map((r) => lineRow(r[0] as number, r[1] as number, '-1.05'));
  const past = Array.from({ length: 40 }, (_, i) => lineRow(1000 + i, 1, '7.77'));
  await upsert(lines, [...changed, ...past], C.length);
  const again = changed.filter((r) => (r[0] as number) % 20 === 0).map((r) => lineRow(r[0] as number, r[1] as number, '123456789.99'));
  await upsert(lines, again, C.length);
  const tx = await wh.begin();
  const gone = base.filter((r) => (r[0] as number) % 17 === 0 && r[1] === 1);
  await tx.deleteKeys(lines, 'main', [gone.map((r) => r[0]), gone.map((r) => r[1])]);
  await tx.commit();
  for (const r of [...base, ...changed, ...past, ...again]) model.set(`${r[0]}/${r[1]}`, r);
  for (const r of gone) model.delete(`${r[0]}/${r[1]}`);

  wide = await wh.createTable({
    namespace: 'public', name: 'wide', primaryKey: ['id'],
    columns: [{ name: 'id', type: t.int8, nullable: false }, { name: 'v', type: t.int4, nullable: true }],
  });
  await upsert(wide, Array.from({ length: 600 }, (_, i) => [BigInt(i * 1_000_003) - 10_000_000n, i % 9]), 2);
});

after(async () => {
  await pool.close();
  await wh?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ref = (tm: TableMetadata) => ({ id: tm.id, namespace: tm.namespace, name: tm.name });
const scanOf = (tm: TableMetadata, columns: OutputColumn[], residual?: Expr): PhysicalPlan => ({
  kind: 'lakeScan', table: ref(tm), projection: columns.map((c) => c.name), filters: [], columns, ...(residual ? { residual } : {}),
});
const c = (name: string): Expr => { const i = C.findIndex((x) => x.name === name); return col(i, C[i]!.type); };

function call(name: string, args: Expr[]): AggregateCall {
  const a = aggId(name, ...args.map((x) => x.type));
  return { fn: a.id, args, distinct: false, type: a.type };
}

function aggregate(input: PhysicalPlan, groupBy: Expr[], aggs: AggregateCall[], keyRangeSplit?: KeyRangeSplit): PhysicalPlan {
  const columns = [...groupBy.map((e, i) => ({ name: `k${i}`, type: e.type })), ...aggs.map((a, i) => ({ name: `a${i}`, type: a.type }))];
  // Decided as the planner decides an aggregate: in the workers, by key ranges when split.
  return decidePhysicalPlan({ kind: 'hashAggregate', input, groupBy, aggregates: aggs, columns, ...(keyRangeSplit ? { keyRangeSplit } : {}) });
}

/** Rows in a canonical order (by their text), so group order does not matter. */
function sorted(rows: unknown[][]): string[] {
  return rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))).sort();
}

const AGGS = (): AggregateCall[] => [call('sum', [c('amt')]), call('count', []), call('min', [c('tag')]), call('max', [c('d')]), call('avg', [c('line')])];

test('split by ranges of the key, the workers\' groups equal one thread\'s — with merged changes, deletes and keys past the statistics', async () => {
  const local = sorted(await rowsOf(aggregate(scanOf(lines, C), [c('ok')], AGGS()), { warehouse: wh }));
  assert.equal(local.length, new Set([...model.values()].map((r) => r[0])).size);
  // Statistics that cover the keys, that miss some on both sides, and that miss all of them.
  for (const [min, max] of [[1, 1039], [300, 500], [5000, 6000]] as const) {
    const scan = scanOf(lines, C);
    const plan = aggregate(scan, [c('ok')], AGGS(), { key: 0, column: 'ok', min, max });
    const metrics = new Map();
    assert.deepEqual(sorted(await rowsOf(plan, { warehouse: wh, pool, metrics })), local, `[${min}, ${max}]`);
    assert.equal(metrics.get(plan)?.extra.keyRanges, 2);
    assert.equal(metrics.get(scan)?.extra.rowsScanned, model.size);
  }
});

test('a split key behind a residual, a Filter and a Project (as the second key), and an int8 key', async () => {
  const filter: PhysicalPlan = { kind: 'filter', input: scanOf(lines, C, op('<>', c('line'), int(2))), predicate: op('>', c('amt'), lit('5', t.numeric)), columns: C };
  const project: PhysicalPlan = {
    kind: 'project', input: filter, exprs: [op('%', c('line'), int(2)), c('ok'), c('amt')],
    columns: [{ name: 'odd', type: t.int4 }, { name: 'ok', type: t.int4 }, { name: 'amt', type: t.numeric }],
  };
  const aggs = [call('count', []), call('sum', [col(2, t.numeric)])];
  const groupBy = [col(0, t.int4), col(1, t.int4)];
  const local = sorted(await rowsOf(aggregate(project, groupBy, aggs), { warehouse: wh }));
  const plan = aggregate(project, groupBy, aggs, { key: 1, column: 'ok', min: 1, max: 800 });
  const metrics = new Map();
  assert.deepEqual(sorted(await rowsOf(plan, { warehouse: wh, pool, metrics })), local);
  assert.ok(local.length > 100);
  const live = [...model.values()].filter((r) => r[1] !== 2);
  assert.equal(metrics.get(filter)?.rowsOut, live.filter((r) => Number(r[2]) > 5).length, 'the Filter\'s rows are counted from the workers');

  const id = col(0, t.int8);
  const wideLocal = sorted(await rowsOf(aggregate(scanOf(wide, W), [id], [call('sum', [col(1, t.int4)])]), { warehouse: wh }));
  const widePlan = aggregate(scanOf(wide, W), [id], [call('sum', [col(1, t.int4)])], { key: 0, column: 'id', min: -10_000_000, max: 590_000_000 });
  assert.deepEqual(sorted(await rowsOf(widePlan, { warehouse: wh, pool })), wideLocal);
  assert.equal(wideLocal.length, 600);
});

test('the ranges cover the key\'s values once each, open at both ends', () => {
  const split = (min: number, max: number): KeyRangeSplit => ({ key: 0, column: 'k', min, max });
  assert.deepEqual(keyRangeFilters(split(1, 10), t.int4, 2), [[{ column: 'k', op: '<', value: 6 }], [{ column: 'k', op: '>=', value: 6 }]]);
  assert.deepEqual(keyRangeFilters(split(0, 8), t.int4, 3), [
    [{ column: 'k', op: '<', value: 3 }], [{ column: 'k', op: '>=', value: 3 }, { column: 'k', op: '<', value: 6 }], [{ column: 'k', op: '>=', value: 6 }],
  ]);
  // No more ranges than values; one range is the whole scan.
  assert.equal(keyRangeFilters(split(5, 6), t.int4, 4).length, 2);
  assert.deepEqual(keyRangeFilters(split(1, 1000), t.int4, 1), [[]]);
  // int8 bounds are BigInts, as the lake's int8 filters are.
  assert.deepEqual(keyRangeFilters(split(-4, 4), t.int8, 2), [[{ column: 'k', op: '<', value: 0n }], [{ column: 'k', op: '>=', value: 0n }]]);
});

test('a worker\'s error in a split aggregate keeps its SQLSTATE', async () => {
  const divByZero = scanOf(lines, C, op('>', op('/', int(100), op('-', c('ok'), c('ok'))), int(1)));
  const plan = aggregate(divByZero, [c('ok')], [call('count', [])], { key: 0, column: 'ok', min: 1, max: 800 });
  await assert.rejects(rowsOf(plan, { warehouse: wh, pool }), (e: unknown) => e instanceof FloeError && e.sqlstate === '22012');
  await assert.rejects(rowsOf(aggregate(scanOf(lines, C), [c('ok')], [call('count', [])], { key: 0, column: 'ok', min: 1, max: 800 }), { warehouse: wh, pool, memoryLimitBytes: 20_000 }),
    (e: unknown) => e instanceof FloeError && e.sqlstate === '53200');
});

test('cancellation while key ranges run in the workers fails with 57014, and the pool serves the next query', async () => {
  const ac = new AbortController();
  const cancelling = abortingPool(pool, ac);
  const plan = aggregate(scanOf(lines, C), [c('ok')], [call('count', [])], { key: 0, column: 'ok', min: 1, max: 800 });
  await assert.rejects(rowsOf(plan, { warehouse: wh, pool: cancelling.pool, signal: ac.signal }), (e: unknown) => e instanceof FloeError && e.sqlstate === '57014');
  assert.ok(cancelling.started() >= 1);
  const local = sorted(await rowsOf(plan, { warehouse: wh }));
  assert.deepEqual(sorted(await rowsOf(plan, { warehouse: wh, pool })), local);
});

test('a HAVING inside a split aggregate keeps, in the workers and in one thread, the groups a Filter above it keeps', async () => {
  // count(*) > 2 and sum(amt) > 100, over the aggregate's output (k0, a0 = sum, a1 = count, …).
  const having = Exprs.and(op('>', col(2, t.int8), lit(2n, t.int8)), op('>', col(1, t.numeric), lit('100', t.numeric)));
  const plain = aggregate(scanOf(lines, C), [c('ok')], AGGS());
  const expected = sorted(await rowsOf({ kind: 'filter', input: plain, predicate: having, columns: plain.columns }, { warehouse: wh }));
  const groups = new Set([...model.values()].map((r) => r[0])).size;
  assert.ok(expected.length > 50 && expected.length < groups / 2, `${expected.length} of ${groups} groups kept`);
  const split = { ...aggregate(scanOf(lines, C), [c('ok')], AGGS(), { key: 0, column: 'ok', min: 1, max: 1039 }), having } as PhysicalPlan;
  const metrics = new Map();
  assert.deepEqual(sorted(await rowsOf(split, { warehouse: wh, pool, metrics })), expected);
  assert.equal(metrics.get(split)?.extra.keyRanges, 2);
  assert.equal(metrics.get(split)?.extra.groups, groups, 'groups are counted before the HAVING');
  // Without a pool the aggregate applies it here.
  assert.deepEqual(sorted(await rowsOf(split, { warehouse: wh })), expected);
});
