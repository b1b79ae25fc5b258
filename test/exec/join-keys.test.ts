import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SqlType } from '../../src/common/sql-type.js';
import type { Expr } from '../../src/exec/expr/expr.js';
import type { JoinType, OutputColumn, PhysicalPlan } from '../../src/exec/plan/physical-plan.js';
import { joinKeyKind, joinKeys } from '../../src/exec/operators/joins/join-keys.js';
import { decidePhysicalPlan } from '../../src/planner/index.js';
import { col, lit, op, rowsOf, t, values } from './exec-test-helpers.js';

/** A small deterministic generator (tests must be repeatable). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
}

const sortRows = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : v))).sort();

interface Case {
  readonly name: string;
  readonly L: OutputColumn[];
  readonly R: OutputColumn[];
  readonly lrows: unknown[][];
  readonly rrows: unknown[][];
  /** Key column indexes on each side. */
  readonly keys: readonly (readonly [number, number])[];
  readonly nullEq?: readonly boolean[];
  /** SQL equality of two non-NULL key values. */
  readonly eq?: (a: unknown, b: unknown) => boolean;
  /** An optional residual over left ++ right, with its JS meaning (three-valued). */
  readonly residual?: { expr: Expr; fn: (l: unknown[], r: unknown[]) => boolean | null };
}

const defaultEq = (a: unknown, b: unknown): boolean => {
  if (typeof a === 'bigint' || typeof b === 'bigint') return BigInt(a as number | bigint) === BigInt(b as number | bigint);
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  return a === b;
};

/** What each join type returns, computed by brute force with SQL's rules. */
function reference(c: Case, jt: JoinType): unknown[][] {
  const eq = c.eq ?? defaultEq;
  const verdict = (l: unknown[], r: unknown[]): boolean | null => {
    let v: boolean | null = true;
    c.keys.forEach(([li, ri], k) => {
      const a = l[li]; const b = r[ri];
      if (a === null || b === null) {
        if (c.nullEq?.[k]) { if (!(a === null && b === null)) v = false; } else if (v !== false) v = null;
      } else if (!eq(a, b)) v = false;
    });
    if (v !== true || !c.residual) return v;
    return c.residual.fn(l, r);
  };
  const out: unknown[][] = [];
  const rightMatched = new Set<number>();
  const lw = c.L.length; const rw = c.R.length;
  for (const l of c.lrows) {
    let matched = false; let sawNull = false;
    c.rrows.forEach((r, j) => {
      const v = verdict(l, r);
      if (v === true) {
        matched = true; rightMatched.add(j);
        if (jt === 'inner' || jt === 'left' || jt === 'right' || jt === 'full') out.push([...l, ...r]);
      } else if (v === null) sawNull = true;
    });
    if (!matched && (jt === 'left' || jt === 'full')) out.push([...l, ...new Array(rw).fill(null)]);
    if (jt === 'semi' && matched) out.push([...l]);
    if (jt === 'anti' && !matched) out.push([...l]);
    if (jt === 'mark') out.push([...l, matched ? true : sawNull ? null : false]);
  }
  if (jt === 'right' || jt === 'full') c.rrows.forEach((r, j) => { if (!rightMatched.has(j)) out.push([...new Array(lw).fill(null), ...r]); });
  return out;
}

function plan(c: Case, jt: JoinType): PhysicalPlan {
  const columns = jt === 'semi' || jt === 'anti' ? c.L : jt === 'mark' ? [...c.L, { name: 'mark', type: t.bool }] : [...c.L, ...c.R];
  // Decided as the planner decides a join, so small left inputs build as they would in a query.
  return decidePhysicalPlan({
    kind: 'hashJoin', joinType: jt, left: values(c.L, c.lrows), right: values(c.R, c.rrows),
    leftKeys: c.keys.map(([i]) => col(i, c.L[i]!.type)), rightKeys: c.keys.map(([, j]) => col(j, c.R[j]!.type)),
    ...(c.nullEq ? { nullEquals: c.nullEq } : {}), ...(c.residual ? { residual: c.residual.expr } : {}), columns,
  });
}

const ALL: JoinType[] = ['inner', 'left', 'right', 'full', 'semi', 'anti', 'mark'];

async function check(c: Case, types: readonly JoinType[] = ALL): Promise<void> {
  for (const jt of types) {
    assert.deepEqual(sortRows(await rowsOf(plan(c, jt))), sortRows(reference(c, jt)), `${c.name}: ${jt}`);
  }
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

test('hash join over int4 keys with NULLs and duplicates equals the brute-force reference, every join type', async () => {
  const r = rng(7);
  const L = [{ name: 'k', type: t.int4 }, { name: 'v', type: t.int4 }];
  const R = [{ name: 'k', type: t.int4 }, { name: 'w', type: t.text }];
  const lrows = Array.from({ length: 300 }, (_, i) => [r() < 0.1 ? null : Math.floor(r() * 60) - 10, i]);
  const rrows = Array.from({ length: 120 }, (_, i) => [r() < 0.05 ? null : Math.floor(r() * 60) - 10, `w${i}`]);
  await check({ name: 'int4', L, R, lrows, rrows, keys: [[0, 0]] });
  // Without NULLs on the build side, mark's non-matches are false, not NULL.
  await check({ name: 'int4 no build nulls', L, R, lrows, rrows: rrows.filter((x) => x[0] !== null), keys: [[0, 0]] }, ['mark', 'anti']);
  // An empty build side: mark is false even for a NULL probe key.
  await check({ name: 'int4 empty build', L, R, lrows, rrows: [], keys: [[0, 0]] });
});

test('hash join: int4 probe against int8 build (safe and unsafe bigints), and NULL-equal keys', async () => {
  const L = [{ name: 'k', type: t.int4 }];
  const R = [{ name: 'k', type: t.int8 }];
  const big = 2n ** 53n + 1n;
  const lrows = [[1], [2], [-3], [null], [2147483647]];
  const rrows = [[1n], [1n], [-3n], [big], [-big], [null], [2147483647n]];
  await check({ name: 'int4/int8', L, R, lrows, rrows, keys: [[0, 0]] });
  await check({ name: 'int8/int8 unsafe', L: R, R, lrows: [[big], [big + 1n], [-big], [null]], rrows, keys: [[0, 0]] });
  await check({ name: 'null-equal int', L, R: L, lrows, rrows: [[1], [null], [null], [5]], keys: [[0, 0]], nullEq: [true] }, ['inner', 'left', 'anti', 'full']);
});

test('hash join over text keys: empty string, NULL, non-ASCII, and a residual with NULL verdicts', async () => {
  const L = [{ name: 's', type: t.text }, { name: 'n', type: t.int4 }];
  const R = [{ name: 's', type: t.text }, { name: 'm', type: t.int4 }];
  const words = ['', 'a', 'A', 'é', 'e\u0301', '日本', 'a ', '1:a', '0'];
  const r = rng(11);
  const lrows = Array.from({ length: 80 }, (_, i) => [r() < 0.1 ? null : pick(r, words), r() < 0.2 ? null : i % 7]);
  const rrows = Array.from({ length: 40 }, (_, i) => [r() < 0.1 ? null : pick(r, words), r() < 0.2 ? null : i % 5]);
  await check({ name: 'text', L, R, lrows, rrows, keys: [[0, 0]] });
  const residual = {
    expr: op('<', col(1, t.int4), col(3, t.int4)),
    fn: (l: unknown[], rr: unknown[]) => (l[1] === null || rr[1] === null ? null : (l[1] as number) < (rr[1] as number)),
  };
  await check({ name: 'text + residual', L, R, lrows, rrows, keys: [[0, 0]], residual });
});

test('hash join over composite keys: packed int pairs at the packing boundaries, int8 + int4, text + int, NULL parts', async () => {
  const L = [{ name: 'a', type: t.int8 }, { name: 'b', type: t.int4 }];
  const R = [{ name: 'a', type: t.int8 }, { name: 'b', type: t.int4 }, { name: 'tag', type: t.text }];
  const as = [0n, 1n, -1n, 2n ** 25n - 1n, 2n ** 25n, -(2n ** 25n) + 1n, -(2n ** 25n), 2n ** 53n + 5n, null];
  const bs = [0, 1, -1, 2 ** 26 - 1, 2 ** 26, 2 ** 31 - 1, null];
  const lrows: unknown[][] = [];
  for (const a of as) for (const b of bs) lrows.push([a, b]);
  const rrows: unknown[][] = [];
  let n = 0;
  for (const a of as) for (const b of bs) if ((n++ % 3) !== 1) rrows.push([a, b, `r${n}`]);
  // Pairs that would collide if packed naively: a·2^26 + b with b out of range.
  rrows.push([0n, 2 ** 26, 'edge'], [1n, 0, 'edge2'], [1n, -1, 'edge3']);
  await check({ name: 'int8+int4', L, R, lrows, rrows, keys: [[0, 0], [1, 1]] });
  await check({ name: 'int8+int4 null-equal', L, R, lrows, rrows, keys: [[0, 0], [1, 1]], nullEq: [true, true] }, ['inner', 'left', 'anti']);
  const TL = [{ name: 's', type: t.text }, { name: 'i', type: t.int4 }];
  const TR = [{ name: 'i', type: t.int4 }, { name: 's', type: t.text }];
  const r = rng(3);
  const ws = ['x', '1', '1:', ':1', '', null];
  const tl = Array.from({ length: 60 }, () => [pick(r, ws), pick(r, [1, 11, 0, null])]);
  const tr = Array.from({ length: 30 }, () => [pick(r, [1, 11, 0, null]), pick(r, ws)]);
  await check({ name: 'text+int', L: TL, R: TR, lrows: tl, rrows: tr, keys: [[0, 1], [1, 0]] }, ['inner', 'left', 'right', 'full', 'semi', 'anti']);
});

test('hash join over float, numeric, date and bpchar keys uses SQL equality (-0 = 0, NaN = NaN, 1.0 = 1.00, trailing blanks)', async () => {
  const F = [{ name: 'f', type: t.float8 }];
  await check({ name: 'float8', L: F, R: F, lrows: [[0], [-0], [NaN], [1.5], [null]], rrows: [[-0], [NaN], [1.5], [1.5]], keys: [[0, 0]] });
  const N = [{ name: 'n', type: t.numeric }];
  const num = (a: unknown, b: unknown) => Number(a) === Number(b);
  await check({ name: 'numeric', L: N, R: N, lrows: [['1.0'], ['-0.00'], ['12345678901234567890.5'], ['2'], [null]], rrows: [['1.00'], ['0'], ['12345678901234567890.50'], ['2.000']], keys: [[0, 0]], eq: num }, ['inner', 'anti', 'mark']);
  const D = [{ name: 'd', type: t.date }];
  await check({ name: 'date', L: D, R: D, lrows: [[0], [19000], [Infinity], [-Infinity], [null]], rrows: [[19000], [Infinity], [1]], keys: [[0, 0]] });
  const B: OutputColumn[] = [{ name: 'c', type: { kind: 'bpchar', length: 4 } as SqlType }];
  await check({ name: 'bpchar', L: B, R: B, lrows: [['ab  '], ['ab'], ['x']], rrows: [['ab'], ['x   ']], keys: [[0, 0]], eq: (a, b) => String(a).trimEnd() === String(b).trimEnd() }, ['inner', 'semi']);
});

test('hash join emits many-to-many matches across several output batches, in probe order', async () => {
  const L = [{ name: 'k', type: t.int4 }, { name: 'i', type: t.int4 }];
  const R = [{ name: 'k', type: t.int4 }, { name: 'j', type: t.int4 }];
  const lrows = Array.from({ length: 150 }, (_, i) => [i % 3, i]);
  const rrows = Array.from({ length: 200 }, (_, j) => [j % 2, j]);
  const inner = await rowsOf(plan({ name: 'mm', L, R, lrows, rrows, keys: [[0, 0]] }, 'inner'));
  assert.equal(inner.length, 50 * 100 * 2);
  // A left join keeps the probe side's order (an inner join may build on a small left input).
  const rows = await rowsOf(plan({ name: 'mm', L, R, lrows, rrows, keys: [[0, 0]] }, 'left'));
  assert.equal(rows.length, 50 * 100 * 2 + 50);
  // Each probe row's matches come in build order, probe rows in input order (unmatched rows follow their batch's pairs).
  const matched = rows.filter((x) => x[2] !== null);
  assert.ok(sortRows(inner).join('\n') === sortRows(matched).join('\n'), 'inner = matched rows of the left join');
  assert.deepEqual(matched.filter((x) => x[1] === 0).map((x) => x[3]), Array.from({ length: 100 }, (_, k) => 2 * k));
  const probeOrder = matched.map((x) => x[1] as number);
  assert.ok(probeOrder.every((v, k) => k === 0 || v >= probeOrder[k - 1]!));
});

test('nested loop join shares the output logic: every join type matches the reference under a non-equi condition', async () => {
  const L = [{ name: 'a', type: t.int4 }];
  const R = [{ name: 'b', type: t.int4 }];
  const lrows = [[1], [5], [null], [9]];
  const rrows = [[3], [null], [7]];
  const lt = (l: unknown[], r: unknown[]) => (l[0] === null || r[0] === null ? null : (l[0] as number) < (r[0] as number));
  for (const jt of ALL) {
    const columns = jt === 'semi' || jt === 'anti' ? L : jt === 'mark' ? [...L, { name: 'mark', type: t.bool }] : [...L, ...R];
    const p: PhysicalPlan = { kind: 'nestedLoopJoin', joinType: jt, left: values(L, lrows), right: values(R, rrows), condition: op('<', col(0, t.int4), col(1, t.int4)), columns };
    const expected = reference({ name: 'nl', L, R, lrows, rrows, keys: [], residual: { expr: lit(true, t.bool), fn: lt } }, jt);
    assert.deepEqual(sortRows(await rowsOf(p)), sortRows(expected), `nested loop ${jt}`);
  }
});

test('joinKeys: one Map key per SQL-equal value, undefined for NULLs that = rejects', () => {
  assert.equal(joinKeyKind(t.int4, t.int8), 'int');
  assert.equal(joinKeyKind(t.text, t.text), 'string');
  assert.equal(joinKeyKind(t.numeric, t.numeric), 'general');
  assert.equal(joinKeyKind(t.date, t.timestamp), 'general');
  const k = joinKeys([[1, null, 3n]], ['int'], [t.int8], [false], 3);
  assert.deepEqual(k, [1, undefined, 3]);
  const packed = joinKeys([[1n, 1n], [2, -2]], ['int', 'int'], [t.int8, t.int4], [false, false], 2);
  assert.equal(typeof packed[0], 'number');
  assert.equal(typeof packed[1], 'string');
  assert.notEqual(joinKeys([[0]], ['int'], [t.int4], [true], 1)[0], joinKeys([[null]], ['int'], [t.int4], [true], 1)[0]);
});

test('numericKey equals the exact parse-and-format key at the boundaries (zeros, signs, 15/16+ digits, scale)', async () => {
  const { numericKey } = await import('../../src/exec/types/value-ops.js');
  const { formatDecimal, decTrimScale, parseDecimal } = await import('../../src/exec/types/numeric.js');
  const slow = (s: string) => formatDecimal(decTrimScale(parseDecimal(s)));
  const cases = ['0', '-0', '0.00', '-0.00', '00', '007', '-007.100', '12.50', '-12.50', '1.0', '100.000', '0.5', '-0.5', '.5', '5.', '+3.20', 'NaN',
    '999999999999999', '9999999999999999', '-9007199254740993.0', '123456789012345678901234567890.123000', '0.0001000', '1e5', '-1.5E-3'];
  const r = rng(5);
  for (let k = 0; k < 300; k++) {
    const digits = Array.from({ length: 1 + Math.floor(r() * 20) }, () => String(Math.floor(r() * 10))).join('');
    const scale = Math.floor(r() * 6);
    const s = scale > 0 && scale < digits.length ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
    cases.push(r() < 0.5 ? `-${s}` : s);
  }
  for (const c of cases) assert.equal(numericKey(c), slow(c), c);
});

test('an inner join builds on whichever side is small: a left input past SMALL_LEFT_ROWS builds on the right, same rows', async () => {
  const { createHashJoinOperator } = await import('../../src/exec/operators/joins/hash-join-operator.js');
  const { SMALL_LEFT_ROWS } = await import('../../src/exec/operators/joins/build-side.js');
  const { lazyBatch } = await import('../../src/exec/arrow/columnar-batch.js');
  const { valuesColumn } = await import('../../src/exec/arrow/column-source.js');
  type ColumnarBatch = import('../../src/exec/arrow/columnar-batch.js').ColumnarBatch;
  const { createRunState } = await import('../../src/exec/run-state.js');
  type Src = { plan: PhysicalPlan; columns: OutputColumn[]; execute: () => AsyncGenerator<ColumnarBatch> };
  const source = (columns: OutputColumn[], rows: number, gen: (c: number, i: number) => unknown): Src => {
    const batches: ColumnarBatch[] = [];
    for (let s0 = 0; s0 < rows; s0 += 8192) {
      const n = Math.min(8192, rows - s0);
      batches.push(lazyBatch(n, columns.map((_, c) => valuesColumn(Array.from({ length: n }, (_, k) => gen(c, s0 + k))))));
    }
    return { plan: { kind: 'values', columns, rows: [] }, columns, execute: async function* () { yield* batches; } };
  };
  const C = [{ name: 'k', type: t.int4 }, { name: 'i', type: t.int4 }];
  for (const leftRows of [SMALL_LEFT_ROWS + 5000, 1000]) {
    const L = source(C, leftRows, (c, i) => (c === 0 ? (i % 997 === 0 ? null : i % 3001) : i));
    const R = source(C, 4000, (c, j) => (c === 0 ? (j % 1999 === 0 ? null : j) : -j));
    const p: PhysicalPlan = { kind: 'hashJoin', joinType: 'inner', left: L.plan, right: R.plan, leftKeys: [col(0, t.int4)], rightKeys: [col(0, t.int4)], buildSide: 'smallLeft', columns: [...C, ...C] };
    const metrics = new Map();
    const op = createHashJoinOperator(p as never, L as never, R as never);
    const got: string[] = [];
    for await (const b of op.execute(createRunState({ metrics }))) {
      const cols = [0, 1, 2, 3].map((c) => b.columns[c]!);
      for (let r = 0; r < b.numRows; r++) got.push(cols.map((x) => x[r]).join(','));
    }
    const expected: string[] = [];
    for (let i = 0; i < leftRows; i++) {
      const k = i % 997 === 0 ? null : i % 3001;
      if (k !== null && k < 4000 && k % 1999 !== 0) expected.push([k, i, k, -k].join(','));
    }
    assert.deepEqual(got.sort(), expected.sort(), `left rows ${leftRows}`);
    assert.equal(metrics.get(p).extra.buildSide, leftRows > SMALL_LEFT_ROWS ? undefined : 'left');
    assert.equal(metrics.get(p).extra.buildRows, leftRows > SMALL_LEFT_ROWS ? 4000 : 1000);
  }
});
