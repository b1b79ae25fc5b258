import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { createScanPool } from '../../src/exec/index.js';
import type { ExecContext, Expr, OutputColumn, PhysicalPlan } from '../../src/exec/index.js';
import type { HashJoinPlan, JoinType, LakeScanPlan } from '../../src/exec/plan/physical-plan.js';
import {
  RUNTIME_FILTER_MAX_KEYS, RUNTIME_FILTER_MAX_KEYS_SETTING, RUNTIME_FILTERS_SETTING, buildRuntimeFilter, intRuntimeFilter, runtimeFilterMaxKeys, runtimeFilterSelection,
  resolveRuntimeFilterTargets, runtimeFiltersEnabled,
} from '../../src/exec/operators/runtime-filter.js';
import type { RuntimeFilter, RuntimeFilterTarget } from '../../src/exec/operators/runtime-filter.js';
import { decidePhysicalPlan } from '../../src/planner/index.js';
import { createRunState } from '../../src/exec/run-state.js';
import { aggId, col, lit, op, rowsOf, t, values } from './exec-test-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'floe-rtf-'));
let wh: Warehouse;
let facts: TableMetadata;
const pool = createScanPool({ threads: 2 });

const C: OutputColumn[] = [
  { name: 'id', type: t.int4 }, { name: 'k', type: t.int4 }, { name: 'q', type: t.int8 }, { name: 'name', type: t.text },
  { name: 'd', type: t.date }, { name: 'amt', type: t.numeric },
];
/** Enough rows that the scan goes to the pool (more than SAME_THREAD_MAX_ROWS in one task). */
const ROWS = 6000;

function row(i: number): unknown[] {
  return [
    i, i % 17 === 0 ? null : i % 500, i % 19 === 0 ? null : BigInt(i % 300),
    i % 23 === 0 ? null : `n${i % 400}`, 10000 + (i % 50), `${i % 97}.5`,
  ];
}

const ref = (tm: TableMetadata) => ({ id: tm.id, namespace: tm.namespace, name: tm.name });
const scan = (extra: Partial<LakeScanPlan> = {}): LakeScanPlan => ({
  kind: 'lakeScan', table: ref(facts), projection: C.map((c) => c.name), filters: [], columns: C, ...extra,
});
const c = (name: string): Expr => { const i = C.findIndex((x) => x.name === name); return col(i, C[i]!.type); };

before(async () => {
  wh = await openWarehouse({ path: dir });
  facts = await wh.createTable({
    namespace: 'public', name: 'facts', primaryKey: ['id'],
    columns: C.map((x) => ({ name: x.name, type: x.type, nullable: x.name !== 'id' })),
  });
  const txn = await wh.begin();
  const input: PhysicalPlan = { kind: 'values', columns: C, rows: Array.from({ length: ROWS }, (_, i) => row(i).map((v, j) => lit(v, C[j]!.type))) };
  await rowsOf({ kind: 'insert', table: ref(facts), input, columns: [] }, { warehouse: wh, txn });
  await txn.commit();
});

after(async () => {
  await pool.close();
  await wh?.close();
  rmSync(dir, { recursive: true, force: true });
});

function join2(joinType: JoinType, left: PhysicalPlan, right: PhysicalPlan, leftKeys: Expr[], rightKeys: Expr[], extra: Partial<HashJoinPlan> = {}): HashJoinPlan {
  const columns = joinType === 'semi' || joinType === 'anti' ? [...left.columns] : [...left.columns, ...right.columns];
  // Decided as the planner decides a join (build-side policy, runtime filter targets), its inputs already decided.
  return decidePhysicalPlan({ kind: 'hashJoin', joinType, left, right, leftKeys, rightKeys, columns, ...extra }) as HashJoinPlan;
}

/** The probe-side scans the planner's runtime-filter-targets rule chose for a (decided) join. */
function runtimeFilterTargets(plan: HashJoinPlan): RuntimeFilterTarget[] {
  return resolveRuntimeFilterTargets(plan.left, plan.runtimeFilters?.probe ?? [], plan.leftKeys, plan.rightKeys);
}

const show = (v: unknown): string => (typeof v === 'bigint' ? `${v}n` : JSON.stringify(v));
const sorted = (rows: unknown[][]): string[] => rows.map((r) => r.map(show).join('|')).sort();

type Metrics = NonNullable<ExecContext['metrics']>;

/** Runs `plan` with runtime filters (pool), without them (pool, setting off) and in this thread. */
async function threeWays(plan: PhysicalPlan, ctx: Partial<ExecContext> = {}): Promise<{ on: string[]; off: string[]; local: string[]; metrics: Metrics }> {
  const metrics: Metrics = new Map();
  const settings = new Map(ctx.settings ?? []);
  const on = sorted(await rowsOf(plan, { warehouse: wh, pool, metrics, ...ctx, settings }));
  const offSettings = new Map(settings).set('floe.runtime_filters', 'off');
  const offMetrics: Metrics = new Map();
  const off = sorted(await rowsOf(plan, { warehouse: wh, pool, metrics: offMetrics, ...ctx, settings: offSettings }));
  for (const m of offMetrics.values()) assert.equal(m.extra.runtimeFilter, undefined, 'setting off: no filter');
  const local = sorted(await rowsOf(plan, { warehouse: wh, ...ctx, settings }));
  return { on, off, local, metrics };
}

function removed(metrics: Metrics, s: PhysicalPlan): number | undefined {
  const m = metrics.get(s)?.extra;
  return m?.runtimeFilter === undefined ? undefined : m.runtimeFilterRowsRemoved as number;
}

const KEYS4: OutputColumn[] = [{ name: 'bk', type: t.int4 }, { name: 'tag', type: t.text }];

test('inner join on int4: same rows with and without the filter; the workers drop non-matching rows', async () => {
  const s = scan();
  const build = values(KEYS4, [[3, 'a'], [7, 'b'], [7, 'b2'], [null, 'nul'], [499, 'c'], [100000, 'none']]);
  const plan = join2('inner', s, build, [c('k')], [col(0, t.int4)]);
  const { on, off, local, metrics } = await threeWays(plan);
  assert.deepEqual(on, off);
  assert.deepEqual(on, local);
  // k in {3, 7, 499}: 12 rows each (ids ≡ k mod 500), minus those with a NULL k (i % 17 = 0).
  const expected = Array.from({ length: ROWS }, (_, i) => row(i)).filter((r) => r[1] === 3 || r[1] === 7 || r[1] === 499);
  assert.equal(on.length, expected.filter((r) => r[1] !== 7).length + 2 * expected.filter((r) => r[1] === 7).length);
  assert.match(String(metrics.get(s)?.extra.runtimeFilter), /^k IN \(4 keys from Hash Join\)$/);
  assert.equal(removed(metrics, s), ROWS - expected.length);
});

test('int8 probe key against int4 build keys, and int4 probe key against int8 (bigint) build keys', async () => {
  const s1 = scan();
  const p1 = join2('inner', s1, values(KEYS4, [[5, 'x'], [299, 'y'], [null, 'z'], [-1, 'w']]), [c('q')], [col(0, t.int4)]);
  const r1 = await threeWays(p1);
  assert.deepEqual(r1.on, r1.off);
  assert.deepEqual(r1.on, r1.local);
  assert.ok(r1.on.length > 0);
  assert.ok((removed(r1.metrics, s1) ?? 0) > 0);

  const s2 = scan();
  const B8: OutputColumn[] = [{ name: 'bk', type: t.int8 }];
  const p2 = join2('inner', s2, values(B8, [[5n], [250n], [null], [9007199254740993n]]), [c('k')], [col(0, t.int8)]);
  const r2 = await threeWays(p2);
  assert.deepEqual(r2.on, r2.off);
  assert.deepEqual(r2.on, r2.local);
  assert.ok(r2.on.length > 0);
  // A build key beyond 2^53 cannot be held exactly as a number: no filter rather than a wrong one.
  assert.equal(removed(r2.metrics, s2), undefined);

  const s3 = scan();
  const p3 = join2('inner', s3, values(B8, [[5n], [250n], [null]]), [c('k')], [col(0, t.int8)]);
  const r3 = await threeWays(p3);
  assert.deepEqual(r3.on, r3.off);
  assert.ok((removed(r3.metrics, s3) ?? 0) > 0);
});

test('text keys and date keys', async () => {
  const s = scan();
  const TB: OutputColumn[] = [{ name: 'bn', type: t.text }];
  const plan = join2('inner', s, values(TB, [['n1'], ['n399'], [null], ['n1 '], ['']]), [c('name')], [col(0, t.text)]);
  const r = await threeWays(plan);
  assert.deepEqual(r.on, r.off);
  assert.deepEqual(r.on, r.local);
  assert.ok(r.on.length > 0);
  assert.ok((removed(r.metrics, s) ?? 0) > 0);

  const s2 = scan();
  const DB: OutputColumn[] = [{ name: 'bd', type: t.date }];
  const p2 = join2('semi', s2, values(DB, [[10003], [10049], [null]]), [c('d')], [col(0, t.date)]);
  const r2 = await threeWays(p2);
  assert.deepEqual(r2.on, r2.off);
  assert.equal(r2.on.length, 2 * ROWS / 50);
  assert.equal(removed(r2.metrics, s2), ROWS - 2 * ROWS / 50);
});

test('semi and right joins; NULL keys on both sides', async () => {
  const s = scan();
  const build = values(KEYS4, [[1, 'a'], [1, 'a2'], [null, 'n'], [42, 'b'], [77777, 'unmatched']]);
  const semi = join2('semi', s, build, [c('k')], [col(0, t.int4)]);
  const r = await threeWays(semi);
  assert.deepEqual(r.on, r.off);
  assert.deepEqual(r.on, r.local);
  assert.ok((removed(r.metrics, s) ?? 0) > 0);

  const s2 = scan();
  const right = join2('right', s2, build, [c('k')], [col(0, t.int4)]);
  const r2 = await threeWays(right);
  assert.deepEqual(r2.on, r2.off);
  assert.deepEqual(r2.on, r2.local);
  // The unmatched build rows (NULL key, 77777) are still there, NULL-padded.
  assert.equal(r2.on.filter((x) => x.startsWith('null|')).length, 2);
  assert.ok((removed(r2.metrics, s2) ?? 0) > 0);
});

test('an empty build side: the probe side is not read', async () => {
  const s = scan();
  const plan = join2('inner', s, values(KEYS4, []), [c('k')], [col(0, t.int4)]);
  const r = await threeWays(plan);
  assert.deepEqual(r.on, []);
  assert.deepEqual(r.off, []);
  assert.equal(r.metrics.get(s), undefined, 'the probe scan never ran');
  assert.ok(r.metrics.get(plan), 'the join ran');
});

test('a build above the key cap gets no filter', async () => {
  const s = scan();
  const plan = join2('inner', s, values(KEYS4, [[1, 'a'], [2, 'b'], [3, 'c']]), [c('k')], [col(0, t.int4)]);
  const r = await threeWays(plan, { settings: new Map([['floe.runtime_filter_max_keys', '2']]) });
  assert.deepEqual(r.on, r.off);
  assert.equal(r.metrics.get(s)?.extra.runtimeFilter, undefined);
  const r2 = await threeWays(plan, { settings: new Map([['floe.runtime_filter_max_keys', '3']]) });
  assert.deepEqual(r2.on, r.on);
  assert.ok((removed(r2.metrics, s) ?? 0) > 0);
});

test('a probe side under an aggregate grouped by the key (shipped to the workers as a partial aggregate)', async () => {
  const s = scan();
  const count = aggId('count');
  const sum = aggId('sum', t.numeric);
  const agg: PhysicalPlan = decidePhysicalPlan({
    kind: 'hashAggregate', input: s, groupBy: [c('k')],
    aggregates: [{ fn: count.id, args: [], distinct: false, type: count.type }, { fn: sum.id, args: [c('amt')], distinct: false, type: sum.type }],
    columns: [{ name: 'k', type: t.int4 }, { name: 'n', type: count.type }, { name: 's', type: sum.type }],
  });
  const proj: PhysicalPlan = { kind: 'project', input: agg, exprs: [col(2, sum.type), col(0, t.int4)], columns: [{ name: 's', type: sum.type }, { name: 'k', type: t.int4 }] };
  const plan = join2('inner', proj, values(KEYS4, [[10, 'a'], [20, 'b'], [null, 'c']]), [col(1, t.int4)], [col(0, t.int4)]);
  assert.deepEqual(runtimeFilterTargets(plan).map((x) => [x.scan, x.column]), [[s, 1]]);
  const r = await threeWays(plan);
  assert.deepEqual(r.on, r.off);
  assert.deepEqual(r.on, r.local);
  assert.equal(r.on.length, 2);
  assert.ok(r.metrics.get(agg)?.extra.partialInWorkers, 'the aggregate ran in the workers');
  const kept = Array.from({ length: ROWS }, (_, i) => row(i)).filter((x) => x[1] === 10 || x[1] === 20).length;
  assert.equal(removed(r.metrics, s), ROWS - kept);
});

test('left, anti, full and mark joins, and nullEquals keys, get no filter', async () => {
  const build = values(KEYS4, [[1, 'a'], [null, 'n']]);
  for (const jt of ['left', 'anti', 'full', 'mark'] as const) {
    const s = scan();
    const columns = jt === 'mark' ? [...C, { name: 'mark', type: t.bool }] : undefined;
    const plan = join2(jt, s, build, [c('k')], [col(0, t.int4)], columns ? { columns } : {});
    assert.deepEqual(runtimeFilterTargets(plan), [], jt);
    const r = await threeWays(plan);
    assert.deepEqual(r.on, r.off, jt);
    assert.deepEqual(r.on, r.local, jt);
    assert.equal(r.metrics.get(s)?.extra.runtimeFilter, undefined, jt);
    if (jt !== 'full' && jt !== 'mark') assert.ok(r.on.length >= (jt === 'left' ? ROWS : ROWS - 12), jt);
  }
  const s = scan();
  assert.deepEqual(runtimeFilterTargets(join2('inner', s, build, [c('k')], [col(0, t.int4)], { nullEquals: [true] })), []);
});

test('targets: through projects, filters, sorts and nested joins (both sides across their keys); not through limits, expressions, bpchar or shared scans', () => {
  const B: PhysicalPlan = values(KEYS4, [[1, 'a']]);
  const s = scan();
  // Project with an expression in the key position: no target.
  const expr: PhysicalPlan = { kind: 'project', input: s, exprs: [{ kind: 'call', fn: 'x', args: [c('k')], type: t.int4 }], columns: [{ name: 'e', type: t.int4 }] };
  assert.deepEqual(runtimeFilterTargets(join2('inner', expr, B, [col(0, t.int4)], [col(0, t.int4)])), []);
  // A scan with a LIMIT.
  const limited = scan({ limit: 10 });
  assert.deepEqual(runtimeFilterTargets(join2('inner', limited, B, [c('k')], [col(0, t.int4)])), []);
  // bpchar and numeric keys.
  const bp: Expr = { kind: 'column', index: 3, type: { kind: 'bpchar', length: 4 } as never };
  assert.deepEqual(runtimeFilterTargets(join2('inner', s, B, [bp], [bp])), []);
  assert.deepEqual(runtimeFilterTargets(join2('inner', s, B, [c('amt')], [c('amt')])), []);
  // Nested join: the key reaches its left input and, across its `=` key, the other side's scan.
  const a = scan();
  const b = scan();
  const inner = join2('left', { kind: 'filter', input: a, predicate: lit(true, t.bool), columns: C }, { kind: 'sort', input: b, keys: [], columns: C } as PhysicalPlan, [c('k')], [c('k')]);
  const targets = runtimeFilterTargets(join2('inner', inner, B, [c('k')], [col(0, t.int4)]));
  assert.deepEqual(targets.map((x) => [x.scan, x.column]), [[a, 1], [b, 1]]);
  // The same scan node reached twice (a shared subtree): left alone.
  const shared = join2('inner', a, a, [c('id')], [c('id')]);
  assert.deepEqual(runtimeFilterTargets(join2('inner', shared, B, [c('k')], [col(0, t.int4)])), []);
});

test('the worker-side selection: int (number and bigint), text, several filters, NULLs', () => {
  const f1 = buildRuntimeFilter([1, 2n, null, 3, 3], 'int', 0)!;
  assert.deepEqual([...f1.values].sort(), [1, 2, 3]);
  // Sparse keys (deduplicated through a table, not a bitmap), a fraction and -0 (as 0) among them.
  assert.deepEqual([...buildRuntimeFilter([1e12, -0, 7, 1e12, 0.5, 7, 0, null, -5e11], 'int', 0)!.values], [1e12, 0, 7, 0.5, -5e11]);
  const f2 = buildRuntimeFilter(['a', null, 'b'], 'string', 1)!;
  const stats = { removed: 0 };
  const batch = { numRows: 6, columns: [[1, 2n, null, 4, 3, 9007199254740993n], ['a', 'a', 'a', 'a', 'c', 'b']] };
  assert.deepEqual([...runtimeFilterSelection(batch, [f1, f2], stats)!], [0, 1]);
  assert.equal(stats.removed, 4);
  assert.equal(runtimeFilterSelection({ numRows: 2, columns: [[1, 3], ['a', 'b']] }, [f1, f2], stats), undefined);
  assert.equal(buildRuntimeFilter([1, 2, 3], 'int', 0, 2), undefined);
  assert.equal(buildRuntimeFilter([9007199254740993n], 'int', 0), undefined);
});

test('a small probe side filters the build side of left, anti, semi and inner joins (not right, full or mark)', async () => {
  const PB: OutputColumn[] = [{ name: 'pk', type: t.int4 }, { name: 'pt', type: t.text }];
  const probe = values(PB, [[3, 'a'], [3, 'a2'], [null, 'n'], [450, 'b'], [100000, 'none']]);
  for (const jt of ['left', 'anti', 'semi', 'inner', 'right', 'full', 'mark'] as const) {
    const s = scan();
    const columns = jt === 'mark' ? [...PB, { name: 'mark', type: t.bool }] : undefined;
    const plan = join2(jt, probe, s, [col(0, t.int4)], [c('k')], columns ? { columns } : {});
    const r = await threeWays(plan);
    assert.deepEqual(r.on, r.off, jt);
    assert.deepEqual(r.on, r.local, jt);
    const kept = Array.from({ length: ROWS }, (_, i) => row(i)).filter((x) => x[1] === 3 || x[1] === 450).length;
    if (jt === 'right' || jt === 'full' || jt === 'mark') assert.equal(r.metrics.get(s)?.extra.runtimeFilter, undefined, jt);
    else {
      assert.match(String(r.metrics.get(s)?.extra.runtimeFilter), /^k IN \(3 keys from Hash Join\)$/, jt);
      assert.equal(removed(r.metrics, s), ROWS - kept, jt);
    }
    if (jt === 'left') assert.equal(r.on.length, 2 * 12 - 2 + 12 - 1 + 2);
    if (jt === 'anti') assert.deepEqual(r.on, ['100000|"none"', 'null|"n"']);
  }
});

test('a build side under an aggregate grouped by the key, probed by a small left join (Q17 shape)', async () => {
  const s = scan();
  const avg = aggId('avg', t.numeric);
  const agg: PhysicalPlan = decidePhysicalPlan({
    kind: 'hashAggregate', input: s, groupBy: [c('k')],
    aggregates: [{ fn: avg.id, args: [c('amt')], distinct: false, type: avg.type }],
    columns: [{ name: 'k', type: t.int4 }, { name: 'a', type: avg.type }],
  });
  const PB: OutputColumn[] = [{ name: 'pk', type: t.int4 }];
  const plan = join2('left', values(PB, [[10], [20], [20], [null], [-5]]), agg, [col(0, t.int4)], [col(0, t.int4)]);
  const r = await threeWays(plan);
  assert.deepEqual(r.on, r.off);
  assert.deepEqual(r.on, r.local);
  assert.equal(r.on.length, 5);
  const kept = Array.from({ length: ROWS }, (_, i) => row(i)).filter((x) => x[1] === 10 || x[1] === 20).length;
  assert.equal(removed(r.metrics, s), ROWS - kept);
});

test('an OR residual implies a build-side restriction (Q19 shape): build rows it rules out are dropped before hashing', async () => {
  const s = scan();
  const PB: OutputColumn[] = [{ name: 'pk', type: t.int4 }, { name: 'brand', type: t.text }, { name: 'size', type: t.int4 }];
  const parts = values(PB, Array.from({ length: 500 }, (_, i) => [i, `B${i % 25}`, i % 50 === 0 ? null : i % 50]));
  const lw = C.length;
  const brand = col(lw + 1, t.text);
  const size = col(lw + 2, t.int4);
  // (brand = 'B1' AND size <= 10 AND q >= 5) OR (brand = 'B2' AND id < 3000): only B1/B2 parts can match.
  const residual: Expr = {
    kind: 'or', type: t.bool, args: [
      { kind: 'and', type: t.bool, args: [op('=', brand, lit('B1', t.text)), op('<=', size, lit(10, t.int4)), op('>=', c('q'), lit(5n, t.int8))] },
      { kind: 'and', type: t.bool, args: [op('=', brand, lit('B2', t.text)), op('<', c('id'), lit(3000, t.int4))] },
    ],
  };
  for (const jt of ['inner', 'semi', 'left', 'anti', 'right'] as const) {
    const plan = join2(jt, s, parts, [c('k')], [col(0, t.int4)], { residual });
    const r = await threeWays(plan);
    assert.deepEqual(r.on, r.off, jt);
    assert.deepEqual(r.on, r.local, jt);
    const ruledOut = r.metrics.get(plan)?.extra.buildRowsRemovedByResidual;
    // B1 with size <= 10 (sizes 1, 26 mod 50…: i ≡ 1 mod 25) and B2: 20 + 20 parts; B1 parts with size > 10 go too.
    if (jt === 'right') assert.equal(ruledOut, undefined, jt);
    else {
      const keptParts = Array.from({ length: 500 }, (_, i) => i).filter((i) => (i % 25 === 1 && i % 50 !== 0 && i % 50 <= 10) || i % 25 === 2).length;
      assert.equal(ruledOut, 500 - keptParts, jt);
    }
    if (jt === 'inner') {
      assert.ok(r.on.length > 0);
      assert.ok((removed(r.metrics, s) ?? 0) > ROWS / 2, 'the runtime filter sees only the remaining parts');
    }
  }
});

test('a semi/anti join whose build side passes the filter cap reads its small left input and builds on it (Q21 shape): same rows', async () => {
  const R2: OutputColumn[] = [{ name: 'rk', type: t.int4 }, { name: 'rq', type: t.int8 }];
  // 400 build rows over 200 distinct keys, past a cap of 50: no filter would be installed.
  const build = values(R2, Array.from({ length: 400 }, (_, j) => [j % 7 === 0 ? null : (j * 3) % 200, BigInt(j % 300)]));
  const settings = new Map([['floe.runtime_filter_max_keys', '50']]);
  for (const jt of ['semi', 'anti'] as const) {
    for (const residual of [undefined, op('<>', c('q'), col(C.length + 1, t.int8))]) {
      const s = scan();
      const plan = join2(jt, s, build, [c('k')], [col(0, t.int4)], residual ? { residual } : {});
      const r = await threeWays(plan, { settings });
      assert.deepEqual(r.on, r.off, jt);
      assert.deepEqual(r.on, r.local, jt);
      // Semi: the probe side's filter is given up for the left build. Anti has no probe-side filter:
      // its left input is read first anyway, and a right input this small builds as planned.
      assert.equal(r.metrics.get(plan)?.extra.buildSide, jt === 'semi' ? 'left' : undefined, jt);
      const brows = Array.from({ length: 400 }, (_, j) => [j % 7 === 0 ? null : (j * 3) % 200, BigInt(j % 300)]);
      const expected = Array.from({ length: ROWS }, (_, i) => row(i)).filter((x) => {
        const hit = x[1] !== null && brows.some((b) => b[0] === x[1] && (!residual || (x[2] !== null && x[2] !== b[1])));
        return jt === 'semi' ? hit : !hit;
      });
      assert.equal(r.on.length, expected.length, jt);
    }
  }
});

test('a semi join over a lake-scan build past the filter cap: the small left input builds and its keys filter the build scan (Q21 shape)', async () => {
  const settings = new Map([['floe.runtime_filter_max_keys', '50']]);
  const lw = C.length;
  for (const residual of [undefined, op('<>', c('q'), col(lw + 2, t.int8))]) {
    const s = scan();
    const left: PhysicalPlan = { kind: 'filter', input: s, predicate: op('<', c('id'), lit(700, t.int4)), columns: C };
    const b = scan();
    const plan = join2('semi', left, b, [c('k')], [col(1, t.int4)], residual ? { residual } : {});
    const r = await threeWays(plan, { settings });
    assert.deepEqual(r.on, r.off);
    assert.deepEqual(r.on, r.local);
    assert.equal(r.metrics.get(plan)?.extra.buildSide, 'left');
    const all = Array.from({ length: ROWS }, (_, i) => row(i));
    const expected = all.filter((x) => (x[0] as number) < 700 && x[1] !== null
      && all.some((y) => y[1] === x[1] && (!residual || (x[2] !== null && y[2] !== null && x[2] !== y[2]))));
    assert.equal(r.on.length, expected.length);
    assert.ok(expected.length > 0 && expected.length < 700);
  }
});

test('a semi/anti join whose left input the planner expects smaller reads it first: its keys filter every task of the right scan (Q4 shape)', async () => {
  for (const jt of ['semi', 'anti'] as const) {
    const left: PhysicalPlan = { kind: 'filter', input: scan(), predicate: op('<', c('id'), lit(300, t.int4)), columns: C };
    const b = scan();
    const base = join2(jt, left, b, [c('k')], [col(1, t.int4)]);
    const plan: HashJoinPlan = { ...base, leftLooksSmaller: true };
    const r = await threeWays(plan);
    assert.deepEqual(r.on, r.off);
    assert.deepEqual(r.on, r.local);
    const all = Array.from({ length: ROWS }, (_, i) => row(i));
    const leftKeys = new Set(all.filter((x) => (x[0] as number) < 300 && x[1] !== null).map((x) => x[1]));
    // Every right row whose key no left row has was dropped in the scan, none reached the join.
    assert.equal(removed(r.metrics, b), all.filter((y) => !leftKeys.has(y[1])).length, jt);
    // Without the hint a semi join, whose right keys can filter its left scan, reads the right input first:
    // its scan gets no filter. (An anti join's left input gets no filter, so it goes first either way.)
    const planned = await threeWays(base);
    assert.deepEqual(planned.on, r.on);
    if (jt === 'semi') assert.equal(removed(planned.metrics, b), undefined, jt);
  }
});

test('int4 keys read from Arrow buffers (a NULL-free lake column) join like decoded keys, on either side and every join type', async () => {
  const V: OutputColumn[] = [{ name: 'vk', type: t.int8 }, { name: 'tag', type: t.text }];
  const vrows = Array.from({ length: 300 }, (_, i) => [i % 29 === 0 ? null : BigInt((i * 37) % 7000), `t${i}`]);
  const all = Array.from({ length: ROWS }, (_, i) => row(i));
  const ids = new Set(all.map((x) => x[0] as number));
  const v = values(V, vrows);
  for (const jt of ['inner', 'left', 'semi', 'anti', 'right', 'full'] as const) {
    // The scan probes (left) …
    const p1 = join2(jt, scan(), v, [c('id')], [col(0, t.int8)]);
    const r1 = await threeWays(p1);
    assert.deepEqual(r1.on, r1.off, jt);
    assert.deepEqual(r1.on, r1.local, jt);
    const vkeys = new Map<number, number>();
    for (const x of vrows) if (x[0] !== null) vkeys.set(Number(x[0]), (vkeys.get(Number(x[0])) ?? 0) + 1);
    const matchedIds = all.filter((x) => vkeys.has(x[0] as number));
    const pairs = matchedIds.reduce((n, x) => n + vkeys.get(x[0] as number)!, 0);
    const vUnmatched = vrows.filter((x) => x[0] === null || !ids.has(Number(x[0]))).length;
    const want1 = { inner: pairs, left: pairs + ROWS - matchedIds.length, semi: matchedIds.length, anti: ROWS - matchedIds.length, right: pairs + vUnmatched, full: pairs + ROWS - matchedIds.length + vUnmatched }[jt];
    assert.equal(r1.on.length, want1, `scan probes: ${jt}`);
    // … and the scan builds (right).
    const p2 = join2(jt, v, scan(), [col(0, t.int8)], [c('id')]);
    const r2 = await threeWays(p2);
    assert.deepEqual(r2.on, r2.off, jt);
    assert.deepEqual(r2.on, r2.local, jt);
    const vMatched = vrows.length - vUnmatched;
    const want2 = { inner: pairs, left: pairs + vUnmatched, semi: vMatched, anti: vUnmatched, right: pairs + ROWS - matchedIds.length, full: pairs + vUnmatched + ROWS - matchedIds.length }[jt];
    assert.equal(r2.on.length, want2, `scan builds: ${jt}`);
  }
});

test('an int filter\'s keys go to workers as a view of shared memory, not a copy per task', async () => {
  const f = intRuntimeFilter(Float64Array.from([5, 7, 11]), 0)!;
  // (A message on assert.ok: without one, a failing assert.ok here hung node instead of failing.)
  assert.ok((f.values as Float64Array).buffer instanceof SharedArrayBuffer, 'the keys are in a SharedArrayBuffer');
  // What a task message does to them: the receiving side sees writes made here afterwards.
  const { port1, port2 } = new MessageChannel();
  const received = new Promise<unknown>((resolve) => port2.once('message', resolve));
  port1.postMessage({ runtimeFilters: [f] });
  const copy = (await received) as { runtimeFilters: RuntimeFilter[] };
  (f.values as Float64Array)[0] = 6;
  assert.deepEqual([...copy.runtimeFilters[0]!.values], [6, 7, 11]);
  port1.close();
  assert.deepEqual([...intRuntimeFilter([1, 2], 0)!.values], [1, 2]);
  assert.equal(intRuntimeFilter([1, 2, 3], 0, 2), undefined);
});

test('runtime filter settings: unset or reset to their default they mean on and the built-in cap', () => {
  const runWith = (entries: [string, string][]) => createRunState({ params: [], settings: new Map(entries), transactionStartMicros: 0n });
  assert.equal(runtimeFilterMaxKeys(runWith([])), RUNTIME_FILTER_MAX_KEYS);
  assert.equal(runtimeFilterMaxKeys(runWith([[RUNTIME_FILTER_MAX_KEYS_SETTING, '']])), RUNTIME_FILTER_MAX_KEYS);
  assert.equal(runtimeFilterMaxKeys(runWith([[RUNTIME_FILTER_MAX_KEYS_SETTING, ' 25 ']])), 25);
  assert.equal(runtimeFilterMaxKeys(runWith([[RUNTIME_FILTER_MAX_KEYS_SETTING, '0']])), 0);
  assert.equal(runtimeFiltersEnabled(runWith([[RUNTIME_FILTERS_SETTING, '']])), true);
  assert.equal(runtimeFiltersEnabled(runWith([[RUNTIME_FILTERS_SETTING, 'OFF']])), false);
});

test('a filter whose keys are every integer of a range holding the column\'s (by statistics) is not applied: same rows, nothing removed', async () => {
  // k holds 0..499 (and NULLs): keys 0..499 cannot remove a non-NULL row, keys with a gap can.
  const everyKey = values(KEYS4, Array.from({ length: 500 }, (_, i) => [i, `t${i}`]));
  const covered = scan({ columnRanges: { k: [0, 499], id: [0, ROWS - 1] } });
  const plan = join2('inner', covered, everyKey, [c('k')], [col(0, t.int4)]);
  const { on, off, local, metrics } = await threeWays(plan);
  assert.deepEqual(on, off);
  assert.deepEqual(on, local);
  assert.equal(on.length, Array.from({ length: ROWS }, (_, i) => row(i)).filter((r) => r[1] !== null).length);
  assert.match(String(metrics.get(covered)?.extra.runtimeFilter), /^k IN \(500 keys from Hash Join\) \(keys cover the column's range: not applied\)$/);
  assert.equal(removed(metrics, covered), 0);

  // One key missing (250): the filter applies and removes the rows of k = 250, and the NULL ks.
  const gap = values(KEYS4, Array.from({ length: 500 }, (_, i) => [i, `t${i}`]).filter((r) => r[0] !== 250));
  const partial = scan({ columnRanges: { k: [0, 499] } });
  const withGap = await threeWays(join2('inner', partial, gap, [c('k')], [col(0, t.int4)]));
  assert.match(String(withGap.metrics.get(partial)?.extra.runtimeFilter), /^k IN \(499 keys from Hash Join\)$/);
  assert.equal(removed(withGap.metrics, partial), Array.from({ length: ROWS }, (_, i) => row(i)).filter((r) => r[1] === 250 || r[1] === null).length);

  // Date keys are not compared with ranges (statistics need not count days alike): applied.
  const dated = scan({ columnRanges: { d: [10000, 10049] } });
  const everyDay = values([{ name: 'bd', type: t.date }], Array.from({ length: 50 }, (_, i) => [10000 + i]));
  const days = await threeWays(join2('inner', dated, everyDay, [c('d')], [col(0, t.date)]));
  assert.match(String(days.metrics.get(dated)?.extra.runtimeFilter), /^d IN \(50 keys from Hash Join\)$/);

  // A range reaching past the keys (statistics saw k = 500): applied.
  const wider = scan({ columnRanges: { k: [0, 500] } });
  const past = await threeWays(join2('inner', wider, everyKey, [c('k')], [col(0, t.int4)]));
  assert.match(String(past.metrics.get(wider)?.extra.runtimeFilter), /^k IN \(500 keys from Hash Join\)$/);
});

test('a scan that keeps its row groups decoded (an incremental refresh\'s) answers as one that does not, run after run, with pending changes on an optimized base', async () => {
  // Last in this file: the optimize and the update leave the rows the other tests expect.
  await wh.optimize(facts);
  // Two rows move to k = 77 (pending changes over the optimized base).
  const moved = [row(3), row(503)].map((r) => [r[0], 77, ...r.slice(2)]);
  const txn = await wh.begin();
  await txn.upsert(wh.getTableById(facts.id)!, 'main', C.map((_, j) => moved.map((r) => r[j])));
  await txn.commit();
  const build = values(KEYS4, [[3, 'a'], [77, 'moved'], [499, 'c']]);
  const unkept = scan();
  const plain = await threeWays(join2('inner', unkept, build, [c('k')], [col(0, t.int4)]));
  assert.ok(plain.metrics.get(unkept) !== undefined);
  assert.deepEqual(plain.on, plain.off);
  const kept = scan({ keepDecoded: true });
  const plan = join2('inner', kept, build, [c('k')], [col(0, t.int4)]);
  let hits = 0;
  for (let run = 0; run < 3; run++) {
    const { on, off, local, metrics } = await threeWays(plan);
    assert.deepEqual(on, plain.on, `run ${run}`);
    assert.deepEqual(off, plain.on, `run ${run}, no filter`);
    assert.deepEqual(local, plain.on, `run ${run}, in this thread`);
    // A worker's first read of the base file decodes it; every later one of that worker finds it kept.
    if (run > 0) hits += Number(metrics.get(kept)?.extra.rowGroupCacheHits ?? 0);
  }
  assert.ok(hits > 0, 'later runs on the scan workers read the kept row groups');
  assert.equal((await threeWays(join2('inner', unkept, build, [c('k')], [col(0, t.int4)]))).metrics.get(unkept)?.extra.rowGroupCacheHits, undefined, 'a scan not planned to keep them does not');
});
