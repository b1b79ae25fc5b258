import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BuildSidePolicy, JoinType } from '../../src/exec/plan/physical-plan.js';
import type { Buffered } from '../../src/exec/operators/joins/buffered-input.js';
import { buildSideRule, PROBE_FIRST_ROWS, SMALL_LEFT_ROWS, SMALL_RIGHT_ROWS } from '../../src/exec/operators/joins/build-side.js';
import type { JoinReadAhead } from '../../src/exec/operators/joins/build-side.js';

const MAX_KEYS = 100_000;

/** Inputs of `leftRows` and `rightRows` rows read a row at a time, recording what the rule reads and installs. */
function inputs(leftRows: number, rightRows: number, runtimeFilters: boolean, leftLooksSmaller = false) {
  const buf = (): Buffered => ({ batches: [], rows: 0, bytes: 0, done: false });
  const left = buf();
  const right = buf();
  const log: string[] = [];
  const read = (b: Buffered, total: number, limit: number) => {
    while (!b.done && b.rows <= limit) { if (b.rows === total) b.done = true; else b.rows++; }
  };
  const io: JoinReadAhead = {
    runtimeFilters, leftLooksSmaller, left, right,
    readLeft: (limit) => { log.push(`left ${limit}`); read(left, leftRows, limit); return Promise.resolve(); },
    readRight: (limit) => { log.push(`right ${limit}`); read(right, rightRows, limit); return Promise.resolve(); },
    runtimeFilterMaxKeys: () => MAX_KEYS,
    installBuildFilters: () => { log.push('filters'); return Promise.resolve(); },
  };
  return { io, log };
}

/** The policy the planner's join-build-side rule gives each join type. */
function policyOf(jt: JoinType): BuildSidePolicy {
  return jt === 'inner' ? 'smallLeft' : jt === 'left' || jt === 'semi' || jt === 'anti' ? 'smallLeftProbeFirst' : 'right';
}

async function choose(jt: JoinType, leftRows: number, rightRows: number, runtimeFilters: boolean, leftLooksSmaller = false) {
  const { io, log } = inputs(leftRows, rightRows, runtimeFilters, leftLooksSmaller);
  return { side: await buildSideRule(policyOf(jt), jt).choose(io), log };
}

test('inner joins build on a left input that ends within SMALL_LEFT_ROWS, else on the right', async () => {
  assert.deepEqual(await choose('inner', 10, 1_000_000, false), { side: 'left', log: [`left ${SMALL_LEFT_ROWS}`, 'filters'] });
  assert.deepEqual(await choose('inner', SMALL_LEFT_ROWS + 10, 5, false), { side: 'right', log: [`left ${SMALL_LEFT_ROWS}`] });
  // With runtime filters the right side builds first, unless the planner expects the left to be smaller.
  assert.deepEqual(await choose('inner', 10, 1_000_000, true), { side: 'right', log: [] });
  assert.equal((await choose('inner', 10, 1_000_000, true, true)).side, 'left');
});

test('left, semi and anti joins build on a small left input only when the right input is larger still', async () => {
  for (const jt of ['left', 'semi', 'anti'] as const) {
    assert.deepEqual(await choose(jt, 10, SMALL_RIGHT_ROWS + 10, false), {
      side: 'left', log: [`left ${PROBE_FIRST_ROWS}`, 'filters', `right ${SMALL_RIGHT_ROWS}`],
    });
    assert.equal((await choose(jt, 10, 20, false)).side, 'right');
    assert.equal((await choose(jt, PROBE_FIRST_ROWS + 10, 20, false)).side, 'right');
    // A build side past the runtime filter cap: the left input is read after all, and builds when it ends soon.
    assert.deepEqual(await choose(jt, 10, MAX_KEYS + 10, true), {
      side: 'left', log: [`right ${MAX_KEYS}`, `left ${PROBE_FIRST_ROWS}`, 'filters'],
    });
    assert.deepEqual(await choose(jt, 10, MAX_KEYS - 10, true), { side: 'right', log: [`right ${MAX_KEYS}`] });
  }
});

test('right, full and mark joins keep the planned build side without reading ahead', async () => {
  for (const jt of ['right', 'full', 'mark'] as const) assert.deepEqual(await choose(jt, 1, 1_000_000, false), { side: 'right', log: [] });
});

test('a policy the join type cannot run is refused when the operator is built (XX000)', () => {
  for (const [policy, jt] of [['smallLeft', 'left'], ['smallLeftProbeFirst', 'inner'], ['smallLeft', 'full'], ['smallLeftProbeFirst', 'mark']] as const) {
    assert.throws(() => buildSideRule(policy, jt), (e: unknown) => (e as { sqlstate?: string }).sqlstate === 'XX000', `${policy} ${jt}`);
  }
  for (const jt of ['inner', 'left', 'right', 'full', 'semi', 'anti', 'mark'] as const) assert.ok(buildSideRule('right', jt));
});
