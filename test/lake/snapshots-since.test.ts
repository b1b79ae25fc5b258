import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { SqliteCatalog } from '../../src/lake/catalog/sqlite/sqlite-catalog.js';
import { snapshotsSince } from '../../src/lake/refs/snapshots-since.js';

/*
 * A commit re-checks what committed since its transaction pinned a snapshot by walking
 * back from the head (snapshots-since.ts) instead of subtracting two whole ancestor
 * lists. On random snapshot trees (commits on branches grown from random snapshots), for
 * every (head, pinned) pair, and with the snapshots up to an earlier head already checked (a retry),
 * the walk must give exactly the set difference, in the same newest-first order.
 */

const TABLE = {
  namespace: 'public', name: 't', columns: [{ fieldId: 1, name: 'k', type: { kind: 'int4' }, nullable: false }],
  primaryKey: ['k'], partitionBy: [], properties: {}, nextFieldId: 2,
} as never;

test('snapshotsSince equals ancestors(head) minus ancestors(pinned) minus the checked ones, on random snapshot trees', () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-snapshots-since-'));
  let n = 0;
  try {
    fc.assert(fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 25 }), fc.nat(), (parents, pick) => {
      const c = new SqliteCatalog(join(dir, `c${n++}.db`));
      try {
        const t = c.createTable(TABLE, 1n, false).table.id;
        // Each new snapshot's parent is a random earlier one: a branch is made there and committed on.
        for (const [i, p] of parents.entries()) {
          const snaps = c.listSnapshots(t).map((s) => s.id);
          const name = `b${i}`;
          c.putRef({ tableId: t, name, kind: 'branch', snapshotId: snaps[p % snaps.length]!, retainMicros: undefined }, { mustNotExist: true });
          c.commit([{ tableId: t, branch: name, operation: 'append', summary: {}, schemaId: 0, addFiles: [], removeFileIds: [] }], undefined, BigInt(10 + i));
        }
        const snaps = c.listSnapshots(t).map((s) => s.id);
        for (const head of snaps) {
          for (const pinned of snaps) {
            const before = new Set(c.ancestors(t, pinned).map(String));
            const since = c.ancestors(t, head).filter((s) => !before.has(String(s)));
            assert.deepEqual(snapshotsSince(c, t, head, pinned), since, `head ${head}, pinned ${pinned}`);
            // A retry: the snapshots since pinned up to an earlier head on the way were checked already.
            const at = pick % (since.length + 1);
            const checked = new Set(since.slice(at).map(String));
            assert.deepEqual(snapshotsSince(c, t, head, pinned, checked), since.slice(0, at), `head ${head}, pinned ${pinned}, checked ${[...checked]}`);
          }
        }
      } finally {
        c.close();
      }
    }), { numRuns: 40 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
