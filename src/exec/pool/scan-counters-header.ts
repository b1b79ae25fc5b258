import type { ScanTaskCounters } from '../../lake/index.js';
import { COUNTERS_BYTES } from './scan-pool.js';

/*
 * A worker's task counters ride in front of its packed batches (only a top-level moved
 * value is transferred, so they cannot travel beside them): five float64s, little-endian.
 */

export function writeCountersHeader(out: Uint8Array, counters: ScanTaskCounters): void {
  const header = new DataView(out.buffer, out.byteOffset, COUNTERS_BYTES);
  header.setFloat64(0, counters.rowGroupsRead, true);
  header.setFloat64(8, counters.rowGroupsSkippedByStats, true);
  header.setFloat64(16, counters.merges ?? 0, true);
  header.setFloat64(24, counters.mergesKept ?? 0, true);
  header.setFloat64(32, counters.rowGroupCacheHits ?? 0, true);
}

/** Adds the header's counts to `into`. */
export function readCountersHeader(result: Uint8Array, into: ScanTaskCounters): void {
  const header = new DataView(result.buffer, result.byteOffset, COUNTERS_BYTES);
  const merges = header.getFloat64(16, true);
  const mergesKept = header.getFloat64(24, true);
  into.rowGroupsRead += header.getFloat64(0, true);
  into.rowGroupsSkippedByStats += header.getFloat64(8, true);
  if (merges > 0) into.merges = (into.merges ?? 0) + merges;
  if (mergesKept > 0) into.mergesKept = (into.mergesKept ?? 0) + mergesKept;
  const cacheHits = header.getFloat64(32, true);
  if (cacheHits > 0) into.rowGroupCacheHits = (into.rowGroupCacheHits ?? 0) + cacheHits;
}
