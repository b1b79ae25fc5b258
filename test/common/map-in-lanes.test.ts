import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mapInLanes } from '../../src/common/map-in-lanes.js';

const tick = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

test('mapInLanes keeps the items\' order, runs at most `lanes` at once, and uses them all', async () => {
  let inFlight = 0;
  let most = 0;
  const out = await mapInLanes([5, 1, 4, 2, 3, 0, 6], 3, async (ms, i) => {
    most = Math.max(most, ++inFlight);
    await tick(ms);
    inFlight--;
    return `${i}:${ms}`;
  });
  assert.deepEqual(out, ['0:5', '1:1', '2:4', '3:2', '4:3', '5:0', '6:6']);
  assert.equal(most, 3);
  assert.deepEqual(await mapInLanes([], 4, async () => 1), []);
  assert.deepEqual(await mapInLanes([1, 2], 0, async (x) => x * 2), [2, 4], 'fewer than one lane is one');
});

test('after a failure mapInLanes starts nothing more, lets the calls in flight finish, and throws the first failure', async () => {
  const started: number[] = [];
  const finished: number[] = [];
  await assert.rejects(mapInLanes([0, 1, 2, 3, 4, 5], 2, async (x) => {
    started.push(x);
    if (x === 1) throw new Error('first');
    await tick(5);
    if (x === 2) throw new Error('second');
    finished.push(x);
    return x;
  }), /first/);
  assert.deepEqual(started, [0, 1]);
  assert.deepEqual(finished, [0], 'the call in flight ran to its end');
});
