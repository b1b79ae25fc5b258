import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { NodeRewriteTask } from '../../src/lake/index.js';
import { createOptimizerPool, DEFAULT_OPTIMIZER_NICENESS } from '../../src/service/optimizing/optimizer-pool.js';
import { threadNiceness } from '../harness/thread-niceness.js';

/** The nice values of the threads a pool of `threads` adds, once each has loaded its module. */
async function newThreadsAt(niceness: number | undefined, threads: number): Promise<number[]> {
  const before = threadNiceness();
  const pool = createOptimizerPool({ threads, ...(niceness === undefined ? {} : { niceness }) });
  try {
    // An empty task each: whatever it does, its worker has run the module's top level first.
    await Promise.allSettled(Array.from({ length: threads }, () => pool.runNodeRewrite({} as NodeRewriteTask)));
    return [...threadNiceness()].filter(([tid]) => !before.has(tid)).map(([, nice]) => nice);
  } finally {
    await pool.close();
  }
}

test('optimizer threads run at the background nice value, and the process\'s other threads do not', { skip: process.platform !== 'linux' }, async () => {
  assert.equal(DEFAULT_OPTIMIZER_NICENESS, 19);
  const added = await newThreadsAt(undefined, 2);
  assert.equal(added.filter((n) => n === 19).length, 2, `new threads' nice values: ${added.join(', ')}`);
  const mine = readFileSync('/proc/thread-self/stat', 'utf8');
  assert.equal(Number(mine.slice(mine.lastIndexOf(')') + 2).split(' ')[16]), 0, 'the thread that made the pool keeps its priority');
});

test('niceness 0 leaves optimizer threads at the process\'s priority', { skip: process.platform !== 'linux' }, async () => {
  const added = await newThreadsAt(0, 1);
  assert.ok(added.length > 0);
  assert.deepEqual(added.filter((n) => n !== 0), []);
});
