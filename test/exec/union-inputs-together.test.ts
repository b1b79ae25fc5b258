import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ColumnarBatch } from '../../src/exec/arrow/columnar-batch.js';
import type { Operator } from '../../src/exec/operators/operator.js';
import { createSetOpOperator } from '../../src/exec/operators/set-op-operator.js';
import type { OutputColumn, SetOpPlan } from '../../src/exec/plan/physical-plan.js';
import { createRunState } from '../../src/exec/run-state.js';
import { t, values } from './exec-test-helpers.js';

/*
 * A UNION ALL the planner marked `concurrent` (run-union-inputs-together.ts) runs both
 * inputs at once and yields each batch as it arrives; stopping early, or an input's failure,
 * ends the other input.
 */

const C: OutputColumn[] = [{ name: 'x', type: t.int4 }];

/** An input yielding one row per step, each after its step's promise; `closed` hears when it ends, however it ends. */
function input(name: string, steps: readonly (() => Promise<void>)[], closed: string[], failAt?: number): Operator {
  return {
    plan: values(C, []),
    columns: C,
    async *execute(): AsyncGenerator<ColumnarBatch> {
      try {
        for (const [i, step] of steps.entries()) {
          await step();
          if (i === failAt) throw new Error(`${name} failed`);
          yield { numRows: 1, columns: [[`${name}${i}`]] };
        }
      } finally {
        closed.push(name);
      }
    },
  };
}

function union(left: Operator, right: Operator, concurrent: boolean): AsyncIterable<ColumnarBatch> {
  const plan: SetOpPlan = { kind: 'setOp', op: 'union', all: true, left: left.plan, right: right.plan, columns: C, ...(concurrent ? { concurrent } : {}) };
  return createSetOpOperator(plan, left, right).execute(createRunState({}));
}

function gate(): { wait: () => Promise<void>; open: () => void } {
  let open!: () => void;
  const p = new Promise<void>((r) => { open = r; });
  return { wait: () => p, open };
}

const now = async (): Promise<void> => undefined;

test('both inputs run at once: the left input waits for the right one to have started', { timeout: 10_000 }, async () => {
  // Left's second row waits for right's first: one after the other this never ends.
  const rightStarted = gate();
  const closed: string[] = [];
  const left = input('l', [now, rightStarted.wait, now], closed);
  const right = input('r', [async () => { rightStarted.open(); }, now], closed);
  const rows: string[] = [];
  for await (const b of union(left, right, true)) rows.push(String(b.columns[0]![0]));
  // That it ends at all shows both ran at once. Which of r0 and l1 comes first is not fixed:
  // both are ready once the right input has started (a run here read l1 first).
  assert.deepEqual([...rows].sort(), ['l0', 'l1', 'l2', 'r0', 'r1']);
  assert.ok(rows.indexOf('l0') < rows.indexOf('l1') && rows.indexOf('r0') < rows.indexOf('r1'), `each input's rows in its order: ${rows.join(' ')}`);
  assert.deepEqual(closed.sort(), ['l', 'r']);
});

test('without the mark, UNION ALL keeps its inputs in order', async () => {
  const closed: string[] = [];
  const rows: string[] = [];
  for await (const b of union(input('l', [now, now], closed), input('r', [now, now], closed), false)) rows.push(String(b.columns[0]![0]));
  assert.deepEqual(rows, ['l0', 'l1', 'r0', 'r1']);
});

test('a consumer that stops early ends both inputs', async () => {
  const closed: string[] = [];
  const parked = gate();
  const it = union(input('l', [now, parked.wait], closed), input('r', [now, now, now], closed), true)[Symbol.asyncIterator]();
  assert.equal((await it.next()).done, false);
  // The left input is parked in its second step: ending lets that step finish, then ends it
  // (its rows unread), so nothing of the union runs on after it.
  parked.open();
  await it.return!(undefined);
  assert.deepEqual(closed.sort(), ['l', 'r']);
});

test("an input's failure is the union's, and the other input is ended", async () => {
  const closed: string[] = [];
  const rows: string[] = [];
  await assert.rejects((async () => {
    for await (const b of union(input('l', [now, now, now], closed, 1), input('r', [now, now, now, now], closed), true)) rows.push(String(b.columns[0]![0]));
  })(), /l failed/);
  assert.deepEqual(closed.sort(), ['l', 'r']);
  assert.ok(!rows.includes('l1'));
});
