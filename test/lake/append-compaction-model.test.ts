/**
 * Randomized: inserts, deletes and updates (some in transactions held open across
 * compactions) interleaved with minor, major and full compactions of an append table,
 * against a model. A transaction's commit fails (40001) exactly when a row it deletes or
 * updates was deleted or updated by a commit after its snapshot; compactions never make
 * it fail, and reads always equal the model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isFloeError } from '../../src/common/floe-error.js';
import { executeAppendFilesRewrite } from '../../src/lake/index.js';
import type { AppendFilesRewriteTask, LakeTransaction, NodeRewriteResult, OptimizeKind } from '../../src/lake/index.js';
import { tempWarehouse } from './helpers/read-table.js';
import { createAppendTable, deleteWhere, insertIds, liveRows, updateWhere } from './helpers/append-table.js';

type Op =
  | { readonly k: 'insert'; readonly n: number }
  | { readonly k: 'delete' | 'update'; readonly mod: number; readonly rem: number }
  | { readonly k: 'begin'; readonly slot: number }
  | { readonly k: 'txnDelete' | 'txnUpdate'; readonly slot: number; readonly mod: number; readonly rem: number }
  | { readonly k: 'commit'; readonly slot: number }
  | { readonly k: 'abort'; readonly slot: number }
  | { readonly k: 'optimize'; readonly kind: OptimizeKind; readonly mid: { readonly mod: number; readonly rem: number } | null };

const slot = fc.integer({ min: 0, max: 1 });
const pred = { mod: fc.integer({ min: 2, max: 7 }), rem: fc.integer({ min: 0, max: 6 }) };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ k: fc.constant('insert' as const), n: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constantFrom('delete' as const, 'update' as const), ...pred }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('begin' as const), slot }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constantFrom('txnDelete' as const, 'txnUpdate' as const), slot, ...pred }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('commit' as const), slot }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('abort' as const), slot }) },
  // mid: a DELETE that commits while the compaction rewrites, after it read its inputs.
  { weight: 3, arbitrary: fc.record({ k: fc.constant('optimize' as const), kind: fc.constantFrom<OptimizeKind>('minor', 'major', 'full'), mid: fc.option(fc.record(pred)) }) },
);

/** A live row of the model: its value and a version that moves whenever the row is deleted or replaced. */
interface ModelRow { readonly v: string; readonly ver: number }

interface OpenTxn {
  readonly txn: LakeTransaction;
  /** What the transaction sees: committed rows (with the version it read) and its own staged ones. */
  readonly view: Map<number, { v: string; ver: number | 'staged' }>;
  /** Committed rows it deleted or replaced, with the version it read. */
  readonly deleted: Map<number, number>;
}

test('append-table compaction against a model, with transactions spanning compactions', async () => {
  await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 20, maxLength: 40, size: 'max' }), fc.constantFrom('128MB', '3KB'), async (ops, target) => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await createAppendTable(wh, 'm', { 'self-optimizing.target-size': target, 'self-optimizing.major.trigger.duplicate-ratio': '0.2' });
      const model = new Map<number, ModelRow>();
      let nextId = 0;
      let nextVer = 0;
      const open: (OpenTxn | undefined)[] = [undefined, undefined];
      const check = async (what: string) => {
        const expected = [...model].sort((a, b) => a[0] - b[0]).map(([id, r]) => ({ id, v: r.v }));
        assert.deepEqual(await liveRows(wh, t), expected, what);
      };
      const matching = (ids: Iterable<number>, mod: number, rem: number) => [...ids].filter((id) => id % mod === rem % mod);
      for (const [i, o] of ops.entries()) {
        switch (o.k) {
          case 'insert': {
            const ids = Array.from({ length: o.n }, () => nextId++);
            await insertIds(wh, t, ids);
            for (const id of ids) model.set(id, { v: `v${id}`, ver: nextVer++ });
            break;
          }
          case 'delete': case 'update': {
            const txn = await wh.begin();
            const hit = matching(model.keys(), o.mod, o.rem);
            const n = o.k === 'delete' ? await deleteWhere(wh, t, txn, (id) => id % o.mod === o.rem % o.mod)
              : await updateWhere(wh, t, txn, (id) => id % o.mod === o.rem % o.mod, `u${i}`);
            assert.equal(n, hit.length);
            await txn.commit();
            for (const id of hit) {
              if (o.k === 'delete') model.delete(id);
              else model.set(id, { v: `u${i}`, ver: nextVer++ });
            }
            break;
          }
          case 'begin': {
            if (open[o.slot] !== undefined) break;
            const txn = await wh.begin();
            txn.markReadModifyWrite(t, 'main'); // pins its snapshot now
            open[o.slot] = { txn, view: new Map([...model].map(([id, r]) => [id, { v: r.v, ver: r.ver }])), deleted: new Map() };
            break;
          }
          case 'txnDelete': case 'txnUpdate': {
            const x = open[o.slot];
            if (x === undefined) break;
            const hit = matching(x.view.keys(), o.mod, o.rem);
            const n = o.k === 'txnDelete' ? await deleteWhere(wh, t, x.txn, (id) => id % o.mod === o.rem % o.mod)
              : await updateWhere(wh, t, x.txn, (id) => id % o.mod === o.rem % o.mod, `t${i}`);
            assert.equal(n, hit.length, `${o.k} in a transaction sees its snapshot and its own writes`);
            for (const id of hit) {
              const seen = x.view.get(id)!;
              if (seen.ver !== 'staged') x.deleted.set(id, seen.ver);
              if (o.k === 'txnDelete') x.view.delete(id);
              else x.view.set(id, { v: `t${i}`, ver: 'staged' });
            }
            break;
          }
          case 'commit': {
            const x = open[o.slot];
            if (x === undefined) break;
            open[o.slot] = undefined;
            const conflict = [...x.deleted].some(([id, ver]) => model.get(id)?.ver !== ver);
            if (conflict) {
              await assert.rejects(x.txn.commit(), (e: unknown) => isFloeError(e) && e.sqlstate === '40001', 'a concurrent delete of the same row fails the commit');
              break;
            }
            await x.txn.commit();
            for (const id of x.deleted.keys()) model.delete(id);
            for (const [id, r] of x.view) if (r.ver === 'staged') model.set(id, { v: r.v, ver: nextVer++ });
            break;
          }
          case 'abort': {
            await open[o.slot]?.txn.abort();
            open[o.slot] = undefined;
            break;
          }
          case 'optimize': {
            const mid = o.mid;
            if (mid === null) {
              await wh.optimize(t, { kind: o.kind });
              break;
            }
            let ran = false;
            await wh.optimize(t, {
              kind: o.kind,
              runNodeRewrite: async (task) => {
                const r = await executeAppendFilesRewrite(task as unknown as AppendFilesRewriteTask);
                if (!ran) {
                  ran = true;
                  const txn = await wh.begin();
                  const hit = matching(model.keys(), mid.mod, mid.rem);
                  assert.equal(await deleteWhere(wh, t, txn, (id) => id % mid.mod === mid.rem % mid.mod), hit.length);
                  await txn.commit();
                  for (const id of hit) model.delete(id);
                }
                return r as unknown as NodeRewriteResult;
              },
            });
            break;
          }
        }
        await check(`after op ${i}: ${JSON.stringify(o)}`);
      }
      for (const x of open) await x?.txn.abort();
    } finally { await cleanup(); }
  }), { numRuns: 14 });
});
