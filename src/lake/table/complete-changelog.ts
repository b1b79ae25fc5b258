import type { Snapshot } from '../refs/snapshot.js';

/**
 * A keyed table's commit under changelog-producer 'lookup' records in its summary how many of
 * its change rows are +I or -D: keys that appeared or went. Every other change row is half of
 * a -U/+U pair of one key, so a commit recording 0 leaves the table's set of keys as it was.
 */
export const KEYS_ADDED_OR_REMOVED_SUMMARY = 'keys-added-or-removed';

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

/**
 * Whether the commits after `from` up to `to` leave the table's keys as they were, as their
 * summaries say (KEYS_ADDED_OR_REMOVED_SUMMARY): each commit on the lineage an optimize or a
 * lookup-changelog write recording 0. Then the changes cut to the key columns net to nothing,
 * with no change file read. A commit that does not record it (made before it was recorded)
 * answers no. `snapshots` as for changelogCompleteBetween.
 */
export function keysUnchangedBetween(snapshots: readonly Snapshot[], from: bigint, to: bigint): boolean {
  if (!changelogCompleteBetween(snapshots, from, to)) return false;
  const byId = new Map(snapshots.map((s) => [s.id, s]));
  for (let id = to; id !== from;) {
    const s = byId.get(id)!;
    if (s.operation !== 'optimize' && s.summary[KEYS_ADDED_OR_REMOVED_SUMMARY] !== '0') return false;
    id = s.parentId!;
  }
  return true;
}
