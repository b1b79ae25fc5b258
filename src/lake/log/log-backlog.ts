import type { Catalog } from '../catalog/catalog.js';
import { isLogPath } from './log-locator.js';

/** The log files of a table not tiered yet, at the heads of all its branches: what the tiering service decides by. */
export interface LogBacklog {
  readonly files: number;
  readonly bytes: number;
  /** Commit time of the oldest of them; undefined when there are none. */
  readonly oldestMicros: bigint | undefined;
}

export function logBacklog(catalog: Catalog, tableId: number): LogBacklog {
  const seen = new Set<number>();
  let bytes = 0;
  let oldest: bigint | undefined;
  for (const ref of catalog.listRefs(tableId)) {
    if (ref.kind !== 'branch') continue;
    for (const f of catalog.visibleFiles(tableId, ref.snapshotId)) {
      if (f.store !== 'change' || !isLogPath(f.path) || seen.has(f.fileId)) continue;
      seen.add(f.fileId);
      bytes += f.sizeBytes;
      const at = catalog.getSnapshot(tableId, f.addedIn)?.committedAtMicros;
      if (at !== undefined && (oldest === undefined || at < oldest)) oldest = at;
    }
  }
  return { files: seen.size, bytes, oldestMicros: oldest };
}
