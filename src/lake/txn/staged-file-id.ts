/**
 * A file a transaction has staged has no catalog id yet. Reads inside the transaction,
 * and the row ids they hand out, name the staged file at index i as -1 - i. A deletion
 * vector the commit writes for such a file keeps that name as its target; the catalog
 * resolves it to the id the same commit gives the file, because a commit request lists
 * the transaction's staged files first and in order (CommitRequest.addFiles).
 */
export function stagedFileId(index: number): number {
  return -1 - index;
}

/** The staged-file index a file id names, or undefined for a committed file. */
export function stagedFileIndex(fileId: number): number | undefined {
  return fileId < 0 ? -1 - fileId : undefined;
}
