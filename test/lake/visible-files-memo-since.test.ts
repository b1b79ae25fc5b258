import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FileRecord } from '../../src/lake/catalog/catalog.js';
import { VisibleFilesMemo, type VisibleFilesSource } from '../../src/lake/catalog/visible-files-memo.js';

/*
 * A reader that comes back after more commits than the memo walks one by one gets its set
 * from the newest kept set on its line and one read of the commits between (`since`), not
 * from the query over the whole history; off the line it still gets the query.
 */

/** A source over snapshots with the given parents, snapshot i adding file i and removing `removals`, its reads counted. */
function lineSource(parents: Map<bigint, bigint | undefined>, removals: Map<bigint, number[]> = new Map()) {
  const calls = { since: 0, query: 0, steps: 0 };
  const file = (id: bigint): FileRecord => ({ fileId: Number(id), addedIn: id, path: `f${id}` }) as unknown as FileRecord;
  const lineOf = (id: bigint): bigint[] => { const out: bigint[] = []; for (let c: bigint | undefined = id; c !== undefined; c = parents.get(c)) out.push(c); return out; };
  const visible = (ids: bigint[]): FileRecord[] => {
    const gone = new Set(ids.flatMap((s) => removals.get(s) ?? []));
    return [...ids].reverse().map(file).filter((f) => !gone.has(f.fileId));
  };
  const source: VisibleFilesSource = {
    fileEpoch: () => 0,
    parentOf: (_t, id) => { calls.steps++; return parents.has(id) ? parents.get(id) : null; },
    addedIn: (_t, id) => [file(id)],
    removedIn: (_t, id) => removals.get(id) ?? [],
    since: (_t, id, ancestor) => {
      calls.since++;
      const line = lineOf(id);
      const at = line.indexOf(ancestor);
      if (at < 0) return undefined;
      const between = line.slice(0, at);
      return { added: [...between].reverse().map(file), removed: between.flatMap((s) => removals.get(s) ?? []) };
    },
    query: (_t, id) => { calls.query++; return visible(lineOf(id)); },
    swaps: () => [],
  };
  return { source, calls, expected: (id: bigint) => visible(lineOf(id)).map((f) => f.path) };
}

test('a head read 100 commits after the last read is derived in one read of the commits between', () => {
  const parents = new Map<bigint, bigint | undefined>([[1n, undefined]]);
  for (let i = 2n; i <= 200n; i++) parents.set(i, i - 1n);
  // Snapshot 120 removes files 3 and 60.
  const { source, calls, expected } = lineSource(parents, new Map([[120n, [3, 60]]]));
  const memo = new VisibleFilesMemo(source);
  assert.deepEqual(memo.visibleFiles(0, 100n).map((f) => f.path), expected(100n));
  assert.equal(calls.query, 1, 'the first read has no kept set to start from');
  assert.deepEqual(memo.visibleFiles(0, 200n).map((f) => f.path), expected(200n));
  assert.equal(calls.query, 1, 'no query for the second read');
  assert.equal(calls.since, 1);
  // A few commits on: walked commit by commit, as before.
  parents.set(201n, 200n);
  assert.deepEqual(memo.visibleFiles(0, 201n).map((f) => f.path), expected(201n));
  assert.deepEqual(calls, { ...calls, query: 1, since: 1 });
});

test('a kept set off the reader\'s line (a rollback since) is not used: the query answers', () => {
  const parents = new Map<bigint, bigint | undefined>([[1n, undefined]]);
  for (let i = 2n; i <= 100n; i++) parents.set(i, i - 1n);
  // Rolled back to 10, then 101..200 committed on top of it.
  parents.set(101n, 10n);
  for (let i = 102n; i <= 200n; i++) parents.set(i, i - 1n);
  const { source, calls, expected } = lineSource(parents);
  const memo = new VisibleFilesMemo(source);
  memo.visibleFiles(0, 100n);
  assert.deepEqual(memo.visibleFiles(0, 200n).map((f) => f.path), expected(200n));
  assert.equal(calls.since, 1, 'the kept set at 100 was tried');
  assert.equal(calls.query, 2, 'and the query answered');
});
