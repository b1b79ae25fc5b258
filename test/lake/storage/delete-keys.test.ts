import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deleteKeys } from '../../../src/lake/storage/delete-keys.js';
import type { Storage } from '../../../src/lake/storage/storage.js';

/** A store whose deletes take a while, fail for some keys, and record how many ran at once. */
function slowStore(failing: ReadonlySet<string>) {
  const deleted: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const store = {
    async delete(key: string) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight--;
      if (failing.has(key)) throw new Error(`cannot delete ${key}`);
      deleted.push(key);
    },
  } as unknown as Storage;
  return { store, deleted, maxInFlight: () => maxInFlight };
}

test('deleteKeys deletes every key, several at a time', async () => {
  const keys = Array.from({ length: 100 }, (_, i) => `data/1/${i}.parquet`);
  const s = slowStore(new Set());
  await deleteKeys(s.store, keys);
  assert.deepEqual([...s.deleted].sort(), [...keys].sort());
  assert.ok(s.maxInFlight() > 1 && s.maxInFlight() <= 16, `in flight at once: ${s.maxInFlight()}`);
  await deleteKeys(s.store, []);
});

test('deleteKeys tries every key before throwing the first failure', async () => {
  const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
  const s = slowStore(new Set(['k3', 'k20']));
  await assert.rejects(deleteKeys(s.store, keys), /cannot delete k3/);
  assert.equal(s.deleted.length, 38);
});
