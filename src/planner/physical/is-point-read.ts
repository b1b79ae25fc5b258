import type { LogicalScan } from '../logical/logical-scan.js';

/**
 * Whether a scan selects by equality on every primary-key column (each a constant or
 * a parameter): at most one row per partition, found in one bucket node's few row
 * groups. Such a scan is run where the query runs, not on the scan worker pool.
 */
export function isPointRead(scan: LogicalScan): boolean {
  const keys = scan.table.primaryKey;
  if (keys.length === 0) return false;
  return keys.every((k) => scan.filters.some((f) => f.column === k && f.op === '='));
}
