import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FloeError } from '../../src/common/floe-error.js';
import type { Expr } from '../../src/exec/expr/expr.js';
import type { JoinType, OutputColumn, PhysicalPlan, SortKey } from '../../src/exec/plan/physical-plan.js';
import { aggId, col, evalExpr, int, lit, op, rowsOf, t, values } from './exec-test-helpers.js';
import { decidePhysicalPlan } from '../../src/planner/index.js';

const people: OutputColumn[] = [{ name: 'id', type: t.int4 }, { name: 'dept', type: t.text }, { name: 'salary', type: t.int4 }];
const peopleRows = [
  [1, 'eng', 100], [2, 'eng', 200], [3, 'ops', 50], [4, null, 70], [5, 'ops', null], [6, 'eng', 200],
];
const P = values(people, peopleRows);

const asc = (expr: Expr, nullsFirst = false): SortKey => ({ expr, descending: false, nullsFirst });
const desc = (expr: Expr, nullsFirst = true): SortKey => ({ expr, descending: true, nullsFirst });

test('filter and project', async () => {
  const plan: PhysicalPlan = {
    kind: 'project',
    input: { kind: 'filter', input: P, predicate: op('>', col(2, t.int4), int(60)), columns: people },
    exprs: [col(0, t.int4), op('*', col(2, t.int4), int(2))],
    columns: [{ name: 'id', type: t.int4 }, { name: 'double', type: t.int4 }],
  };
  assert.deepEqual(await rowsOf(plan), [[1, 200], [2, 400], [4, 140], [6, 400]]);
});

test('filter rejects a non-boolean predicate at construction', async () => {
  await assert.rejects(rowsOf({ kind: 'filter', input: P, predicate: int(1), columns: people }), (e: unknown) => e instanceof FloeError && e.sqlstate === '42804');
});

test('sort with NULLS FIRST/LAST, topN, limit/offset', async () => {
  const sorted = await rowsOf({ kind: 'sort', input: P, keys: [asc(col(2, t.int4)), asc(col(0, t.int4))], columns: people });
  assert.deepEqual(sorted.map((r) => r[0]), [3, 4, 1, 2, 6, 5]);
  const sortedDesc = await rowsOf({ kind: 'sort', input: P, keys: [desc(col(2, t.int4)), asc(col(0, t.int4))], columns: people });
  assert.deepEqual(sortedDesc.map((r) => r[0]), [5, 2, 6, 1, 4, 3]);
  const top = await rowsOf({ kind: 'topN', input: P, keys: [desc(col(2, t.int4), false), asc(col(0, t.int4))], limit: lit(2n, t.int8), offset: lit(1n, t.int8), columns: people });
  assert.deepEqual(top.map((r) => r[0]), [6, 1]);
  const lim = await rowsOf({ kind: 'limit', input: P, limit: lit(2n, t.int8), offset: lit(3n, t.int8), columns: people });
  assert.deepEqual(lim.map((r) => r[0]), [4, 5]);
  const all = await rowsOf({ kind: 'limit', input: P, limit: lit(null, t.int8), columns: people });
  assert.equal(all.length, 6);
});

test('hash aggregate: groups with NULL keys, NULL-skipping aggregates, PostgreSQL result types', async () => {
  const sum = aggId('sum', t.int4); const avg = aggId('avg', t.int4); const cnt = aggId('count'); const cntA = aggId('count', t.int4);
  const mx = aggId('max', t.int4); const sa = aggId('string_agg', t.text, t.text);
  const plan: PhysicalPlan = {
    kind: 'sort',
    keys: [asc(col(0, t.text))],
    columns: [],
    input: {
      kind: 'hashAggregate', input: P, groupBy: [col(1, t.text)],
      aggregates: [
        { fn: sum.id, args: [col(2, t.int4)], distinct: false, type: sum.type },
        { fn: avg.id, args: [col(2, t.int4)], distinct: false, type: avg.type },
        { fn: cnt.id, args: [], distinct: false, type: cnt.type },
        { fn: cntA.id, args: [col(2, t.int4)], distinct: false, type: cntA.type },
        { fn: cntA.id, args: [col(2, t.int4)], distinct: true, type: cntA.type },
        { fn: mx.id, args: [col(2, t.int4)], distinct: false, type: mx.type },
        { fn: sa.id, args: [{ kind: 'cast', arg: col(0, t.int4), type: t.text }, lit(',', t.text)], distinct: false, orderBy: [desc(col(0, t.int4))], type: sa.type },
      ],
      columns: [{ name: 'dept', type: t.text }, { name: 'sum', type: t.int8 }, { name: 'avg', type: t.numeric }, { name: 'n', type: t.int8 },
        { name: 'nv', type: t.int8 }, { name: 'nd', type: t.int8 }, { name: 'max', type: t.int4 }, { name: 'ids', type: t.text }],
    },
  } as PhysicalPlan;
  const fixed = { ...plan, columns: (plan as unknown as { input: { columns: OutputColumn[] } }).input.columns } as PhysicalPlan;
  assert.deepEqual(await rowsOf(fixed), [
    ['eng', 500n, '166.6666666666666667', 3n, 3n, 2n, 200, '6,2,1'],
    ['ops', 50n, '50.0000000000000000', 2n, 1n, 1n, 50, '5,3'],
    [null, 70n, '70.0000000000000000', 1n, 1n, 1n, 70, '4'],
  ]);
});

test('aggregate without GROUP BY returns one row on empty input', async () => {
  const sum = aggId('sum', t.int4); const cnt = aggId('count');
  const rows = await rowsOf({
    kind: 'hashAggregate', input: values(people, []), groupBy: [],
    aggregates: [{ fn: sum.id, args: [col(2, t.int4)], distinct: false, type: sum.type }, { fn: cnt.id, args: [], distinct: false, type: cnt.type }],
    columns: [{ name: 'sum', type: t.int8 }, { name: 'count', type: t.int8 }],
  });
  assert.deepEqual(rows, [[null, 0n]]);
  const nonEmpty = await rowsOf({
    kind: 'hashAggregate', input: P, groupBy: [],
    aggregates: [{ fn: sum.id, args: [col(2, t.int4)], distinct: false, type: sum.type }, { fn: cnt.id, args: [], distinct: false, type: cnt.type }],
    columns: [{ name: 'sum', type: t.int8 }, { name: 'count', type: t.int8 }],
  });
  assert.deepEqual(nonEmpty, [[620n, 6n]]);
});

test('grouping sets with grouping id', async () => {
  const cnt = aggId('count');
  const rows = await rowsOf({
    kind: 'sort', keys: [asc(col(2, t.int4)), asc(col(0, t.text))],
    columns: [{ name: 'dept', type: t.text }, { name: 'count', type: t.int8 }, { name: 'g', type: t.int4 }],
    input: {
      kind: 'hashAggregate', input: P, groupBy: [col(1, t.text)], groupingSets: [[0], []],
      aggregates: [{ fn: cnt.id, args: [], distinct: false, type: cnt.type }],
      columns: [{ name: 'dept', type: t.text }, { name: 'count', type: t.int8 }, { name: 'g', type: t.int4 }],
    },
  });
  assert.deepEqual(rows, [['eng', 3n, 0], ['ops', 2n, 0], [null, 1n, 0], [null, 6n, 1]]);
});

const L: OutputColumn[] = [{ name: 'k', type: t.int4 }, { name: 'l', type: t.text }];
const R: OutputColumn[] = [{ name: 'k', type: t.int4 }, { name: 'r', type: t.text }];
const left = values(L, [[1, 'a'], [2, 'b'], [null, 'n'], [4, 'd']]);
const right = values(R, [[1, 'x'], [1, 'y'], [3, 'z'], [null, 'm']]);

function join(kind: 'hashJoin' | 'nestedLoopJoin', jt: JoinType, l = left, r = right): PhysicalPlan {
  const columns = jt === 'semi' || jt === 'anti' ? L : jt === 'mark' ? [...L, { name: 'mark', type: t.bool }] : [...L, ...R];
  if (kind === 'hashJoin') {
    // Decided as the planner decides a join: small left inputs build.
    return decidePhysicalPlan({ kind, joinType: jt, left: l, right: r, leftKeys: [col(0, t.int4)], rightKeys: [col(0, t.int4)], columns });
  }
  return { kind, joinType: jt, left: l, right: r, condition: op('=', col(0, t.int4), col(2, t.int4)), columns };
}

const sortRows = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();

test('joins of every type (hash and nested loop agree)', async () => {
  const expected: Record<JoinType, unknown[][]> = {
    inner: [[1, 'a', 1, 'x'], [1, 'a', 1, 'y']],
    left: [[1, 'a', 1, 'x'], [1, 'a', 1, 'y'], [2, 'b', null, null], [null, 'n', null, null], [4, 'd', null, null]],
    right: [[1, 'a', 1, 'x'], [1, 'a', 1, 'y'], [null, null, 3, 'z'], [null, null, null, 'm']],
    full: [[1, 'a', 1, 'x'], [1, 'a', 1, 'y'], [2, 'b', null, null], [null, 'n', null, null], [4, 'd', null, null], [null, null, 3, 'z'], [null, null, null, 'm']],
    semi: [[1, 'a']],
    anti: [[2, 'b'], [null, 'n'], [4, 'd']],
    // IN semantics: the right side holds a NULL, so non-matches are NULL, not false.
    mark: [[1, 'a', true], [2, 'b', null], [null, 'n', null], [4, 'd', null]],
  };
  for (const jt of Object.keys(expected) as JoinType[]) {
    for (const kind of ['hashJoin', 'nestedLoopJoin'] as const) {
      assert.deepEqual(sortRows(await rowsOf(join(kind, jt))), sortRows(expected[jt]), `${kind} ${jt}`);
    }
  }
  const rightNoNull = values(R, [[1, 'x'], [3, 'z']]);
  assert.deepEqual(sortRows(await rowsOf(join('hashJoin', 'mark', left, rightNoNull))),
    sortRows([[1, 'a', true], [2, 'b', false], [null, 'n', null], [4, 'd', false]]));
  assert.deepEqual(await rowsOf(join('hashJoin', 'mark', left, values(R, []))),
    [[1, 'a', false], [2, 'b', false], [null, 'n', false], [4, 'd', false]]);
});

test('hash join residual and cross join', async () => {
  const plan: PhysicalPlan = {
    kind: 'hashJoin', joinType: 'left', left, right, leftKeys: [col(0, t.int4)], rightKeys: [col(0, t.int4)],
    residual: op('<>', col(3, t.text), lit('x', t.text)), columns: [...L, ...R],
  };
  assert.deepEqual(sortRows(await rowsOf(plan)), sortRows([[1, 'a', 1, 'y'], [2, 'b', null, null], [null, 'n', null, null], [4, 'd', null, null]]));
  const cross = await rowsOf({ kind: 'nestedLoopJoin', joinType: 'inner', left, right, columns: [...L, ...R] });
  assert.equal(cross.length, 16);
});

test('distinct, distinct on, set operations', async () => {
  const d = await rowsOf({ kind: 'distinct', input: { kind: 'project', input: P, exprs: [col(1, t.text)], columns: [{ name: 'dept', type: t.text }] }, columns: [{ name: 'dept', type: t.text }] });
  assert.deepEqual(d, [['eng'], ['ops'], [null]]);
  const on = await rowsOf({ kind: 'distinct', input: P, on: [col(1, t.text)], columns: people });
  assert.deepEqual(on.map((r) => r[0]), [1, 3, 4]);
  const C = [{ name: 'x', type: t.int4 }];
  const a = values(C, [[1], [1], [2], [null], [null]]);
  const b = values(C, [[1], [3], [null]]);
  const setop = async (op_: 'union' | 'intersect' | 'except', all: boolean) =>
    sortRows(await rowsOf({ kind: 'setOp', op: op_, all, left: a, right: b, columns: C }));
  assert.deepEqual(await setop('union', false), sortRows([[1], [2], [null], [3]]));
  assert.deepEqual(await setop('union', true), sortRows([[1], [1], [2], [null], [null], [1], [3], [null]]));
  assert.deepEqual(await setop('intersect', false), sortRows([[1], [null]]));
  assert.deepEqual(await setop('intersect', true), sortRows([[1], [null]]));
  assert.deepEqual(await setop('except', false), sortRows([[2]]));
  assert.deepEqual(await setop('except', true), sortRows([[1], [2], [null]]));
});

test('window functions: ranking, lag/lead, running and framed aggregates', async () => {
  const W: OutputColumn[] = [{ name: 'g', type: t.text }, { name: 'v', type: t.int4 }];
  const input = values(W, [['a', 10], ['a', 20], ['a', 20], ['a', 40], ['b', 5], ['b', null]]);
  const win = (name: string, args: Expr[], type = aggId(name, ...args.map((x) => x.type)).type) => ({ id: aggId(name, ...args.map((x) => x.type)).id, args, type });
  const part = [col(0, t.text)];
  const ord = [asc(col(1, t.int4))];
  const rn = win('row_number', []); const rk = win('rank', []); const dr = win('dense_rank', []);
  const lg = win('lag', [col(1, t.int4)]); const ld = win('lead', [col(1, t.int4), int(1), int(-1)]);
  const sm = win('sum', [col(1, t.int4)]);
  const plan: PhysicalPlan = {
    kind: 'window', input,
    functions: [
      { fn: rn.id, args: [], partitionBy: part, orderBy: ord, type: rn.type },
      { fn: rk.id, args: [], partitionBy: part, orderBy: ord, type: rk.type },
      { fn: dr.id, args: [], partitionBy: part, orderBy: ord, type: dr.type },
      { fn: lg.id, args: lg.args, partitionBy: part, orderBy: ord, type: lg.type },
      { fn: ld.id, args: ld.args, partitionBy: part, orderBy: ord, type: ld.type },
      { fn: sm.id, args: sm.args, partitionBy: part, orderBy: ord, type: sm.type },
      { fn: sm.id, args: sm.args, partitionBy: part, orderBy: ord, frame: { mode: 'rows', start: { kind: 'preceding', offset: lit(1n, t.int8) }, end: { kind: 'currentRow' } }, type: sm.type },
      { fn: sm.id, args: sm.args, partitionBy: part, orderBy: [], type: sm.type },
    ],
    columns: [...W, ...['rn', 'rank', 'dense', 'lag', 'lead', 'run', 'mov', 'tot'].map((name, i) => ({ name, type: [rn.type, rk.type, dr.type, lg.type, ld.type, sm.type, sm.type, sm.type][i]! }))],
  };
  assert.deepEqual(await rowsOf(plan), [
    ['a', 10, 1n, 1n, 1n, null, 20, 10n, 10n, 90n],
    ['a', 20, 2n, 2n, 2n, 10, 20, 50n, 30n, 90n],
    ['a', 20, 3n, 2n, 2n, 20, 40, 50n, 40n, 90n],
    ['a', 40, 4n, 4n, 3n, 20, -1, 90n, 60n, 90n],
    ['b', 5, 1n, 1n, 1n, null, null, 5n, 5n, 5n],
    ['b', null, 2n, 2n, 2n, 5, -1, 5n, 5n, 5n],
  ]);
});

test('uncorrelated and correlated subqueries', async () => {
  const C = [{ name: 'x', type: t.int4 }];
  const sub = values(C, [[1], [2], [null]]);
  const inSub: Expr = { kind: 'inSubquery', arg: col(0, t.int4), plan: sub, eqFn: '=(int4,int4)', correlated: false, negated: false, type: t.bool };
  const rows = await rowsOf({ kind: 'project', input: values(C, [[1], [3]]), exprs: [inSub], columns: [{ name: 'in', type: t.bool }] });
  assert.deepEqual(rows, [[true], [null]]);
  const scalar: Expr = { kind: 'scalarSubquery', plan: values(C, [[7]]), correlated: false, type: t.int4 };
  assert.equal(await evalExpr(scalar), 7);
  await assert.rejects(evalExpr({ kind: 'scalarSubquery', plan: sub, correlated: false, type: t.int4 }), (e: unknown) => e instanceof FloeError && e.sqlstate === '21000');
  // correlated: for each outer x, count inner rows with y < x
  const inner: PhysicalPlan = {
    kind: 'filter', input: values(C, [[1], [2], [3]]), predicate: op('<', col(0, t.int4), { kind: 'outerColumn', depth: 1, index: 0, type: t.int4 }), columns: C,
  };
  const ex: Expr = { kind: 'exists', plan: inner, correlated: true, negated: false, type: t.bool };
  const corr = await rowsOf({ kind: 'project', input: values(C, [[1], [2], [3]]), exprs: [col(0, t.int4), ex], columns: [...C, { name: 'e', type: t.bool }] });
  assert.deepEqual(corr, [[1, false], [2, true], [3, true]]);
});

test('memory limit fails sort and aggregate cleanly with 53200', async () => {
  const big = values(people, Array.from({ length: 200 }, (_, i) => [i, `dept-${i}`, i]));
  const isOom = (e: unknown) => e instanceof FloeError && e.sqlstate === '53200';
  await assert.rejects(rowsOf({ kind: 'sort', input: big, keys: [asc(col(0, t.int4))], columns: people }, { memoryLimitBytes: 2000 }), isOom);
  const cnt = aggId('count');
  await assert.rejects(rowsOf({
    kind: 'hashAggregate', input: big, groupBy: [col(1, t.text)], aggregates: [{ fn: cnt.id, args: [], distinct: false, type: cnt.type }],
    columns: [{ name: 'd', type: t.text }, { name: 'n', type: t.int8 }],
  }, { memoryLimitBytes: 2000 }), isOom);
  assert.equal((await rowsOf({ kind: 'sort', input: big, keys: [asc(col(0, t.int4))], columns: people })).length, 200);
});

test('cancel: an aborted signal stops execution with 57014', async () => {
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(rowsOf(P, { signal: ac.signal }), (e: unknown) => e instanceof FloeError && e.sqlstate === '57014');
});

test('EXPLAIN ANALYZE metrics record rows per operator', async () => {
  const metrics = new Map();
  const filter: PhysicalPlan = { kind: 'filter', input: P, predicate: op('>', col(2, t.int4), int(60)), columns: people };
  await rowsOf(filter, { metrics });
  assert.equal(metrics.get(filter).rowsOut, 4);
  assert.equal(metrics.get(P).rowsOut, 6);
});

test('projectSet expands set-returning functions per row (PostgreSQL ProjectSet padding, ordinality)', async () => {
  const { resolveFunction } = await import('../../src/exec/functions/function-registry.js');
  const gs = resolveFunction('generate_series', [t.int4, t.int4])!;
  assert.equal(gs.kind, 'set');
  const un = resolveFunction('unnest', [{ kind: 'array', element: t.text }])!;
  const C: OutputColumn[] = [{ name: 'n', type: t.int4 }, { name: 'arr', type: { kind: 'array', element: t.text } }];
  const input = values(C, [[2, ['a', 'b', 'c']], [0, []], [1, null]]);
  const rows = await rowsOf({
    kind: 'projectSet', input, ordinality: true,
    exprs: [col(0, t.int4), { kind: 'setCall', fn: gs.id, args: [int(1), col(0, t.int4)], type: t.int4 }, { kind: 'setCall', fn: un.id, args: [col(1, C[1]!.type)], type: t.text }],
    columns: [{ name: 'n', type: t.int4 }, { name: 'g', type: t.int4 }, { name: 'u', type: t.text }, { name: 'ord', type: t.int8 }],
  });
  assert.deepEqual(rows, [[2, 1, 'a', 1n], [2, 2, 'b', 2n], [2, null, 'c', 3n], [1, 1, null, 1n]]);
});

test('json builders and accessors', async () => {
  const { fn: f } = await import('./exec-test-helpers.js');
  assert.equal(await evalExpr(f('json_build_object', lit('a', t.text), int(1), lit('b', t.text), lit(true, t.bool))), '{"a" : 1, "b" : true}');
  assert.equal(await evalExpr(op('->>', lit('{"a":{"b":2}}', { kind: 'json' }), lit('a', t.text))), '{"b":2}');
});

test('cancel lands while a long cross join runs (the executor lets the event loop in)', async () => {
  const C = [{ name: 'i', type: t.int4 }];
  const big = values(C, Array.from({ length: 20000 }, (_, i) => [i]));
  const cnt = aggId('count');
  const plan: PhysicalPlan = {
    kind: 'hashAggregate', groupBy: [], aggregates: [{ fn: cnt.id, args: [], distinct: false, type: cnt.type }],
    input: { kind: 'nestedLoopJoin', joinType: 'inner', left: big, right: big, columns: [...C, ...C] },
    columns: [{ name: 'n', type: t.int8 }],
  };
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 200);
  try {
    await assert.rejects(rowsOf(plan, { signal: ac.signal }), (e: unknown) => e instanceof FloeError && e.sqlstate === '57014');
  } finally {
    clearTimeout(timer);
  }
});

test('numeric and integer sums stay exact across the fast accumulators', async () => {
  const sumN = aggId('sum', t.numeric); const sumI = aggId('sum', t.int4); const avgN = aggId('avg', t.numeric);
  const C: OutputColumn[] = [{ name: 'n', type: t.numeric }, { name: 'i', type: t.int4 }];
  const rows: unknown[][] = [['0.00', 2147483647], ['0.00', 2147483647], ['-0.5', -1], ['12345678901234567890.123', 5], ['1e2', 0]];
  const res = await rowsOf({
    kind: 'hashAggregate', input: values(C, rows), groupBy: [],
    aggregates: [
      { fn: sumN.id, args: [col(0, t.numeric)], distinct: false, type: sumN.type },
      { fn: sumI.id, args: [col(1, t.int4)], distinct: false, type: sumI.type },
      { fn: avgN.id, args: [col(0, t.numeric)], distinct: false, type: avgN.type },
    ],
    columns: [{ name: 'sn', type: t.numeric }, { name: 'si', type: t.int8 }, { name: 'an', type: t.numeric }],
  });
  assert.deepEqual(res, [['12345678901234567989.623', 4294967298n, '2469135780246913597.925']]);
  const zeros = await rowsOf({
    kind: 'hashAggregate', input: values(C, [['0.00', 1], ['0.00', 1]]), groupBy: [],
    aggregates: [{ fn: sumN.id, args: [col(0, t.numeric)], distinct: false, type: sumN.type }],
    columns: [{ name: 'sn', type: t.numeric }],
  });
  assert.deepEqual(zeros, [['0.00']]);
});

test('arrowToRowBatch gives the wire canonical values', async () => {
  const { arrowToRowBatch, executePlan } = await import('../../src/exec/index.js');
  const C: OutputColumn[] = [{ name: 'i', type: t.int8 }, { name: 'iv', type: t.interval }, { name: 'n', type: t.numeric }];
  const plan = values(C, [[5n, { months: 1, days: 2, micros: 3n }, '1.50'], [null, null, null]]);
  for await (const b of executePlan(plan, {})) {
    const rb = arrowToRowBatch(b, C.map((c) => c.type));
    assert.equal(rb.numRows, 2);
    assert.deepEqual([0, 1, 2].map((c) => rb.columns[c]!.get(0)), [5n, { months: 1, days: 2, micros: 3n }, '1.50']);
    assert.deepEqual([0, 1, 2].map((c) => rb.columns[c]!.get(1)), [null, null, null]);
  }
});
