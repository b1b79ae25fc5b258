import type { Catalog, FileRecord } from '../catalog/catalog.js';

/**
 * Which of a tiered file's commits a reader sees (docs/design-notes.md, "Tiering"). A
 * tiered file is visible from its oldest commit's snapshot on, so a read at a snapshot in
 * the middle of its commits, or on a branch created between two of them, sees the file
 * but must keep only the rows of the commits that are its ancestors.
 */

/**
 * Whether a tiered file's commit is seen at `snapshotId`: an ancestor-or-self of it, or a
 * commit expiry squashed out of the lineage (its snapshot row is gone; its rows belong to
 * the child it was merged into, and are taken as seen). The lineage is read once, when
 * first asked. Known gap: a read on a branch that split off before a squashed commit
 * would see that commit's rows; the squash does not record which child it merged into.
 */
export function ancestryOf(catalog: Catalog, tableId: number, snapshotId: bigint): (id: bigint) => boolean {
  // A parent's id is always smaller than its child's (the catalog hands ids out at commit),
  // so the lineage is walked back from the read's snapshot only as far as the oldest id
  // asked about: a tiered file's commits are recent, the table's history may not be.
  const seen = new Set<bigint>();
  let cursor: bigint | undefined = snapshotId;
  const squashed = new Map<bigint, boolean>();
  return (id) => {
    while (cursor !== undefined && cursor >= id) {
      seen.add(cursor);
      cursor = catalog.getSnapshot(tableId, cursor)?.parentId;
    }
    if (seen.has(id)) return true;
    let gone = squashed.get(id);
    if (gone === undefined) squashed.set(id, gone = catalog.getSnapshot(tableId, id) === undefined);
    return gone;
  };
}

/** The commits of a tiered file a read seeing `isAncestor` keeps; undefined: all its rows (or the file is not tiered). */
export function keptSnapshots(f: { readonly snapshots?: readonly bigint[] | undefined }, isAncestor: (id: bigint) => boolean): bigint[] | undefined {
  if (f.snapshots === undefined || f.snapshots.every(isAncestor)) return undefined;
  return f.snapshots.filter(isAncestor);
}

/**
 * The files as read at `snapshotId`: each tiered file's `snapshots` narrowed to the commits
 * that are ancestors of it. Readers of a tiered file keep only rows whose `_snapshot` its
 * (narrowed) record lists.
 */
export function filesReadAt<T extends { readonly snapshots?: readonly bigint[] | undefined }>(
  catalog: Catalog, tableId: number, snapshotId: bigint, files: readonly T[],
): T[] {
  if (files.every((f) => f.snapshots === undefined)) return [...files];
  const isAncestor = ancestryOf(catalog, tableId, snapshotId);
  return files.map((f) => {
    const keep = keptSnapshots(f, isAncestor);
    return keep === undefined ? f : { ...f, snapshots: keep };
  });
}

/**
 * The files holding rows these snapshots committed: those added by them (catalog.filesAddedIn)
 * and tiered files holding some of their commits, each tiered one's `snapshots` narrowed to
 * those commits. A tiered file holding commit S is visible at S (it was made after S from
 * files live at a head descending from S, and its addedIn is its oldest commit); it is
 * found among the table's tiered file rows, where a fold that removed it later does not hide it.
 */
export function filesWithRowsOf(catalog: Catalog, tableId: number, snapshotIds: readonly bigint[]): FileRecord[] {
  const ids = new Set(snapshotIds);
  const out = new Map<number, FileRecord>();
  const narrow = (f: FileRecord): FileRecord => (f.snapshots === undefined ? f : { ...f, snapshots: f.snapshots.filter((s) => ids.has(s)) });
  for (const f of catalog.filesAddedIn(tableId, snapshotIds)) out.set(f.fileId, narrow(f));
  // Tiered files whose oldest commit is not among the ids (filesAddedIn misses them). Read
  // from the tiered files alone: a commit-time insert check asks this at every commit, and
  // the visible files of each snapshot, or every file row of the table, cost it the table's
  // file count (the whole history's past eight snapshots: 0.4 ms a commit at 16 clients).
  for (const f of catalog.tieredFiles(tableId)) {
    if (out.has(f.fileId) || f.snapshots === undefined || !f.snapshots.some((s) => ids.has(s))) continue;
    out.set(f.fileId, narrow(f));
  }
  return [...out.values()];
}
