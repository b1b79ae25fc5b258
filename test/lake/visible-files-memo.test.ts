import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Catalog, NewFileRecord } from '../../src/lake/catalog/catalog.js';
import { forEachCatalogBackend, type CatalogBackend } from '../harness/catalog-backends.js';

/*
 * The catalog derives a snapshot's visible files from its parent's and keeps them
 * across database changes (visible-files-memo.ts). Random histories — commits on several
 * branches, branch creation, rollbacks, fast-forwards, expiries with squash and file
 * deletion, in-place replacement (tiering) and a dropped table — run through two catalogs
 * on one database (two processes), and after every step both must answer visibleFiles at
 * every snapshot exactly as the definition computed from the raw rows: added at an
 * ancestor-or-self, removed at none.
 */

const TABLE_DEF = {
  namespace: 'public', columns: [{ fieldId: 1, name: 'k', type: { kind: 'int4' }, nullable: false }],
  primaryKey: ['k'], partitionBy: [], properties: {}, nextFieldId: 2,
} as never;

function newFile(path: string, seq: number): NewFileRecord {
  return {
    store: 'change', path, partitionKey: '', partitionValues: [], nodeMask: 0, nodeIndex: 0, rowCount: 1, sizeBytes: 10,
    seq: BigInt(seq), firstOffset: 0, stats: {}, dvTarget: undefined, dvPositions: undefined, rowGroups: undefined, keyBitmap: undefined,
  };
}

/**
 * The definition, from the raw rows (every snapshot, removal and file row, uncached) through a
 * connection of its own: [fileId, addedIn, path] in (added_in, file_id) order.
 */
function expectedVisible(raw: Catalog, tableId: number, snapshotId: bigint): [number, bigint, string][] {
  const parents = new Map(raw.listSnapshots(tableId).map((r) => [r.id, r.parentId]));
  const anc = new Set<bigint>();
  for (let cur: bigint | undefined = snapshotId; cur !== undefined; cur = parents.get(cur)) anc.add(cur);
  const removed = new Set(raw.fileRemovals(tableId).filter((r) => anc.has(r.snapshotId)).map((r) => r.fileId));
  return raw.allFiles(tableId)
    .filter((f) => anc.has(f.addedIn) && !removed.has(f.fileId))
    .sort((x, y) => (x.addedIn === y.addedIn ? x.fileId - y.fileId : x.addedIn < y.addedIn ? -1 : 1))
    .map((f) => [f.fileId, f.addedIn, f.path]);
}

type Command =
  | { kind: 'commit'; via: number; branch: number; add: number; remove: number[] }
  | { kind: 'branch'; via: number; from: number }
  | { kind: 'rollback'; via: number; branch: number; back: number }
  | { kind: 'fastForward'; via: number; target: number; source: number }
  | { kind: 'expire'; via: number; pick: number[] }
  | { kind: 'replace'; via: number; branch: number; take: number }
  | { kind: 'dropOther'; via: number };

const via = fc.nat(1);
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('commit' as const), via, branch: fc.nat(), add: fc.nat(2), remove: fc.array(fc.nat(), { maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('branch' as const), via, from: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rollback' as const), via, branch: fc.nat(), back: fc.nat(4) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fastForward' as const), via, target: fc.nat(), source: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('expire' as const), via, pick: fc.array(fc.nat(), { maxLength: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('replace' as const), via, branch: fc.nat(), take: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dropOther' as const), via }) },
);

/**
 * Runs `commands`, checking every snapshot after every `fullCheckEvery`-th step and the branch
 * heads after every `headCheckEvery`-th of the others (the commits between are read by nobody).
 */
function run(backend: CatalogBackend, commands: readonly Command[], readOrder: number, fullCheckEvery = 1, headCheckEvery = 1): void {
  const place = backend.place();
  const catalogs = [place.connect(), place.connect()] as const;
  const raw = place.connectAsAnotherProcess();
  try {
    const t = catalogs[0].createTable({ ...(TABLE_DEF as object), name: 't' } as never, 1n, false).table.id;
    let other: number | undefined = catalogs[0].createTable({ ...(TABLE_DEF as object), name: 'o' } as never, 1n, false).table.id;
    catalogs[1].commit([{ tableId: other, branch: 'main', operation: 'append', summary: {}, schemaId: 0, addFiles: [newFile('o1', 1)], removeFileIds: [] }], undefined, 2n);
    let clock = 10n;
    let n = 0;
    const branches = ['main'];
    const check = (step: string, full: boolean): void => {
      const snaps = full ? catalogs[0].listSnapshots(t).map((s) => s.id) : catalogs[0].listRefs(t).map((r) => r.snapshotId);
      // Reads in a varying order, so sets are derived from kept ones at various distances (and evicted).
      const order = readOrder % 3 === 0 ? snaps : readOrder % 3 === 1 ? [...snaps].reverse() : snaps.filter((_, i) => i % 2 === 0).concat(snaps.filter((_, i) => i % 2 === 1));
      for (const c of catalogs) {
        for (const s of order) {
          const got = c.visibleFiles(t, s).map((f) => [f.fileId, f.addedIn, f.path]);
          assert.deepEqual(got, expectedVisible(raw, t, s), `${step}: visible files at snapshot ${s}`);
        }
        if (other !== undefined) {
          const head = c.getRef(other, 'main')?.snapshotId;
          if (head !== undefined) assert.deepEqual(c.visibleFiles(other, head).map((f) => f.path), ['o1'], `${step}: the other table`);
        }
      }
    };
    check('start', true);
    for (const [i, cmd] of commands.entries()) {
      const c = catalogs[cmd.via]!;
      const headOf = (b: string): bigint => c.getRef(t, b)!.snapshotId;
      const live = (): bigint[] => c.listSnapshots(t).filter((s) => !s.expired).map((s) => s.id);
      switch (cmd.kind) {
        case 'commit': {
          const branch = branches[cmd.branch % branches.length]!;
          // Chosen from the definition, not read through the catalogs under test: reads are the checks' alone.
          const visible = expectedVisible(raw, t, headOf(branch)).map(([id]) => id);
          const remove = visible.length === 0 ? [] : [...new Set(cmd.remove.map((r) => visible[r % visible.length]!))];
          const addFiles = Array.from({ length: cmd.add }, () => newFile(`f${++n}`, n));
          c.commit([{ tableId: t, branch, operation: 'append', summary: {}, schemaId: 0, addFiles, removeFileIds: remove }], undefined, clock++);
          break;
        }
        case 'branch': {
          const snaps = live();
          const name = `b${branches.length}`;
          c.putRef({ tableId: t, name, kind: 'branch', snapshotId: snaps[cmd.from % snaps.length]!, retainMicros: undefined }, { mustNotExist: true });
          branches.push(name);
          break;
        }
        case 'rollback': {
          const branch = branches[cmd.branch % branches.length]!;
          const chain = c.ancestors(t, headOf(branch)).filter((s) => c.getSnapshot(t, s)?.expired === false);
          const to = chain[Math.min(cmd.back, chain.length - 1)]!;
          c.putRef({ tableId: t, name: branch, kind: 'branch', snapshotId: to, retainMicros: undefined }, { expect: headOf(branch) });
          break;
        }
        case 'fastForward': {
          const target = branches[cmd.target % branches.length]!;
          const source = branches[cmd.source % branches.length]!;
          if (!c.ancestors(t, headOf(source)).includes(headOf(target))) break;
          c.putRef({ tableId: t, name: target, kind: 'branch', snapshotId: headOf(source), retainMicros: undefined }, { expect: headOf(target) });
          break;
        }
        case 'expire': {
          const heads = new Set(c.listRefs(t).map((r) => r.snapshotId));
          const candidates = live().filter((s) => !heads.has(s));
          if (candidates.length === 0) break;
          const expiring = [...new Set(cmd.pick.map((p) => candidates[p % candidates.length]!))];
          const keep = live().filter((s) => !expiring.includes(s));
          const needed = new Set(keep.flatMap((s) => expectedVisible(raw, t, s).map(([id]) => id)));
          const dead = c.allFiles(t).filter((f) => !needed.has(f.fileId)).map((f) => f.fileId);
          c.expire(t, expiring, dead);
          break;
        }
        case 'replace': {
          // Tiering: live files nothing removed, swapped for one file in place (no snapshot).
          const branch = branches[cmd.branch % branches.length]!;
          const removedAnywhere = new Set(c.fileRemovals(t).map((r) => r.fileId));
          const unremoved = c.visibleFiles(t, headOf(branch)).filter((f) => !removedAnywhere.has(f.fileId));
          const take = unremoved.slice(0, cmd.take);
          if (take.length === 0) break;
          const addedIn = take.reduce((m, f) => (f.addedIn < m ? f.addedIn : m), take[0]!.addedIn);
          const r = c.replaceFilesInPlace(t, take.map((f) => f.fileId), { ...newFile(`tiered${++n}`, n), snapshots: take.map((f) => f.addedIn) }, addedIn);
          assert.notEqual(r, undefined, 'replaceFilesInPlace refused live files');
          break;
        }
        case 'dropOther': {
          if (other === undefined) break;
          const head = c.getRef(other, 'main')!.snapshotId;
          c.dropTable(other);
          for (const d of catalogs) assert.deepEqual(d.visibleFiles(other, head), [], 'a dropped table has no visible files');
          other = undefined;
          break;
        }
      }
      const full = i % fullCheckEvery === 0 || i === commands.length - 1;
      if (full || i % headCheckEvery === 0) check(`step ${i} (${JSON.stringify(cmd)})`, full);
    }
  } finally {
    place.dispose();
  }
}

forEachCatalogBackend((backend) => {
test('memoized visibleFiles equals the definition at every snapshot, through random histories and two catalogs on one database', () => {
  // Each PostgreSQL catalog statement is a round trip (a history takes seconds there): enough to run every statement.
  const numRuns = backend().name === 'postgres' ? 3 : 60;
  fc.assert(fc.property(fc.array(command, { minLength: 5, maxLength: 40 }), fc.nat(), (commands, readOrder) => run(backend(), commands, readOrder)), { numRuns });
});

// The memo's own bounds, on SQLite only: the database under it does not matter, and 200 commits take 20 s on PostgreSQL.
if (backend().name === 'sqlite') test('a long line of commits is read commit by commit, exactly, past the memo\'s walk and size bounds', () => {
  // 200 commits, each adding a file and removing the oldest live one after the tenth:
  // a read every commit, and reads of old snapshots far behind every kept set.
  const commands: Command[] = [];
  for (let i = 0; i < 200; i++) commands.push({ kind: 'commit', via: i % 2, branch: 0, add: 1, remove: i >= 10 ? [0] : [] });
  run(backend(), commands, 1, 50);
});

// Heads read only every 70 commits: each read is derived from the set kept 70 commits back in
// one read of the commits between, or (off the line after a rollback, squashed by expiry) by the query.
if (backend().name === 'sqlite') test('heads read after long runs of unread commits, through random histories, equal the definition', () => {
  // 200 commits, with a few of every other kind dropped in at random places.
  const commit = fc.record({ kind: fc.constant('commit' as const), via, branch: fc.nat(), add: fc.nat({ max: 2 }), remove: fc.array(fc.nat(), { maxLength: 2 }) });
  const longRun = fc.tuple(fc.array(commit, { minLength: 200, maxLength: 200 }), fc.array(fc.tuple(fc.nat(199), command), { maxLength: 12 }))
    .map(([commits, others]) => {
      const out: Command[] = [...commits];
      for (const [at, c] of others.sort((a, b) => b[0] - a[0])) out.splice(at, 0, c);
      return out;
    });
  fc.assert(fc.property(longRun, fc.nat(), (commands, readOrder) => run(backend(), commands, readOrder, 1_000, 70)), { numRuns: 6 });
});

test('a snapshot id read before it exists is not remembered empty: a commit that takes it later is seen', () => {
  const place = backend().place();
  const c = place.connect();
  try {
    const t = c.createTable({ ...(TABLE_DEF as object), name: 't' } as never, 1n, false).table.id;
    const next = c.getRef(t, 'main')!.snapshotId + 1n;
    assert.deepEqual(c.visibleFiles(t, next), []);
    c.createNamespace('unrelated', false); // any other change, so the read cache alone would not answer
    const [s] = c.commit([{ tableId: t, branch: 'main', operation: 'append', summary: {}, schemaId: 0, addFiles: [newFile('a', 1)], removeFileIds: [] }], undefined, 5n);
    assert.equal(s!.id, next);
    assert.deepEqual(c.visibleFiles(t, next).map((f) => f.path), ['a']);
  } finally {
    place.dispose();
  }
});
});
