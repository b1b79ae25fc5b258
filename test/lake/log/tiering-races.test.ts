import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executeNodeRewrite, optimizingSettings } from '../../../src/lake/index.js';
import type { KeyedNodeRewriteTask, NodeRewriteTask, OptimizeKind, TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { isLogPath } from '../../../src/lake/log/log-locator.js';
import { RandomStream } from '../../../src/tools/tpch/random-stream.js';
import { columnsOf, readRows, tempWarehouse } from '../helpers/read-table.js';

/*
 * Tiering swaps log files for a tiered file in place while the optimizer folds and expiry
 * squashes the same table (the gateway runs all three on one event loop, each awaiting
 * storage in the middle). These tests put one in the middle of the other at each await
 * and check that every snapshot still reads what a model of the commits says.
 */

type Model = Map<number, string>;

async function kv(wh: Warehouse, name: string, properties: Record<string, string> = {}): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name, primaryKey: ['id'], properties,
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
}

async function upsert(wh: Warehouse, t: TableMetadata, rows: readonly (readonly [number, string])[]): Promise<bigint> {
  const tx = await wh.begin();
  await tx.upsert(t, 'main', columnsOf(t, rows.map(([id, v]) => ({ id, v }))));
  return (await tx.commit())!.id;
}

async function del(wh: Warehouse, t: TableMetadata, ids: readonly number[]): Promise<bigint> {
  const tx = await wh.begin();
  await tx.deleteKeys(t, 'main', [[...ids]]);
  return (await tx.commit())!.id;
}

/** The model's rows in readRows' order (by the JSON of their values). */
const rowsOf = (m: Model) => [...m].map(([id, v]) => ({ id, v }))
  .sort((a, b) => (JSON.stringify([a.id, a.v]) < JSON.stringify([b.id, b.v]) ? -1 : 1));

async function head(wh: Warehouse, t: TableMetadata): Promise<unknown> {
  return readRows(wh, { table: t });
}

const show = (x: unknown): string => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

function logFiles(wh: Warehouse, t: TableMetadata): number {
  return wh.listFiles(t).filter((f) => isLogPath(f.path)).length;
}

test('an expiry that squashes a commit while its log files are tiered: the swap is refused and no commit is hidden', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh, 't');
    const model: Model = new Map();
    for (let i = 0; i < 5; i++) {
      await upsert(wh, t, [[i, `a${i}`], [10 + i, `b${i}`]]);
      model.set(i, `a${i}`).set(10 + i, `b${i}`);
    }
    await del(wh, t, [2]);
    model.delete(2);
    const r = await wh.tierLogFiles(t, {
      // Every commit but the head expires and is squashed into it: the log files' added_in moves.
      beforeSwap: async () => { await wh.expireSnapshots(t, { olderThanMicros: BigInt(Date.now() + 1000) * 1000n, retainLast: 1 }); },
    });
    assert.equal(r.conflicts, 1, show(r));
    assert.deepEqual(await head(wh, t), rowsOf(model));
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: 13 }] }), [{ id: 13, v: 'b3' }]);
    // The next round tiers them, against the squashed lineage.
    const again = await wh.tierLogFiles(t);
    assert.ok(again.filesOut > 0 && again.conflicts === 0, show(again));
    assert.equal(logFiles(wh, t), 0);
    assert.deepEqual(await head(wh, t), rowsOf(model));
  } finally { await cleanup(); }
});

test('log files at or above the low watermark stay untiered: a fold to W never leaves an older row above a folded delete', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh, 't');
    await upsert(wh, t, [[1, 'a']]);
    const deleter = await wh.begin();
    const holder = await wh.begin(); // holds W above the deleter's seq and below the next commit's
    await upsert(wh, t, [[2, 'd']]);
    await wh.tierLogFiles(t);
    await deleter.deleteKeys(t, 'main', [[1]]);
    await deleter.commit();
    // W is the holder's seq: the delete folds, the commit of 2 does not.
    const folded = await wh.optimize(t);
    assert.ok(folded.snapshotId !== undefined);
    assert.deepEqual(await head(wh, t), [{ id: 2, v: 'd' }]);
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'v', op: '=', value: 'a' }] }), []);
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: 1 }] }), []);
    await holder.abort();
    await wh.tierLogFiles(t);
    await wh.optimize(t);
    assert.deepEqual(await head(wh, t), [{ id: 2, v: 'd' }]);
    assert.equal(logFiles(wh, t), 0);
  } finally { await cleanup(); }
});

test('an ancestor log file folded into one child only stays in the log; newer ones on its line are tiered', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await kv(wh, 't', {
      'self-optimizing.target-size': '1KB', 'self-optimizing.minor.trigger.file-count': '2', 'self-optimizing.minor.trigger.interval': '1h',
    });
    const model: Model = new Map();
    const seed = Array.from({ length: 200 }, (_, i) => [100 + i, `v${(i * 2654435761) % 1000003}`] as const);
    await upsert(wh, t, seed);
    for (const [id, v] of seed) model.set(id, v);
    // Three writers routed by the root frontier before the split: their files land at the root.
    const a = await wh.begin();
    await a.upsert(t, 'main', columnsOf(t, [{ id: 1, v: 'a' }]));
    const d = await wh.begin();
    const x = await wh.begin();
    await x.upsert(t, 'main', columnsOf(t, [{ id: 2, v: 'x' }]));
    const split = await wh.optimize(t); // W = a's seq: the seed folds, split into two children
    assert.equal(split.nodesSplit, 1, show(split));
    await a.commit();
    model.set(1, 'a');
    await d.deleteKeys(t, 'main', [[1]]);
    await d.commit();
    model.delete(1);
    // W = x's seq. Key 1's child has a's file (at the root) and d's: it folds; its sibling has
    // only a's and waits, so a's root file stays, folded into one child.
    // (A big target again, so neither child is split now.)
    await wh.alterTable('public', 't', { kind: 'setProperties', properties: { 'self-optimizing.target-size': '128MB' } });
    const one = await wh.optimize(t, { triggers: optimizingSettings(wh.getTable('public', 't')!) });
    assert.equal(one.nodesOptimized, 1, show(one));
    await x.commit();
    model.set(2, 'x');
    const tiered = await wh.tierLogFiles(t);
    assert.equal(tiered.filesIn, 1, show(tiered));
    assert.equal(logFiles(wh, t), 1, "a's file, folded into one child, stays");
    assert.deepEqual(await head(wh, t), rowsOf(model));
    assert.deepEqual(await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: 1 }] }), []);
    await wh.optimize(t);
    assert.deepEqual(await head(wh, t), rowsOf(model));
    assert.equal(logFiles(wh, t), 0);
  } finally { await cleanup(); }
});

/**
 * A seeded stream of commits (upserts, updates of shared keys, deletes; now and then one
 * from a transaction held open across others, so the low watermark lags), with a fold and
 * a tiering interleaved at every point: tiering before a node's rewrite, between the
 * rewrites and the commit, and a fold or an expiry inside a tiering between its store and its swap.
 */
for (const kind of ['minor', 'major', 'full'] as const) {
  test(`tiering interleaved with ${kind} folds (with splits and merges): every snapshot reads as the model`, { timeout: 300_000 }, async () => {
    for (const seed of [1, 2]) await interleaved(kind, seed);
  });
}

const STEPS = 30;

async function interleaved(kind: OptimizeKind, seed: number): Promise<void> {
  const { wh, cleanup } = await tempWarehouse();
  const rand = new RandomStream(seed * 7919 + kind.length);
  try {
    const t = await kv(wh, 't', { 'self-optimizing.target-size': '2KB' });
    const model: Model = new Map();
    const at = new Map<bigint, Model>();
    const note = (snap: bigint | undefined): void => { if (snap !== undefined) at.set(snap, new Map(model)); };
    const tier = async (): Promise<void> => { await wh.tierLogFiles(t); };
    const fold = async (where: 'before-rewrite' | 'after-rewrite' | 'none'): Promise<void> => {
      const runNodeRewrite = async (task: NodeRewriteTask) => {
        if (where === 'before-rewrite') await tier();
        const r = await executeNodeRewrite(task as KeyedNodeRewriteTask);
        if (where === 'after-rewrite') await tier();
        return r;
      };
      try {
        note((await wh.optimize(t, { kind, runNodeRewrite })).snapshotId);
      } catch (e) {
        // Three conflicts in a row (a tiering swapped its inputs each time) fail the run; nothing changed.
        if ((e as { sqlstate?: string }).sqlstate !== '40001') throw e;
      }
    };
    let open: { tx: Awaited<ReturnType<Warehouse['begin']>>; rows: [number, string][]; since: Set<number> } | undefined;
    for (let step = 0; step < STEPS; step++) {
      const r = rand.next();
      if (r < 0.45) {
        const byId = new Map<number, string>();
        for (let n = 1 + rand.int(0, 6); n > 0; n--) byId.set(rand.int(0, 60), `s${step}-${n}`);
        const rows = [...byId];
        const snap = await upsert(wh, t, rows);
        for (const [id, v] of rows) { model.set(id, v); open?.since.add(id); }
        note(snap);
      } else if (r < 0.55) {
        const ids = [...new Set(Array.from({ length: 1 + rand.int(0, 3) }, () => rand.int(0, 60)))];
        const snap = await del(wh, t, ids);
        for (const id of ids) { model.delete(id); open?.since.add(id); }
        note(snap);
      } else if (r < 0.65) {
        if (open === undefined) {
          const tx = await wh.begin();
          const rows: [number, string][] = [[rand.int(0, 60), `open${step}`]];
          await tx.upsert(t, 'main', columnsOf(t, rows.map(([id, v]) => ({ id, v }))));
          open = { tx, rows, since: new Set() };
        } else {
          // Its rows carry its older seq: a key a newer seq wrote meanwhile keeps that write (the merge's (seq, offset) rule).
          // Under repeatable read a key written since fails the commit (40001): nothing of it lands.
          const snap = await open.tx.commit().then((x) => x?.id, (e: unknown) => {
            if ((e as { sqlstate?: string }).sqlstate !== '40001') throw e;
            return undefined;
          });
          if (snap !== undefined) for (const [id, v] of open.rows) if (!open.since.has(id)) model.set(id, v);
          note(snap);
          open = undefined;
        }
      } else if (r < 0.75) {
        await fold('before-rewrite');
      } else if (r < 0.85) {
        await fold('after-rewrite');
      } else if (r < 0.93) {
        await wh.tierLogFiles(t, { beforeSwap: () => fold('none') });
      } else {
        // Expiry squashes commits of the group being tiered (a transaction held open keeps its snapshots).
        const expire = async () => { await wh.expireSnapshots(t, { olderThanMicros: BigInt(Date.now() + 1000) * 1000n, retainLast: 3 }); };
        await wh.tierLogFiles(t, { beforeSwap: expire });
      }
      const headSnap = wh.listSnapshots(t).at(-1)!.id;
      if (!at.has(headSnap)) at.set(headSnap, new Map(model));
      assert.deepEqual(await head(wh, t), rowsOf(model), `seed ${seed} step ${step}: head`);
    }
    await open?.tx.abort();
    for (const s of wh.listSnapshots(t)) {
      const want = at.get(s.id);
      if (want === undefined) continue;
      let got: unknown;
      try {
        got = await readRows(wh, { table: t, at: { kind: 'snapshot', id: s.id } });
      } catch (e) {
        if ((e as { sqlstate?: string }).sqlstate === '22023') continue; // expired
        throw e;
      }
      assert.deepEqual(got, rowsOf(want), `seed ${seed}: snapshot ${s.id} (${s.operation})`);
    }
    for (let id = 0; id <= 60; id += 7) {
      const got = await readRows(wh, { table: t, filters: [{ column: 'id', op: '=', value: id }] });
      assert.deepEqual(got, model.has(id) ? [{ id, v: model.get(id) }] : [], `seed ${seed}: point read of ${id}`);
    }
  } finally { await cleanup(); }
}

