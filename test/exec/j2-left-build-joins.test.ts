import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExecContext, Expr, OutputColumn, PhysicalPlan } from '../../src/exec/index.js';
import type { HashJoinPlan, JoinType } from '../../src/exec/plan/physical-plan.js';
import { SMALL_RIGHT_ROWS } from '../../src/exec/operators/joins/build-side.js';
import { decidePhysicalPlan } from '../../src/planner/index.js';
import { col, op, rowsOf, t, values } from './exec-test-helpers.js';

const L: OutputColumn[] = [{ name: 'k', type: t.int4 }, { name: 'a', type: t.int4 }];
const R: OutputColumn[] = [{ name: 'k2', type: t.int4 }, { name: 'b', type: t.int4 }];

/** Left rows: duplicate keys, NULL keys, keys the right side lacks (k >= 400). */
const leftRows = (n: number): unknown[][] => Array.from({ length: n }, (_, i) => [i % 41 === 0 ? null : (i * 7) % 450, i % 5]);
/** More right rows than SMALL_RIGHT_ROWS, so left/semi/anti build on the (small) left input. */
const RIGHT_N = SMALL_RIGHT_ROWS + 1500;
const rightRows = (n: number, keyOf: (j: number) => number | null): unknown[][] => Array.from({ length: n }, (_, j) => [keyOf(j), j % 97 === 0 ? null : j % 5]);

function join2(jt: JoinType, left: PhysicalPlan, right: PhysicalPlan, residual?: Expr): HashJoinPlan {
  const columns = jt === 'semi' || jt === 'anti' ? [...L] : [...L, ...R];
  // Decided as the planner decides a join: the build-side policy of its join type.
  return decidePhysicalPlan({ kind: 'hashJoin', joinType: jt, left, right, leftKeys: [col(0, t.int4)], rightKeys: [col(0, t.int4)], columns, ...(residual ? { residual } : {}) }) as HashJoinPlan;
}

/** The join by definition: `=` on k (NULL matches nothing), then the residual a <> b (NULL is not a match). */
function reference(jt: JoinType, lrows: unknown[][], rrows: unknown[][], withResidual: boolean): unknown[][] {
  const byKey = new Map<unknown, unknown[][]>();
  for (const r of rrows) if (r[0] !== null) (byKey.get(r[0]) ?? byKey.set(r[0], []).get(r[0])!).push(r);
  const out: unknown[][] = [];
  for (const l of lrows) {
    const partners = l[0] === null ? [] : (byKey.get(l[0]) ?? []).filter((r) => !withResidual || (r[1] !== null && l[1] !== r[1]));
    if (jt === 'semi') { if (partners.length > 0) out.push(l); continue; }
    if (jt === 'anti') { if (partners.length === 0) out.push(l); continue; }
    for (const r of partners) out.push([...l, ...r]);
    if (jt === 'left' && partners.length === 0) out.push([...l, null, null]);
  }
  return out;
}

const key = (rows: unknown[][]): string[] => rows.map((r) => JSON.stringify(r)).sort();

async function check(lrows: unknown[][], rrows: unknown[][], types: readonly JoinType[], label: string): Promise<void> {
  const left = values(L, lrows);
  const right = values(R, rrows);
  for (const withResidual of [false, true]) {
    const residual = withResidual ? op('<>', col(1, t.int4), col(3, t.int4)) : undefined;
    for (const jt of types) {
      const plan = join2(jt, left, right, residual);
      const metrics: NonNullable<ExecContext['metrics']> = new Map();
      const got = await rowsOf(plan, { metrics });
      const want = reference(jt, lrows, rrows, withResidual);
      assert.deepEqual(key(got), key(want), `${label} ${jt} residual=${withResidual}`);
      if (lrows.length > 0) assert.equal(metrics.get(plan)?.extra.buildSide, 'left', `${label} ${jt}: builds on the left`);
    }
  }
}

test('left, semi and anti joins over a small left input and a large right one build on the left: same rows as the definition', async () => {
  const lrows = leftRows(300);
  const rrows = rightRows(RIGHT_N, (j) => (j % 113 === 0 ? null : j % 400));
  await check(lrows, rrows, ['left', 'semi', 'anti', 'inner'], 'mixed');
  // Semi/anti stop reading once every left row has its verdict; the rows must not change.
  const early = [[1, 0], [2, 1], [1, 3]];
  await check(early, rrows, ['semi', 'anti'], 'all matched early');
});

test('left-built joins: no partner at all, and an empty left input', async () => {
  const rrows = rightRows(RIGHT_N, (j) => 10_000 + (j % 300));
  await check(leftRows(200), rrows, ['left', 'semi', 'anti'], 'no partners');
  await check([], rrows, ['left', 'semi', 'anti', 'inner'], 'empty left');
});

test('a right input smaller than SMALL_RIGHT_ROWS still builds on the right and keeps the left join in probe order', async () => {
  // a = the row number, so each output row names its left row.
  const lrows = leftRows(300).map((r, i) => [r[0], i]);
  const rrows = rightRows(2000, (j) => (j % 113 === 0 ? null : j % 400));
  for (const jt of ['left', 'semi', 'anti'] as const) {
    const plan = join2(jt, values(L, lrows), values(R, rrows));
    const metrics: NonNullable<ExecContext['metrics']> = new Map();
    const got = await rowsOf(plan, { metrics });
    assert.deepEqual(key(got), key(reference(jt, lrows, rrows, false)), jt);
    assert.equal(metrics.get(plan)?.extra.buildSide, undefined, `${jt}: planned shape`);
    if (jt === 'left') {
      // Matched rows come in left input order (unmatched ones follow their batch's pairs).
      const order = got.filter((r) => r[2] !== null).map((r) => r[1] as number);
      assert.ok(order.every((v, i) => i === 0 || v >= order[i - 1]!), 'probe order');
    }
  }
});

test('semi and anti joins over a small left input: a pair whose residual is NULL does not settle the row, a later batch\'s TRUE pair does', async () => {
  // Key 5's partners all have b NULL (a <> b is NULL) until the last right row, many batches later.
  const lrows = [[5, 1], [6, 1]];
  const rrows = Array.from({ length: RIGHT_N }, (_, j) => (j === RIGHT_N - 1 ? [5, 2] : [j % 3 === 0 ? 5 : 1000 + j, null]));
  await check(lrows, rrows, ['semi', 'anti'], 'null verdicts first');
});
