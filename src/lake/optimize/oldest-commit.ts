/**
 * The commit time of the oldest of `snapshotIds`, all on one branch's lineage (the
 * snapshots that added files visible at one head). Commit times increase along a
 * branch, so the least id is the oldest commit: ids are looked up from the least until
 * one's time is known, one lookup as a rule instead of one per file.
 */
export function oldestCommitMicros(snapshotIds: readonly bigint[], commitMicros: (snapshotId: bigint) => bigint | undefined): bigint | undefined {
  const ids = [...new Set(snapshotIds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const id of ids) {
    const at = commitMicros(id);
    if (at !== undefined) return at;
  }
  return undefined;
}
