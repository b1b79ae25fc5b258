import type { OptimizeKind, SchedulingPolicy } from '../../lake/index.js';

/** A table that is due and waits for one of its group's threads. */
export interface PendingTable {
  readonly tableId: number;
  readonly kind: OptimizeKind;
  /** Some node reached `self-optimizing.read-amplification.max`: the user's speed target is at stake. */
  readonly readAmplificationBreach: boolean;
  /** Its worst node's change files over `self-optimizing.read-amplification.max` (1: at the target). */
  readonly readAmplificationRatio: number;
  readonly pendingChangeFiles: number;
  /** The table's latest optimize of any kind, or undefined when never. */
  readonly lastOptimizedMicros: bigint | undefined;
  readonly quota: number;
  /** Its share of the group's thread time over the last hour. */
  readonly occupation: number;
}

/**
 * The order in which a group serves its pending tables, best first.
 * - Both policies serve read-amplification breaches first, the furthest over its target
 *   first: the speed target beats cost, and when several big tables breach at once the one
 *   its scans suffer most in is served before its turn would come.
 * - `quota`: the lowest occupation/quota first, so a table at or over its quota (ratio ≥ 1)
 *   waits behind every table under it and runs only when nothing else wants the threads.
 * - `balanced`: the table that has waited longest since its last optimize first (never
 *   optimized counts as longest); ties go to the most pending change files.
 */
export function orderPendingTables(pending: readonly PendingTable[], policy: SchedulingPolicy): PendingTable[] {
  return [...pending].sort((a, b) => {
    if (a.readAmplificationBreach !== b.readAmplificationBreach) return a.readAmplificationBreach ? -1 : 1;
    if (a.readAmplificationBreach && a.readAmplificationRatio !== b.readAmplificationRatio) return b.readAmplificationRatio - a.readAmplificationRatio;
    if (policy === 'quota') {
      const d = a.occupation / a.quota - b.occupation / b.quota;
      if (d !== 0) return d;
    } else {
      const la = a.lastOptimizedMicros ?? -1n;
      const lb = b.lastOptimizedMicros ?? -1n;
      if (la !== lb) return la < lb ? -1 : 1;
    }
    if (a.pendingChangeFiles !== b.pendingChangeFiles) return b.pendingChangeFiles - a.pendingChangeFiles;
    return a.tableId - b.tableId;
  });
}
