import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { filesVisibleAtAny } from '../../src/lake/refs/files-visible-at-any.js';

/*
 * Expiry keeps the files visible at any snapshot that stays. The one-walk computation
 * (files-visible-at-any.ts) must equal the definition applied snapshot by snapshot, on
 * random snapshot trees with random additions and removals — including a file removed
 * on two lines, removed twice on one line, added and removed at one snapshot (after a
 * squash), and a parent that is no longer there.
 */

const tree = fc.record({
  parents: fc.array(fc.nat(), { minLength: 1, maxLength: 30 }),
  files: fc.array(fc.nat(), { maxLength: 30 }),
  removals: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 40 }),
  live: fc.array(fc.boolean(), { maxLength: 30 }),
});

test('filesVisibleAtAny equals the definition at every live snapshot, on random trees', () => {
  fc.assert(fc.property(tree, ({ parents, files, removals, live }) => {
    // Snapshot i + 1's parent is a random earlier one (snapshot 0 … i); ids grow down each line.
    const snapshots = [{ id: 1n, parentId: undefined as bigint | undefined }];
    parents.forEach((p, i) => snapshots.push({ id: BigInt(i + 2), parentId: BigInt(1 + (p % (i + 1))) }));
    // a line whose parent row is gone (expired and deleted): it starts there
    snapshots.push({ id: 1000n, parentId: 999n });
    const ids = snapshots.map((s) => s.id);
    const fileRows = files.map((a, i) => ({ fileId: i + 1, addedIn: ids[a % ids.length]! }));
    const removalRows = fileRows.length === 0 ? [] : [...new Map(removals.map(([f, s]) => {
      const r = { fileId: fileRows[f % fileRows.length]!.fileId, snapshotId: ids[s % ids.length]! };
      return [`${r.fileId}/${r.snapshotId}`, r] as const;
    })).values()];
    const liveSet = new Set(ids.filter((_, i) => live[i] === true));

    const parentOf = new Map(snapshots.map((s) => [s.id, s.parentId]));
    const expected = new Set<number>();
    for (const s of liveSet) {
      const anc = new Set<bigint>();
      for (let cur: bigint | undefined = s; cur !== undefined && parentOf.has(cur); cur = parentOf.get(cur)) anc.add(cur);
      for (const f of fileRows) {
        if (anc.has(f.addedIn) && !removalRows.some((r) => r.fileId === f.fileId && anc.has(r.snapshotId))) expected.add(f.fileId);
      }
    }
    assert.deepEqual([...filesVisibleAtAny(snapshots, fileRows, removalRows, liveSet)].sort((a, b) => a - b), [...expected].sort((a, b) => a - b));
  }), { numRuns: 500 });
});

test('a line 100,000 snapshots deep is walked without running out of stack', () => {
  const snapshots = Array.from({ length: 100_000 }, (_, i) => ({ id: BigInt(i + 1), parentId: i === 0 ? undefined : BigInt(i) }));
  const files = [{ fileId: 1, addedIn: 1n }, { fileId: 2, addedIn: 50_000n }];
  const removals = [{ fileId: 1, snapshotId: 60_000n }];
  assert.deepEqual([...filesVisibleAtAny(snapshots, files, removals, new Set([100_000n]))], [2]);
  assert.deepEqual([...filesVisibleAtAny(snapshots, files, removals, new Set([55_000n]))].sort(), [1, 2]);
});
