import { nodeKey, parentOf } from '../bucket/bucket-node.js';
import type { OptimizingSettings } from '../table/optimizing-properties.js';
import type { NodeOptimizingMetrics, OptimizeKind, OptimizingMetrics } from './optimize-result.js';

/** Why a node's change files should be folded now. */
export type MinorReason = 'read-amplification' | 'file-count' | 'bytes' | 'interval';

/** When the table was last optimized by each kind (undefined: never). */
export interface LastOptimized {
  readonly minorMicros?: bigint | undefined;
  readonly majorMicros?: bigint | undefined;
  readonly fullMicros?: bigint | undefined;
}

/**
 * The rule the scheduler (is a table due?) and the optimizer (which nodes?) share, so they
 * can never disagree. Only foldable changes count: a node whose changes all sit at or
 * above the low watermark cannot be helped by folding, and reporting it due would spin.
 */
export function minorReason(node: NodeOptimizingMetrics, s: OptimizingSettings, nowMicros: bigint): MinorReason | undefined {
  if (node.foldableChangeFiles === 0) return undefined;
  // At the target, not past it: more commits land while the fold runs.
  if (node.changeFiles >= s.readAmplificationMax) return 'read-amplification';
  if (node.changeFiles >= s.minorFileCount) return 'file-count';
  if (node.changeBytes >= s.minorBytes) return 'bytes';
  if (node.oldestChangeMicros !== undefined && nowMicros - node.oldestChangeMicros >= BigInt(s.minorIntervalMs) * 1000n) return 'interval';
  return undefined;
}

/**
 * What a minor does to a node: fold its changes into its base, delta-fold them (into a
 * small base file beside its large ones, whose superseded rows deletion vectors mark), or
 * compact them into one change file.
 */
export interface MinorAction {
  readonly reason: MinorReason;
  readonly action: 'fold' | 'delta' | 'compact';
}

/**
 * A node whose base is not a fragment (target / fragment-ratio, the major floor) is too big
 * to rewrite for a few new change files: folding order_line's 50 MB node every dozen
 * commits cost seconds each, and its change files piled past the read-amplification target
 * while it ran (CH-benCHmark, W=4). Its minor compacts the change files into one tiered
 * change file instead (Amoro's minor likewise leaves base data alone); its base is
 * rewritten by major's duplicates trigger, or when the changes pass the minor bytes trigger.
 * Its changes are readable at once either way, so the interval trigger does not apply to
 * it: without new files a compaction has nothing to do.
 */
export function minorAction(node: NodeOptimizingMetrics, s: OptimizingSettings, nowMicros: bigint): MinorAction | undefined {
  const reason = minorReason(node, s, nowMicros);
  if (reason === undefined) return undefined;
  if (!compactsChanges(node, s)) return { reason, action: 'fold' };
  // A delta fold costs the changes and the large files' key columns (a few hundred ms for
  // order_line's 1.2M rows), not a rewrite, and bounds the change rows scans merge; a
  // compaction costs only the new files and bounds how many files they open. So the
  // count triggers compact, and the interval and bytes triggers delta-fold: pending rows
  // stay under an interval's worth of writes.
  if (s.deletionVectors && (reason === 'interval' || reason === 'bytes')) return { reason, action: 'delta' };
  // Changes this big cost scans more than a rewrite of the base costs once.
  if (node.changeBytes >= s.minorBytes) return { reason: 'bytes', action: s.deletionVectors ? 'delta' : 'fold' };
  if (reason === 'interval' || node.foldableChangeFiles < 2) return undefined;
  return { reason, action: 'compact' };
}

/** A node whose minor compacts its change files rather than folding them (minorAction). */
export function compactsChanges(node: NodeOptimizingMetrics, s: Pick<OptimizingSettings, 'targetSize' | 'fragmentRatio'>): boolean {
  return node.baseBytes >= s.targetSize / s.fragmentRatio;
}

/**
 * A keyed node whose pending changes and deletion vectors supersede a large share of its
 * base rows. Only nodes that are not fragments (base under target / fragment-ratio):
 * rewriting a small node saves scans little, and without this floor a hot table of a few
 * rows (TPC-C's district) is folded after nearly every commit, a snapshot and a thread
 * slot each. Minor's triggers still bound a small node's changes.
 */
export function majorNodeDue(node: NodeOptimizingMetrics, s: Pick<OptimizingSettings, 'majorDuplicateRatio' | 'targetSize' | 'fragmentRatio'>): boolean {
  if (!compactsChanges(node, s)) return false;
  if (node.foldableChangeFiles === 0 && node.deletedRows === 0) return false;
  return node.baseRows > 0 && node.changeRows + node.deletedRows >= s.majorDuplicateRatio * node.baseRows;
}

/** A node whose base passed the target size: any kind splits it into its children. */
export function splitDue(node: NodeOptimizingMetrics, s: Pick<OptimizingSettings, 'targetSize'>): boolean {
  return node.baseBytes > s.targetSize && node.node.mask < 0x7fffffff;
}

/**
 * Sibling frontier nodes that a major merges back into their parent (the inverse of a
 * split): each base under target / fragment-ratio and both together under target / 2, so
 * the merged node is far from splitting again. Keyed tables only.
 */
export function undersizedSiblingPairs<N extends NodeOptimizingMetrics>(
  nodes: readonly N[], s: Pick<OptimizingSettings, 'targetSize' | 'fragmentRatio'>,
): [N, N][] {
  const small = s.targetSize / s.fragmentRatio;
  const byParent = new Map<string, N[]>();
  for (const n of nodes) {
    const parent = parentOf(n.node);
    if (parent === undefined) continue;
    const k = `${n.partitionKey}\u0000${nodeKey(parent)}`;
    let list = byParent.get(k);
    if (list === undefined) byParent.set(k, list = []);
    list.push(n);
  }
  const pairs: [N, N][] = [];
  for (const list of byParent.values()) {
    // the frontier is a cover: two nodes under one parent with a mask one deeper are its children
    if (list.length !== 2 || list[0]!.node.mask !== list[1]!.node.mask) continue;
    const [a, b] = list as [N, N];
    if (a.baseBytes < small && b.baseBytes < small && a.baseBytes + b.baseBytes < s.targetSize / 2) pairs.push(a.node.index < b.node.index ? [a, b] : [b, a]);
  }
  return pairs;
}

/**
 * The kind of optimizing a table needs now, or undefined. Full wins over major over
 * minor: each does the work of the ones below it.
 */
export function dueOptimizingKind(m: OptimizingMetrics, s: OptimizingSettings, last: LastOptimized, nowMicros: bigint): OptimizeKind | undefined {
  const hasData = m.baseFiles + m.pendingChangeFiles > 0;
  if (s.fullIntervalMs !== undefined && hasData) {
    const since = last.fullMicros;
    if (since === undefined || nowMicros - since >= BigInt(s.fullIntervalMs) * 1000n) return 'full';
  }
  if (m.keyed) {
    if (m.nodes.some((n) => majorNodeDue(n, s)) || undersizedSiblingPairs(m.nodes, s).length > 0) return 'major';
    if (m.nodes.some((n) => minorAction(n, s, nowMicros) !== undefined || splitDue(n, s))) return 'minor';
    return undefined;
  }
  // Append tables: small files are Amoro's fragment files (minor), deleted rows its duplicates (major).
  if (m.duplicateRatio >= s.majorDuplicateRatio) return 'major';
  if (m.smallFiles >= s.minorFileCount || appendLogDue(m.oldestPendingChangeMicros, s, nowMicros)) return 'minor';
  return undefined;
}

/**
 * An append table whose oldest log-located file waited past the minor interval: minor moves
 * it into Parquet however few small files there are. Without this a quiet table's last few
 * commits would stay in the log, and hold every later segment of its writer with them
 * (segments are released oldest first).
 */
export function appendLogDue(oldestLogMicros: bigint | undefined, s: Pick<OptimizingSettings, 'minorIntervalMs'>, nowMicros: bigint): boolean {
  return oldestLogMicros !== undefined && nowMicros - oldestLogMicros >= BigInt(s.minorIntervalMs) * 1000n;
}
