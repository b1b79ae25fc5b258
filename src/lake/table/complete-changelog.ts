import type { Snapshot } from '../refs/snapshot.js';

/**
 * Whether the changes of a keyed table after snapshot `from` up to `to` all carry their
 * before-images, so that their after-images less their before-images are exactly the rows
 * at `to` less the rows at `from` (what an incremental materialized-view refresh needs).
 * `snapshots` must hold every snapshot of the table with an id in (from, to] (expired ones
 * left out). The lineage from `to` back to `from` must be whole, and each commit on it either
 * an optimize (it changes no row) or a write made under changelog-producer 'lookup' (its
 * summary says so, changelog-properties.ts); anything else — an input commit, an overwrite,
 * a rewrite, a lineage an expiry cut — and the answer is no.
 */
export function changelogCompleteBetween(snapshots: readonly Snapshot[], from: bigint, to: bigint): boolean {
  const byId = new Map(snapshots.map((s) => [s.id, s]));
  for (let id = to; id !== from;) {
    const s = byId.get(id);
    if (s === undefined || s.parentId === undefined) return false;
    if (s.operation !== 'optimize' && !(s.operation === 'write' && s.summary['changelog-producer'] === 'lookup')) return false;
    id = s.parentId;
  }
  return true;
}
