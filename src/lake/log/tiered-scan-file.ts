import type { FileRecord } from '../catalog/catalog.js';
import type { ScanFile } from '../scan/scan-types.js';
import { keptSnapshots } from './tiered-files.js';

/** What a scan task needs to know of a tiered change file read at the snapshot `isAncestor` describes. */
export function tieredScanFile(f: FileRecord, isAncestor: (id: bigint) => boolean): Pick<ScanFile, 'tiered' | 'keepSnapshots'> {
  if (f.snapshots === undefined) return {};
  const keep = keptSnapshots(f, isAncestor);
  return keep === undefined ? { tiered: true } : { tiered: true, keepSnapshots: keep };
}
