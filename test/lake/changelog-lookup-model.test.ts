/**
 * Model test of changelog-producer = lookup: random transactions of blind upserts (keys
 * repeating within a statement), deletes by key and updates, with folds, change
 * compaction and log tiering at random points. After every commit the snapshot's changelog,
 * replayed over the model's previous state, must be consistent (a -U or -D carries exactly
 * the key's current row, a +I meets an absent key, a +U follows its -U) and must end in the
 * model's new state: the changelog is the diff between consecutive snapshots. At the end
 * every snapshot's changelog reads as it did right after its commit, and after expiry each
 * two consecutive retained snapshots are still linked by their changelog.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { openWarehouse } from '../../src/lake/index.js';
import type { TableMetadata, Warehouse } from '../../src/lake/index.js';
import { changesBySnapshot, replayChangelog as replay } from './helpers/changelog-rows.js';
import type { ChangeText, KvState as State } from './helpers/changelog-rows.js';
import { columnsOf, readRows } from './helpers/read-table.js';

type Statement =
  | { t: 'upsert'; rows: [number, string][] }
  | { t: 'delete'; keys: number[] }
  | { t: 'update'; keys: number[]; value: string };
type Op =
  | { t: 'commit'; statements: Statement[] }
  | { t: 'optimize' }
  | { t: 'tier' }
  /** Expire every snapshot but the newest `retainLast`: squashed ones hand their rows to their children. */
  | { t: 'expire'; retainLast: number };

const keyArb = fc.integer({ min: 0, max: 7 });
const valueArb = fc.constantFrom('a', 'b', 'c', 'd');
const statementArb: fc.Arbitrary<Statement> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('upsert' as const), rows: fc.array(fc.tuple(keyArb, valueArb), { minLength: 1, maxLength: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('delete' as const), keys: fc.array(keyArb, { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('update' as const), keys: fc.uniqueArray(keyArb, { minLength: 1, maxLength: 3 }), value: valueArb }) },
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant('commit' as const), statements: fc.array(statementArb, { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('optimize' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('tier' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('expire' as const), retainLast: fc.integer({ min: 1, max: 3 }) }) },
);

function apply(state: State, s: Statement): State {
  const next = new Map(state);
  if (s.t === 'upsert') for (const [k, v] of s.rows) next.set(k, v);
  else if (s.t === 'delete') for (const k of s.keys) next.delete(k);
  else for (const k of s.keys) if (next.has(k)) next.set(k, s.value);
  return next;
}

/**
 * After folds, tiering and expiry: between each two consecutive snapshots still on main's
 * lineage, the changelog replayed over the model's state at the first gives its state at the
 * second (an expired snapshot's rows now belong to the child it was squashed into).
 */
async function checkRetained(wh: Warehouse, t: TableMetadata, stateAt: ReadonlyMap<bigint, State>): Promise<void> {
  const lineage: bigint[] = [];
  const byId = new Map(wh.listSnapshots(t).map((x) => [x.id, x]));
  for (let s = wh.resolveSnapshot(t); s !== undefined; s = s.parentId === undefined ? undefined : byId.get(s.parentId)) lineage.unshift(s.id);
  for (let i = 1; i < lineage.length; i++) {
    const [a, b] = [lineage[i - 1]!, lineage[i]!];
    const rows = [...(await changesBySnapshot(wh, t, a, b)).values()].flat();
    const got = replay(stateAt.get(a)!, rows);
    assert.deepEqual([...got].sort((x, y) => x[0] - y[0]), [...stateAt.get(b)!].sort((x, y) => x[0] - y[0]), `changes (${a}, ${b}] lead from one retained snapshot to the next`);
  }
}

async function runScenario(log: boolean, ops: readonly Op[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-changelog-model-'));
  const wh: Warehouse = await openWarehouse({ path: dir, ...(log ? {} : { log: false }) });
  try {
    const t: TableMetadata = await wh.createTable({
      namespace: 'public', name: 'kv', primaryKey: ['id'], properties: { 'changelog-producer': 'lookup' },
      columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: false }],
    });
    const first = wh.resolveSnapshot(t)?.id;
    let model: State = new Map();
    let last = first;
    const read = new Map<bigint, ChangeText[]>();
    /** The model's state at each snapshot the run saw at main's head. */
    const stateAt = new Map<bigint, State>();
    if (first !== undefined) stateAt.set(first, model);
    let expired = false;
    for (const op of ops) {
      if (op.t === 'optimize') {
        await wh.optimize(t);
        const h = wh.resolveSnapshot(t)?.id;
        if (h !== undefined) stateAt.set(h, model);
        // An optimize changes no rows; reading from its snapshot on, the next commit's changes
        // still start at a snapshot an expiry keeps (it keeps the head, not what came before).
        if (h !== undefined) last = h;
        continue;
      }
      if (op.t === 'tier') { if (log) await wh.tierLogFiles(t); continue; }
      if (op.t === 'expire') {
        await wh.expireSnapshots(t, { olderThanMicros: BigInt(Date.now() + 1000) * 1000n, retainLast: op.retainLast });
        expired = true;
        await checkRetained(wh, t, stateAt);
        continue;
      }
      const tx = await wh.begin();
      let next = model;
      for (const s of op.statements) {
        if (s.t === 'upsert') await tx.upsert(t, 'main', columnsOf(t, s.rows.map(([id, v]) => ({ id, v }))));
        else if (s.t === 'delete') await tx.deleteKeys(t, 'main', [s.keys]);
        else {
          const live = s.keys.filter((k) => next.has(k));
          if (live.length > 0) {
            await tx.update(t, 'main', columnsOf(t, live.map((id) => ({ id, v: next.get(id)! }))), columnsOf(t, live.map((id) => ({ id, v: s.value }))));
          }
        }
        next = apply(next, s);
      }
      await tx.commit();
      const headId = wh.resolveSnapshot(t)?.id;
      if (headId !== undefined && headId !== last) {
        const changes = [...(await changesBySnapshot(wh, t, last, headId)).entries()];
        for (const [sid, rows] of changes) {
          model = replay(model, rows);
          read.set(sid, rows);
        }
        last = headId;
        stateAt.set(headId, next);
      }
      assert.deepEqual([...model].sort((a, b) => a[0] - b[0]), [...next].sort((a, b) => a[0] - b[0]), 'the changelog replayed is the model');
      model = next;
      assert.deepEqual(await readRows(wh, { table: t }), [...model].sort((a, b) => a[0] - b[0]).map(([id, v]) => ({ id, v })));
    }
    if (last !== undefined && last !== first && !expired) {
      const again = await changesBySnapshot(wh, t, first, last);
      for (const [sid, rows] of read) assert.deepEqual(again.get(sid) ?? [], rows, `snapshot ${sid} reads its changelog as at its commit`);
    }
    await checkRetained(wh, t, stateAt);
  } finally {
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const log of [true, false]) {
  test(`lookup changelog = the model's diff between consecutive snapshots (${log ? 'log store' : 'no log'})`, async () => {
    await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 20 }), (ops) => runScenario(log, ops)), { numRuns: 20 });
  });
}
