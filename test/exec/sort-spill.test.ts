import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FloeError } from '../../src/common/floe-error.js';
import type { Expr } from '../../src/exec/expr/expr.js';
import type { OutputColumn, PhysicalPlan, SortKey } from '../../src/exec/plan/physical-plan.js';
import { executePlan } from '../../src/exec/execute.js';
import { col, rowsOf, t, values } from './exec-test-helpers.js';

// Spill files go to a directory of this test's own, so the test can see them come and go.
const spillRoot = mkdtempSync(join(tmpdir(), 'floe-spill-test-'));
process.env.FLOE_SPILL_DIR = spillRoot;

const columns: OutputColumn[] = [{ name: 'seq', type: t.int4 }, { name: 'grp', type: t.int4 }, { name: 'label', type: t.text }];
const ROWS = 40_000;
// Few distinct groups (many ties, so stability shows) and NULLs in both the key and the payload.
const input = values(columns, Array.from({ length: ROWS }, (_, i) => [
  i, i % 97 === 0 ? null : (i * 7919) % 13, i % 5 === 0 ? null : `label-${(i * 31) % 1000}`,
]));
const key = (expr: Expr, descending: boolean, nullsFirst: boolean): SortKey => ({ expr, descending, nullsFirst });
const MEMORY_LIMIT = 1024 * 1024; // a batch of 8192 rows is a few hundred kB by the executor's estimate

/** The order a stable sort by the same keys gives, computed here independently. */
function expected(keyOf: (r: unknown[]) => unknown[], cmp: (a: unknown[], b: unknown[]) => number): unknown[][] {
  const rows = Array.from({ length: ROWS }, (_, i) => [i, i % 97 === 0 ? null : (i * 7919) % 13, i % 5 === 0 ? null : `label-${(i * 31) % 1000}`]);
  return rows.map((r) => ({ r, k: keyOf(r) })).sort((a, b) => cmp(a.k, b.k)).map((x) => x.r);
}

function nullsCmp(x: unknown, y: unknown, nullsFirst: boolean): number | undefined {
  if (x === null && y === null) return 0;
  if (x === null) return nullsFirst ? -1 : 1;
  if (y === null) return nullsFirst ? 1 : -1;
  return undefined;
}

test('a sort past the memory limit spills sorted runs and merges them, stable, in the in-memory order', async () => {
  const plan: PhysicalPlan = { kind: 'sort', input, keys: [key(col(1, t.int4), true, false)], columns };
  const metrics = new Map();
  const spilled = await rowsOf(plan, { memoryLimitBytes: MEMORY_LIMIT, metrics });
  const method = String(metrics.get(plan)?.extra['Sort Method'] ?? '');
  assert.match(method, /^external merge \((\d+) runs\)$/);
  assert.ok(Number(/\((\d+)/.exec(method)![1]) >= 3, method);
  const want = expected((r) => [r[1]], (a, b) => {
    const n = nullsCmp(a[0], b[0], false);
    return n ?? (b[0] as number) - (a[0] as number);
  });
  assert.deepEqual(spilled, want);
  assert.deepEqual(await rowsOf(plan), want, 'the in-memory sort gives the same order');
  assert.deepEqual(readdirSync(spillRoot), [], 'spill files are removed when the query ends');
});

test('a spilled sort on a text key with NULLS FIRST and a second key', async () => {
  const plan: PhysicalPlan = { kind: 'sort', input, keys: [key(col(2, t.text), false, true), key(col(0, t.int4), true, false)], columns };
  const spilled = await rowsOf(plan, { memoryLimitBytes: MEMORY_LIMIT });
  const want = expected((r) => [r[2], r[0]], (a, b) => {
    const n = nullsCmp(a[0], b[0], true);
    if (n !== undefined && n !== 0) return n;
    if (n === undefined && a[0] !== b[0]) return (a[0] as string) < (b[0] as string) ? -1 : 1;
    return (b[1] as number) - (a[1] as number);
  });
  assert.deepEqual(spilled, want);
  assert.deepEqual(readdirSync(spillRoot), []);
});

test('a limit below one batch still fails with 53200 and leaves no spill files', async () => {
  const plan: PhysicalPlan = { kind: 'sort', input, keys: [key(col(2, t.text), false, false)], columns };
  await assert.rejects(rowsOf(plan, { memoryLimitBytes: 64 * 1024 }), (e: unknown) => e instanceof FloeError && e.sqlstate === '53200');
  assert.deepEqual(readdirSync(spillRoot), []);
});

test('a query cancelled while merging spilled runs leaves no spill files', async () => {
  const plan: PhysicalPlan = { kind: 'sort', input, keys: [key(col(2, t.text), false, false)], columns };
  const ac = new AbortController();
  let seen = 0;
  await assert.rejects((async () => {
    for await (const b of executePlan(plan, { memoryLimitBytes: MEMORY_LIMIT, signal: ac.signal })) {
      seen += b.numRows;
      ac.abort();
    }
  })(), (e: unknown) => e instanceof FloeError && e.sqlstate === '57014');
  assert.ok(seen > 0 && seen < ROWS, `saw ${seen} rows`);
  assert.deepEqual(readdirSync(spillRoot), []);
});
