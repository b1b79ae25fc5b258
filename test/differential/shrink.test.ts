import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shrink } from './shrink.js';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const has = (xs: readonly number[], ...want: number[]) => want.every((w) => xs.includes(w));

test('shrink finds the two statements that together cause the failure', async () => {
  const out = await shrink(range(100), async (c) => has(c, 13, 77));
  assert.deepEqual(out, [13, 77]);
});

test('shrink keeps order, and keeps the pinned last item without ever dropping it', async () => {
  const seen: number[][] = [];
  const out = await shrink(range(30), async (c) => {
    seen.push([...c]);
    return has(c, 4, 17) && c.at(-1) === 29;
  }, { keepLast: true });
  assert.deepEqual(out, [4, 17, 29]);
  assert.ok(seen.every((c) => c.at(-1) === 29), 'every candidate ends with the pinned item');
});

test('shrink result is 1-minimal: dropping any single item makes the failure go away', async () => {
  // Fails when the items sum to at least 50: many minimal answers, none with a removable item.
  const fails = async (c: readonly number[]) => c.reduce((a, b) => a + b, 0) >= 50;
  const out = await shrink(range(40), fails);
  assert.ok(await fails(out));
  for (let i = 0; i < out.length; i++) {
    assert.equal(await fails([...out.slice(0, i), ...out.slice(i + 1)]), false, `item ${out[i]} could still be dropped from ${out}`);
  }
});

test('shrink stops at its deadline and returns a list that still fails', async () => {
  let calls = 0;
  const out = await shrink(range(50), async (c) => {
    calls++;
    return has(c, 3);
  }, { deadline: Date.now() - 1 });
  assert.equal(calls, 0);
  assert.deepEqual(out, range(50));
});
