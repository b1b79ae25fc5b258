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

/** A keyed node whose pending changes supersede a large share of its base rows. */
export function majorNodeDue(node: NodeOptimizingMetrics, s: OptimizingSettings): boolean {
  return node.foldableChangeFiles > 0 && node.baseRows > 0 && node.changeRows >= s.majorDuplicateRatio * node.baseRows;
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
    if (m.nodes.some((n) => majorNodeDue(n, s))) return 'major';
    if (m.nodes.some((n) => minorReason(n, s, nowMicros) !== undefined)) return 'minor';
    return undefined;
  }
  // Append tables: small files are Amoro's fragment files (minor), deleted rows its duplicates (major).
  if (m.duplicateRatio >= s.majorDuplicateRatio) return 'major';
  if (m.smallFiles >= s.minorFileCount) return 'minor';
  return undefined;
}
