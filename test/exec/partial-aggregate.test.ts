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
import type { AggregateCall, ExecContext, Expr, OutputColumn, PhysicalPlan, ScanPool } from '../../src/exec/index.js';
import { abortingPool, aggId, col, int, lit, op, rowsOf, t } from './exec-test-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'floe-partial-agg-'));
let wh: Warehouse;
let facts: TableMetadata;
let quarters: TableMetadata;
let tiny: TableMetadata;
const pool = createScanPool({ threads: 2 });

const C: OutputColumn[] = [
  { name: 'id', type: t.int4 }, { name: 'region', type: t.text }, { name: 'k', type: t.int4 }, { name: 'd', type: t.date },
  { name: 'amt', type: t.numeric }, { name: 'q', type: t.int8 }, { name: 'f', type: t.float8 }, { name: 's', type: t.int2 },
  { name: 'ok', type: t.bool }, { name: 'part', type: t.int4 },
];
const REGIONS = ['north', 'south', 'east', 'west', null];
/** Mixed scales, 15- and 16-digit values, values only BigInt holds, negative zero-ish text. */
const AMOUNTS = ['1.5', '2.25', '-0.00', '999999999999999', '-99999999999999.9', '12345678901234567.89', '0', '7', null, '-3.125'];

function row(i: number): unknown[] {
  return [
    i, REGIONS[i % 5], i % 7 === 0 ? null : i % 6, 10000 + (i % 9), AMOUNTS[i % AMOUNTS.length],
    i % 11 === 0 ? null : BigInt(i) * 1_000_000_000n, i % 13 === 0 ? null : i / 8, i % 5 === 0 ? null : i % 100, i % 3 === 0, i % 5,
  ];
}

const ref = (tm: TableMetadata) => ({ id: tm.id, namespace: tm.namespace, name: tm.name });
const scanOf = (tm: TableMetadata, residual?: Expr): PhysicalPlan => ({
  kind: 'lakeScan', table: ref(tm), projection: C.map((c) => c.name), filters: [], columns: C, ...(residual ? { residual } : {}),
});

async function insert(tm: TableMetadata, rows: unknown[][]): Promise<void> {
  const txn = await wh.begin();
  const input: PhysicalPlan = { kind: 'values', columns: C, rows: rows.map((r) => r.map((v, i) => lit(v, C[i]!.type))) };
  await rowsOf({ kind: 'insert', table: ref(tm), input, columns: [] }, { warehouse: wh, txn });
  await txn.commit();
}

/** Rows over existing keys replace them: a blind upsert (a plain INSERT of a live key is 23505). */
async function upsert(tm: TableMetadata, rows: unknown[][]): Promise<void> {
  const txn = await wh.begin();
  await txn.upsert(tm, 'main', C.map((_, c) => rows.map((r) => r[c])));
  await txn.commit();
}

before(async () => {
  wh = await openWarehouse({ path: dir });
  const columns = C.map((c) => ({ name: c.name, type: c.type, nullable: c.name !== 'id' && c.name !== 'part' }));
  facts = await wh.createTable({
    namespace: 'public', name: 'facts', primaryKey: ['id', 'part'],
    partitionBy: [{ sourceColumn: 'part', transform: { kind: 'identity' }, name: 'part' }], columns,
  });
  // Three commits: each partition's task merges several change files.
  await insert(facts, Array.from({ length: 1200 }, (_, i) => row(i)));
  await insert(facts, Array.from({ length: 300 }, (_, i) => row(1200 + i)));
  await upsert(facts, Array.from({ length: 200 }, (_, i) => { const r = row(i * 5); r[4] = '0.001'; return r; }));
  // Four partitions of 1000 rows: enough rows per task for a grouping of 500 groups a task.
  quarters = await wh.createTable({
    namespace: 'public', name: 'quarters', primaryKey: ['id', 'part'],
    partitionBy: [{ sourceColumn: 'part', transform: { kind: 'identity' }, name: 'part' }], columns,
  });
  await insert(quarters, Array.from({ length: 4000 }, (_, i) => { const r = row(i); r[9] = i % 4; return r; }));
  tiny = await wh.createTable({ namespace: 'public', name: 'tiny', primaryKey: ['id'], columns });
  await insert(tiny, Array.from({ length: 40 }, (_, i) => row(i)));
});

after(async () => {
  await pool.close();
  await wh?.close();
  rmSync(dir, { recursive: true, force: true });
});

function call(name: string, args: Expr[], filter?: Expr): AggregateCall {
  const a = aggId(name, ...args.map((x) => x.type));
  return { fn: a.id, args, distinct: false, type: a.type, ...(filter ? { filter } : {}) };
}

const c = (name: string): Expr => { const i = C.findIndex((x) => x.name === name); return col(i, C[i]!.type); };

/** Every aggregate kind with a batch step, and some without (stddev, bool_and, string_agg over one row per group is order-free). */
function everyAggregate(): AggregateCall[] {
  return [
    call('count', []), call('count', [c('k')]), call('count', [c('amt')]),
    call('sum', [c('s')]), call('sum', [c('k')]), call('sum', [c('q')]), call('sum', [c('f')]), call('sum', [c('amt')]),
    call('avg', [c('s')]), call('avg', [c('k')]), call('avg', [c('q')]), call('avg', [c('f')]), call('avg', [c('amt')]),
    call('min', [c('k')]), call('max', [c('k')]), call('min', [c('region')]), call('max', [c('region')]),
    call('min', [c('d')]), call('max', [c('d')]), call('min', [c('amt')]), call('max', [c('amt')]), call('max', [c('q')]),
    call('stddev', [c('k')]), call('bool_and', [c('ok')]), call('bool_or', [c('ok')]),
    call('sum', [c('amt')], op('=', c('ok'), lit(true, t.bool))),
  ];
}

function aggregate(input: PhysicalPlan, groupBy: Expr[], aggs: AggregateCall[] = everyAggregate()): PhysicalPlan {
  const columns = [...groupBy.map((e, i) => ({ name: `k${i}`, type: e.type })), ...aggs.map((a, i) => ({ name: `a${i}`, type: a.type }))];
  // Decided as the planner decides an aggregate: a partial per scan task in the workers when its input ships.
  return decidePhysicalPlan({ kind: 'hashAggregate', input, groupBy, aggregates: aggs, columns });
}

/** Rows in a canonical order (by their text), so group order does not matter. */
function sorted(rows: unknown[][]): string[] {
  return rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))).sort();
}

async function bothWays(plan: PhysicalPlan, ctx: Partial<ExecContext> = {}): Promise<{ shipped: string[]; local: string[]; metrics: Map<unknown, { extra: Record<string, unknown>; rowsOut: number }> }> {
  const metrics = new Map();
  const shipped = sorted(await rowsOf(plan, { warehouse: wh, pool, metrics, ...ctx }));
  const local = sorted(await rowsOf(plan, { warehouse: wh, ...ctx }));
  return { shipped, local, metrics };
}

test('the scan splits into several tasks (one per partition), so partials merge across workers', async () => {
  const plan = await wh.planScan({ table: facts, projection: ['id'] });
  assert.ok(plan.tasks.length >= 5, `expected a task per partition, got ${plan.tasks.length}`);
});

for (const [label, key] of [['int (with NULLs)', 'k'], ['text (with NULLs)', 'region'], ['date', 'd'], ['numeric (mixed scales, NULLs)', 'amt'], ['bigint', 'q']] as const) {
  test(`partial aggregates in the workers equal the single-thread path: GROUP BY ${label}`, async () => {
    const plan = aggregate(scanOf(facts), [c(key)]);
    const { shipped, local, metrics } = await bothWays(plan);
    const extra = metrics.get(plan)?.extra ?? {};
    // Nearly unique keys (bigint) turn later tasks to sending rows; every task still went through the pool.
    assert.ok((extra.partialInWorkers as number) + ((extra.tasksSentRows as number | undefined) ?? 0) >= 5, 'the aggregate ran in the workers');
    if (key === 'amt') {
      // Equal numerics of different scales ('0', '0.00', '-0.00') form one group shown with
      // whichever spelling arrived first, and min/max among them keep whichever they met
      // first: both depend on the order partials merge in (PostgreSQL's parallel aggregate
      // has the same freedom), so the key is compared by value and zero spellings as zero.
      const zero = (v: unknown) => (typeof v === 'string' && /^-?0(\.0+)?$/.test(v) ? '0' : v);
      const byValue = (rows: string[]) => rows.map((r) => {
        const [k, ...rest] = JSON.parse(r) as unknown[];
        return JSON.stringify([k === null ? null : Number(k), ...rest.map(zero)]);
      }).sort();
      assert.deepEqual(byValue(shipped), byValue(local));
    } else assert.deepEqual(shipped, local);
    assert.ok(local.length > 3);
  });
}

test('composite keys, a global aggregate, and a Filter/Project pipeline between the scan and the aggregate ship too', async () => {
  const composite = aggregate(scanOf(facts), [c('region'), c('k'), c('d')]);
  const r1 = await bothWays(composite);
  assert.ok(r1.metrics.get(composite)?.extra.partialInWorkers);
  assert.deepEqual(r1.shipped, r1.local);

  const global = aggregate(scanOf(facts), []);
  const r2 = await bothWays(global);
  assert.equal(r2.shipped.length, 1);
  assert.deepEqual(r2.shipped, r2.local);

  // SELECT k % 3, sum(amt * 2), count(*) FROM (SELECT … WHERE id > $1) … with a residual on the scan.
  const filter: PhysicalPlan = { kind: 'filter', input: scanOf(facts, op('<>', c('id'), int(17))), predicate: op('>', c('id'), { kind: 'param', index: 0, type: t.int4 }), columns: C };
  const project: PhysicalPlan = {
    kind: 'project', input: filter, exprs: [op('%', c('k'), int(3)), op('*', c('amt'), lit('2', t.numeric)), c('f')],
    columns: [{ name: 'm', type: t.int4 }, { name: 'a2', type: t.numeric }, { name: 'f', type: t.float8 }],
  };
  const overPipeline = aggregate(project, [col(0, t.int4)], [call('count', []), call('sum', [col(1, t.numeric)]), call('avg', [col(2, t.float8)])]);
  const r3 = await bothWays(overPipeline, { params: [100] });
  assert.ok(r3.metrics.get(overPipeline)?.extra.partialInWorkers);
  assert.deepEqual(r3.shipped, r3.local);
  // EXPLAIN ANALYZE counts still reach the nodes that ran inside the workers.
  assert.equal(r3.metrics.get(filter)?.rowsOut, 1500 - 101);
  assert.equal(r3.metrics.get(project)?.rowsOut, 1500 - 101);
});

test('empty inputs: a global aggregate gives one row (count 0, sum NULL); a grouped one gives none', async () => {
  const none = scanOf(facts, op('<', c('id'), int(0)));
  const global = aggregate(none, [], [call('count', []), call('sum', [c('amt')]), call('avg', [c('k')]), call('max', [c('region')])]);
  assert.deepEqual(await rowsOf(global, { warehouse: wh, pool }), [[0n, null, null, null]]);
  assert.deepEqual(await rowsOf(aggregate(none, [c('k')]), { warehouse: wh, pool }), []);
});

test('a tiny single-task scan aggregates in the calling thread with the same result', async () => {
  const plan = aggregate(scanOf(tiny), [c('region')]);
  const { shipped, local, metrics } = await bothWays(plan);
  assert.equal(metrics.get(plan)?.extra.partialInWorkers, undefined);
  assert.deepEqual(shipped, local);
});

test('numeric sums stay exact across the double fast path, its BigInt spill and partial merges', async () => {
  const plan = aggregate(scanOf(facts), [], [call('sum', [c('amt')]), call('count', [c('amt')])]);
  const [[sum, count]] = await rowsOf(plan, { warehouse: wh, pool }) as [[string, bigint]];
  // The exact sum, computed here with BigInt at scale 3.
  const all = new Map<string, unknown[]>();
  for (let i = 0; i < 1500; i++) { const r = row(i); all.set(`${r[0]}`, r); }
  for (let i = 0; i < 200; i++) { const r = row(i * 5); r[4] = '0.001'; all.set(`${r[0]}`, r); }
  let exact = 0n;
  let n = 0n;
  for (const r of all.values()) {
    const v = r[4] as string | null;
    if (v === null) continue;
    n++;
    const [ip, fp = ''] = v.replace('-', '').split('.');
    const scaled = BigInt(ip! + fp.padEnd(3, '0'));
    exact += v.startsWith('-') ? -scaled : scaled;
  }
  const neg = exact < 0n;
  const digits = (neg ? -exact : exact).toString().padStart(4, '0');
  assert.equal(sum, `${neg ? '-' : ''}${digits.slice(0, -3)}.${digits.slice(-3)}`);
  assert.equal(count, n);
});

test('worker errors keep their SQLSTATE: division by zero in a shipped filter, integer overflow in a shipped projection', async () => {
  const divByZero = scanOf(facts, op('>', op('/', int(100), op('-', c('id'), c('id'))), int(1)));
  const plan = aggregate(divByZero, [c('k')], [call('count', [])]);
  await assert.rejects(rowsOf(plan, { warehouse: wh, pool }), (e: unknown) => e instanceof FloeError && e.sqlstate === '22012');
  const project: PhysicalPlan = {
    kind: 'project', input: scanOf(facts), exprs: [op('*', c('id'), int(2147483647))], columns: [{ name: 'x', type: t.int4 }],
  };
  await assert.rejects(rowsOf(aggregate(project, [], [call('sum', [col(0, t.int4)])]), { warehouse: wh, pool }),
    (e: unknown) => e instanceof FloeError && e.sqlstate === '22003');
});

test('a worker partial aggregate is charged against the query memory limit (53200)', async () => {
  const plan = aggregate(scanOf(facts), [c('id')], [call('count', [])]);
  let fromWorker: unknown;
  const watching: ScanPool = {
    size: pool.size, close: () => pool.close(), run: (task, signal, fragment) => pool.run(task, signal, fragment),
    aggregate: async (task, signal, fragment) => {
      try { return await pool.aggregate!(task, signal, fragment); } catch (e) { fromWorker ??= e; throw e; }
    },
  };
  await assert.rejects(rowsOf(plan, { warehouse: wh, pool: watching, memoryLimitBytes: 20_000 }), (e: unknown) => e instanceof FloeError && e.sqlstate === '53200');
  assert.ok(fromWorker instanceof FloeError && fromWorker.sqlstate === '53200', 'the worker itself hit the limit');
});

test('cancellation while partial aggregates run in the workers fails with 57014', async () => {
  const ac = new AbortController();
  const cancelling = abortingPool(pool, ac);
  const plan = aggregate(scanOf(facts), [c('region')]);
  await assert.rejects(rowsOf(plan, { warehouse: wh, pool: cancelling.pool, signal: ac.signal }), (e: unknown) => e instanceof FloeError && e.sqlstate === '57014');
  assert.ok(cancelling.started() >= 1);
  // The pool still serves the next query.
  const again = await bothWays(plan);
  assert.deepEqual(again.shipped, again.local);
});

test('a cancelled task\'s late result (piscina: "Unexpected message from Worker") is dropped; other pool errors still throw', async () => {
  // The race (a worker posts its result as the query is cancelled and piscina drops the
  // worker) crashed this file once in CI; it is too narrow to provoke on purpose here.
  const { onPoolError } = await import('../../src/exec/pool/piscina-scan-pool.js');
  assert.doesNotThrow(() => onPoolError(new Error('Unexpected message from Worker: { taskId: 61 }')));
  assert.throws(() => onPoolError(new Error('worker exited during bootstrap')), /bootstrap/);
});

test('what does not ship keeps the batch path: DISTINCT aggregates, grouping sets, subquery-free check', async () => {
  const distinct: AggregateCall = { ...call('count', [c('k')]), distinct: true };
  const plan = aggregate(scanOf(facts), [c('region')], [distinct, call('sum', [c('amt')])]);
  const r = await bothWays(plan);
  assert.equal(r.metrics.get(plan)?.extra.partialInWorkers, undefined);
  assert.deepEqual(r.shipped, r.local);
  const sets: PhysicalPlan = {
    kind: 'hashAggregate', input: scanOf(facts), groupBy: [c('region'), c('k')], groupingSets: [[0, 1], [0], []],
    aggregates: [call('count', []), call('sum', [c('amt')])],
    columns: [{ name: 'r', type: t.text }, { name: 'k', type: t.int4 }, { name: 'n', type: t.int8 }, { name: 's', type: t.numeric }, { name: 'g', type: t.int4 }],
  };
  const r2 = await bothWays(sets);
  assert.equal(r2.metrics.get(sets)?.extra.partialInWorkers, undefined);
  assert.deepEqual(r2.shipped, r2.local);
  // 5 regions × up to 7 k values, 5 region subtotals, 1 grand total.
  const grand = r2.local.filter((x) => x.endsWith(',3]'));
  assert.equal(grand.length, 1);
});


test('when a partial barely reduces its rows (GROUP BY a unique key), the remaining tasks send rows instead; results stay equal', async () => {
  const byId = aggregate(scanOf(facts), [c('id'), c('part')]);
  const r1 = await bothWays(byId);
  assert.deepEqual(r1.shipped, r1.local);
  assert.ok(r1.local.length >= 1500);
  const extra = r1.metrics.get(byId)?.extra ?? {};
  assert.ok((extra.tasksSentRows as number) >= 1, `expected tasks to send rows: ${JSON.stringify(extra)}`);
  assert.ok((extra.partialInWorkers as number) >= 1, 'the first tasks still aggregate in the workers');
  // Metrics stay whole across both paths: the scan read every stored row once.
  assert.equal(r1.metrics.get(byId.kind === 'hashAggregate' ? byId.input : byId)?.extra.rowsScanned, 1500);

  // With a residual filter and a Filter/Project pipeline, the rows sent back go through both here.
  const filter: PhysicalPlan = { kind: 'filter', input: scanOf(facts, op('<>', c('id'), int(17))), predicate: op('>', c('id'), { kind: 'param', index: 0, type: t.int4 }), columns: C };
  const project: PhysicalPlan = {
    kind: 'project', input: filter, exprs: [c('id'), c('part'), op('*', c('amt'), lit('2', t.numeric))],
    columns: [{ name: 'id', type: t.int4 }, { name: 'part', type: t.int4 }, { name: 'a2', type: t.numeric }],
  };
  // bool_or keeps a state object per group, so rows are cheaper to send than its partials.
  const overPipeline = aggregate(project, [col(0, t.int4), col(1, t.int4)], [call('count', []), call('sum', [col(2, t.numeric)]), call('bool_or', [op('>', col(0, t.int4), int(700))])]);
  const r2 = await bothWays(overPipeline, { params: [100] });
  assert.deepEqual(r2.shipped, r2.local);
  assert.ok((r2.metrics.get(overPipeline)?.extra.tasksSentRows as number) >= 1);
  // ids 101..1499 pass `id > $1`; 17 was already below it.
  assert.equal(r2.local.length, 1399);
});

test('when every aggregate keeps typed columns, partials come back unless nearly every row is its own group', async () => {
  const typed = () => [
    call('count', []), call('count', [c('amt')]), call('sum', [c('amt')]), call('avg', [c('amt')]), call('sum', [c('k')]), call('avg', [c('q')]),
    call('sum', [c('f')]), call('min', [c('d')]), call('max', [c('k')]),
  ];
  // 500 groups of a task's 1000 rows: a typed merge costs less than the rows; object states do not.
  const halving = op('%', c('id'), int(2000));
  const reduced = aggregate(scanOf(quarters), [halving], typed());
  const r1 = await bothWays(reduced);
  assert.deepEqual(r1.shipped, r1.local);
  assert.equal(r1.local.length, 2000);
  assert.equal(r1.metrics.get(reduced)?.extra.tasksSentRows, undefined, `no task sends rows: ${JSON.stringify(r1.metrics.get(reduced)?.extra)}`);
  const withObjects = aggregate(scanOf(quarters), [halving], [...typed(), call('bool_or', [c('ok')])]);
  const r2 = await bothWays(withObjects);
  assert.deepEqual(r2.shipped, r2.local);
  assert.ok((r2.metrics.get(withObjects)?.extra.tasksSentRows as number) >= 1, 'object states at 50% send rows');
  // Every row its own group: the remaining tasks send rows, typed or not.
  const unique = aggregate(scanOf(quarters), [c('id'), c('part')], typed());
  const r3 = await bothWays(unique);
  assert.deepEqual(r3.shipped, r3.local);
  assert.equal(r3.local.length, 4000);
  const extra = r3.metrics.get(unique)?.extra ?? {};
  assert.ok((extra.tasksSentRows as number) >= 1, `expected tasks to send rows: ${JSON.stringify(extra)}`);
  assert.ok((extra.partialInWorkers as number) >= 1, 'the first tasks still aggregate in the workers');
});
