import { test } from 'node:test';
import assert from 'node:assert/strict';
import { optimizingSettings } from '../../src/lake/index.js';
import type { OptimizingSettings, TableMetadata, Warehouse } from '../../src/lake/index.js';
import { RandomStream } from '../../src/tools/tpch/random-stream.js';
import { kvTable } from './helpers/keyed-table.js';
import { columnsOf, readRows, tempWarehouse } from './helpers/read-table.js';

/*
 * Delta folds (optimizing-triggers.ts, minorAction 'delta'): a large node's minor folds its
 * changes and small base files into one small base file and marks the rows they supersede in
 * its large base files' deletion vectors. Every reader must see the node as a full fold
 * would leave it: scans (whole, filtered, point), the primary-key check, time travel, and
 * a later major that rewrites the node.
 */

type Model = Map<number, string>;

const TARGET = 1024 * 1024;
const LARGE = TARGET / 8;

/** The scheduler's settings with the interval trigger due at once: a large node delta-folds (a count trigger would compact). */
function triggers(t: TableMetadata, extra: Partial<OptimizingSettings> = {}): OptimizingSettings {
  return { ...optimizingSettings(t), minorFileCount: 1000, minorIntervalMs: 0, ...extra };
}

async function write(wh: Warehouse, t: TableMetadata, m: Model, upserts: readonly [number, string][], deletes: readonly number[]): Promise<bigint> {
  const tx = await wh.begin();
  if (upserts.length > 0) await tx.upsert(t, 'main', columnsOf(t, upserts.map(([id, v]) => ({ id, v }))));
  if (deletes.length > 0) await tx.deleteKeys(t, 'main', [[...deletes]]);
  for (const [id, v] of upserts) m.set(id, v);
  for (const id of deletes) m.delete(id);
  return (await tx.commit())!.id;
}

const rowsOf = (m: Model) => [...m].map(([id, v]) => ({ id, v }))
  .sort((a, b) => (JSON.stringify([a.id, a.v]) < JSON.stringify([b.id, b.v]) ? -1 : 1));

async function seeded(wh: Warehouse, m: Model): Promise<{ t: TableMetadata; large: number }> {
  const t = await kvTable(wh, 't', { 'self-optimizing.target-size': String(TARGET) });
  const seed: [number, string][] = Array.from({ length: 20_000 }, (_, i) => [i, `v${(i * 2654435761) % 1000003}`]);
  await write(wh, t, m, seed, []);
  await wh.optimize(t);
  const base = wh.listFiles(t).filter((f) => f.store === 'base');
  assert.equal(base.length, 1);
  // the node is large (a delta fold's case) and under the target (no split)
  assert.ok(base[0]!.sizeBytes >= LARGE && base[0]!.sizeBytes < TARGET, `base file of ${base[0]!.sizeBytes} bytes`);
  return { t, large: base[0]!.fileId };
}

async function assertReadsModel(wh: Warehouse, t: TableMetadata, m: Model, ids: readonly number[], at?: bigint): Promise<void> {
  const req = at === undefined ? { table: t } : { table: t, at: { kind: 'snapshot' as const, id: at } };
  assert.deepEqual(await readRows(wh, req), rowsOf(m));
  // filtered: rows are cut as the base file is decoded, deleted ones with them
  const lo = 5_000;
  const hi = 7_000;
  const ranged = await readRows(wh, { ...req, filters: [{ column: 'id', op: '>=', value: lo }, { column: 'id', op: '<', value: hi }] });
  assert.deepEqual(ranged, rowsOf(new Map([...m].filter(([id]) => id >= lo && id < hi))));
  // point reads: only the row groups holding the key's hash are decoded, or taken from the
  // row-group cache (a miss, then a hit)
  for (const id of ids) {
    const point = { ...req, filters: [{ column: 'id', op: '=' as const, value: id }] };
    const want = m.has(id) ? [{ id, v: m.get(id) }] : [];
    assert.deepEqual(await readRows(wh, point), want, `id ${id}`);
    assert.deepEqual(await readRows(wh, point, { cacheRowGroups: true }), want, `id ${id}, cached`);
    assert.deepEqual(await readRows(wh, point, { cacheRowGroups: true }), want, `id ${id}, cached again`);
  }
}

test('a delta fold keeps the large base file, marks superseded rows, and every read sees the fold', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const m: Model = new Map();
    const { t, large } = await seeded(wh, m);
    await write(wh, t, m, [[10, 'ten'], [20_001, 'new']], [11, 12]);
    await write(wh, t, m, [[11, 'back'], [13, 'thirteen']], [14]);
    const before = new Map(m);
    const beforeSnap = wh.listSnapshots(t).at(-1)!.id;
    const r = await wh.optimize(t, { triggers: triggers(t) });
    assert.equal(r.nodesOptimized, 1);
    assert.equal(r.changeFilesFolded, 2);
    const files = wh.listFiles(t);
    assert.deepEqual(files.filter((f) => f.store === 'change'), [], 'every change folded');
    const base = files.filter((f) => f.store === 'base');
    assert.equal(base.length, 2, 'the large file and the delta');
    const kept = base.find((f) => f.fileId === large)!;
    // 10, 11, 12, 13, 14 were in the large file: each is superseded there (11 deleted, then back)
    assert.equal(kept.deletedRows, 5);
    assert.equal(base.find((f) => f.fileId !== large)!.rowCount, 4, 'the delta holds 10, 11, 13 and 20001');
    await assertReadsModel(wh, t, m, [10, 11, 12, 13, 14, 15, 20_001]);
    await assertReadsModel(wh, t, before, [10, 11, 12, 14], beforeSnap);

    // the primary-key check: a key deleted and folded is free, a live one taken
    const tx = await wh.begin();
    await tx.insert(t, 'main', columnsOf(t, [{ id: 12, v: 'twelve' }]));
    await tx.commit();
    m.set(12, 'twelve');
    const dup = await wh.begin();
    await assert.rejects(dup.insert(t, 'main', columnsOf(t, [{ id: 10, v: 'again' }])), (e: { sqlstate?: string }) => e.sqlstate === '23505');
    await dup.abort();
    await assert.rejects((async () => {
      const d = await wh.begin();
      try { await d.insert(t, 'main', columnsOf(t, [{ id: 15, v: 'again' }])); } finally { await d.abort(); }
    })(), (e: { sqlstate?: string }) => e.sqlstate === '23505', 'an untouched row of the large file still holds its key');

    // a second delta fold rewrites the delta and adds to the large file's deletion vector
    await write(wh, t, m, [[16, 'sixteen'], [10, 'ten again']], [17]);
    const again = await wh.optimize(t, { triggers: triggers(t) });
    assert.equal(again.nodesOptimized, 1);
    const after = wh.listFiles(t).filter((f) => f.store === 'base');
    assert.equal(after.length, 2);
    assert.equal(after.find((f) => f.fileId === large)!.deletedRows, 7, '16 and 17 join the five');
    await assertReadsModel(wh, t, m, [10, 12, 16, 17, 18]);

    // a major past the duplicate ratio rewrites the node: no deletion vector is left
    const major = await wh.optimize(t, { kind: 'major', triggers: triggers(t, { majorDuplicateRatio: 0.0001 }) });
    assert.equal(major.nodesOptimized, 1);
    const rewritten = wh.listFiles(t).filter((f) => f.store === 'base');
    assert.equal(rewritten.length, 1);
    assert.notEqual(rewritten[0]!.fileId, large);
    assert.equal(rewritten[0]!.deletedRows, 0);
    assert.equal(rewritten[0]!.rowCount, m.size);
    await assertReadsModel(wh, t, m, [10, 12, 16, 17, 18]);
  } finally { await cleanup(); }
});

test('delta folds under a random stream of upserts and deletes: every snapshot reads as the model', { timeout: 300_000 }, async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const m: Model = new Map();
    const { t } = await seeded(wh, m);
    const rand = new RandomStream(4242);
    const history: { snap: bigint; model: Model }[] = [];
    let deltas = 0;
    for (let round = 0; round < 12; round++) {
      for (let c = 0; c < 3; c++) {
        const ups: [number, string][] = [];
        const dels: number[] = [];
        for (let k = 0; k < 40; k++) {
          const id = rand.int(0, 20_999);
          if (rand.int(0, 2) === 0) { if (!ups.some(([u]) => u === id)) dels.push(id); } else if (!dels.includes(id)) ups.push([id, `r${round}c${c}k${k}`]);
        }
        history.push({ snap: await write(wh, t, m, ups, dels), model: new Map(m) });
      }
      const r = await wh.optimize(t, { triggers: triggers(t) });
      if (r.nodesOptimized > 0 && wh.listFiles(t).some((f) => f.deletedRows > 0)) deltas++;
      await assertReadsModel(wh, t, m, [rand.int(0, 20_999), rand.int(0, 20_999)]);
    }
    assert.ok(deltas >= 10, `${deltas} delta folds`);
    for (const h of history.filter((_, i) => i % 5 === 0)) assert.deepEqual(await readRows(wh, { table: t, at: { kind: 'snapshot', id: h.snap } }), rowsOf(h.model));
  } finally { await cleanup(); }
});

test("a transaction reading at a snapshot before a delta fold checks keys against the fold's base, as after a fold", async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const m: Model = new Map();
    const { t } = await seeded(wh, m);
    const before = wh.listSnapshots(t).at(-1)!.id;
    // an older transaction deletes 12 and commits after A began: below A's seq, so foldable
    const older = await wh.begin();
    const a = await wh.begin({ isolation: 'repeatable read' });
    a.readAtOrBefore(before);
    await older.deleteKeys(t, 'main', [[12]]);
    await older.commit();
    const r = await wh.optimize(t, { triggers: triggers(t) });
    assert.equal(r.nodesOptimized, 1);
    assert.ok(wh.listFiles(t).some((f) => f.deletedRows === 1), 'a delta fold marked 12');
    // A's first write: its snapshot is the one before the delete, the frontier the head's.
    // The key is free at the head's base (its row marked), as it is after a full fold.
    await a.insert(t, 'main', columnsOf(t, [{ id: 12, v: 'mine' }]));
    await assert.rejects(a.insert(t, 'main', columnsOf(t, [{ id: 13, v: 'taken' }])), (e: { sqlstate?: string }) => e.sqlstate === '23505');
    await a.abort();
  } finally { await cleanup(); }
});
