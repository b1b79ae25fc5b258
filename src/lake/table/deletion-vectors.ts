import type { FileRecord } from '../catalog/catalog.js';

/** The deletion vector of each data file that has one, by the file's id (at most one is visible per file). */
export function deletionVectorsByTarget(files: readonly FileRecord[]): Map<number, FileRecord> {
  const out = new Map<number, FileRecord>();
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    if (f.store === 'dv' && f.dvTarget !== undefined) out.set(f.dvTarget, f);
  }
  return out;
}
