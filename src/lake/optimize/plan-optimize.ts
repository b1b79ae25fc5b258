import { nodeKey, parentOf } from '../bucket/bucket-node.js';
import type { BucketNode } from '../bucket/bucket-node.js';
import type { FileRecord } from '../catalog/catalog.js';
import { frontierByPartition } from '../table/frontier.js';
import type { FrontierNode } from '../table/frontier.js';
import type { OptimizingSettings } from '../table/optimizing-properties.js';
import type { NodeOptimizingMetrics, OptimizeKind } from './optimize-result.js';
import { computeOptimizingMetrics, onLine } from './optimizing-metrics.js';
import { majorNodeDue, minorAction, splitDue, undersizedSiblingPairs } from './optimizing-triggers.js';
import type { MinorReason } from './optimizing-triggers.js';

/**
 * Why a node is worked: a minor trigger, or what the kind asks for. 'compact': its change
 * files are compacted into one and its base is left alone (minorAction); 'delta': its
 * changes and small base files are folded, its large base files kept (NodeJob.kept); every
 * other reason rewrites the node.
 */
export type NodeJobReason = MinorReason | 'fold' | 'duplicates' | 'split' | 'merge' | 'full' | 'compact' | 'delta';

/** One current frontier node's share of a job: the node and its foldable change files. */
export interface NodeJobPart {
  readonly frontier: FrontierNode;
  /** Change files on the node's line, at or above its base seq and below the low watermark. */
  readonly changes: readonly FileRecord[];
}

/** One node rewrite of a plan. */
export interface NodeJob {
  readonly partitionKey: string;
  readonly partitionValues: readonly unknown[];
  /** Where the output goes: the part's node, or the parent of two merged siblings (before any split). */
  readonly node: BucketNode;
  /** One part, or two sibling parts merged into `node`. */
  readonly parts: readonly NodeJobPart[];
  /** The inputs already pass the target size. */
  readonly split: boolean;
  readonly reason: NodeJobReason;
  /** A delta job's base files that stay (not under target-size / fragment-ratio); the node's others are rewritten. */
  readonly kept?: readonly FileRecord[];
}

export interface OptimizePlanInput {
  /** Visible files at the branch head, read after the watermark. */
  readonly files: readonly FileRecord[];
  readonly kind: OptimizeKind;
  readonly watermark: bigint;
  /** The table's settings: target size and fragment ratio; the triggers when `useTriggers`. */
  readonly settings: OptimizingSettings;
  /** Only nodes past their triggers (the scheduler's way); otherwise every node with work of the kind. */
  readonly useTriggers: boolean;
  readonly nowMicros: bigint;
  readonly commitMicros: (snapshotId: bigint) => bigint | undefined;
}

export interface OptimizePlan {
  readonly frontiers: ReadonlyMap<string, readonly FrontierNode[]>;
  readonly jobs: readonly NodeJob[];
}

/**
 * Which nodes a run of a kind rewrites (pure: files, watermark and clock in, jobs out).
 * - minor: folds nodes' foldable changes; with triggers only nodes minorAction names, and
 *   those it finds too big to rewrite get a 'delta' job (deletion vectors; see NodeJob.kept)
 *   or a 'compact' one (their change files made one).
 * - major: minor, plus nodes whose changes supersede many base rows, plus sibling pairs
 *   too small to stay apart, merged back into their parent.
 * - full: every node with data, and the merges.
 * Any kind splits a node whose base passed the target size. The triggers are the ones
 * the scheduler decides with (optimizing-triggers.ts), so a table it finds due plans work.
 */
export function planOptimize(input: OptimizePlanInput): OptimizePlan {
  const { files, kind, watermark, settings } = input;
  const frontiers = frontierByPartition(files);
  const metrics = computeOptimizingMetrics({ files, keyed: true, watermark, settings, commitMicros: input.commitMicros });
  const metricsOf = new Map(metrics.nodes.map((n) => [`${n.partitionKey}\u0000${nodeKey(n.node)}`, n]));
  const partitionValues = new Map<string, readonly unknown[]>();
  const changesOf = new Map<string, FileRecord[]>();
  for (const f of files) {
    if (!partitionValues.has(f.partitionKey)) partitionValues.set(f.partitionKey, f.partitionValues);
    if (f.store !== 'change' || f.seq >= watermark) continue;
    let list = changesOf.get(f.partitionKey);
    if (list === undefined) changesOf.set(f.partitionKey, list = []);
    list.push(f);
  }
  // A tiered file holds several transactions' rows and is folded whole (its seq is the
  // greatest): one at or above W may hold rows below it, which a fold to base seq W would
  // leave behind under newer folded rows (a folded delete would let an older row back).
  // Tiering writes only rows below its own W, so this holds back a node only when a
  // tiering that read a newer W swapped in between this run's W and its head.
  const tieredAbove = files.filter((f) => f.store === 'change' && f.snapshots !== undefined && f.seq >= watermark);
  const heldBack = (pk: string, fn: FrontierNode): boolean =>
    tieredAbove.some((f) => f.partitionKey === pk && f.seq >= fn.baseSeq && onLine(f, fn.node));
  const partOf = (pk: string, fn: FrontierNode): NodeJobPart => ({
    frontier: fn, changes: (changesOf.get(pk) ?? []).filter((f) => f.seq >= fn.baseSeq && onLine(f, fn.node)),
  });
  const inputBytes = (parts: readonly NodeJobPart[]): number =>
    parts.reduce((n, p) => n + p.frontier.baseFiles.reduce((m, f) => m + f.sizeBytes, 0) + p.changes.reduce((m, f) => m + f.sizeBytes, 0), 0);

  const jobs: NodeJob[] = [];
  const taken = new Set<string>();
  if (kind !== 'minor') {
    for (const [a, b] of undersizedSiblingPairs(metrics.nodes, settings)) {
      const fa = frontierOf(frontiers, a);
      const fb = frontierOf(frontiers, b);
      // The parent's base seq is W: every change below it on both lines must fold now.
      if (watermark < fa.baseSeq || watermark < fb.baseSeq) continue;
      if (heldBack(a.partitionKey, fa) || heldBack(b.partitionKey, fb)) continue;
      const parts = [partOf(a.partitionKey, fa), partOf(b.partitionKey, fb)];
      jobs.push({
        partitionKey: a.partitionKey, partitionValues: partitionValues.get(a.partitionKey) ?? [], node: parentOf(a.node)!,
        parts, split: inputBytes(parts) > settings.targetSize, reason: 'merge',
      });
      taken.add(`${a.partitionKey}\u0000${nodeKey(a.node)}`).add(`${b.partitionKey}\u0000${nodeKey(b.node)}`);
    }
  }
  for (const [pk, nodes] of frontiers) {
    for (const fn of nodes) {
      const k = `${pk}\u0000${nodeKey(fn.node)}`;
      if (taken.has(k) || heldBack(pk, fn)) continue;
      const m = metricsOf.get(k)!;
      const part = partOf(pk, fn);
      const reason = nodeReason(input, m, part);
      if (reason === undefined) continue;
      // A delta fold moves the node's base seq but removes no base file a tiering of an
      // ancestor's change files requires unchanged (tiering-groups.ts), and such a file
      // on its line could straddle the new seq: with one pending, the node is rewritten.
      // They exist only for a while after a split.
      if (reason === 'delta' && part.changes.some((f) => f.nodeMask < fn.node.mask)) {
        jobs.push({
          partitionKey: pk, partitionValues: partitionValues.get(pk) ?? [], node: fn.node, parts: [part],
          split: inputBytes([part]) > settings.targetSize && fn.node.mask < 0x7fffffff, reason: 'fold',
        });
        continue;
      }
      if (reason === 'delta') {
        const large = settings.targetSize / settings.fragmentRatio;
        const kept = fn.baseFiles.filter((f) => f.path !== '' && f.sizeBytes >= large);
        jobs.push({ partitionKey: pk, partitionValues: partitionValues.get(pk) ?? [], node: fn.node, parts: [part], split: false, reason, kept });
        continue;
      }
      jobs.push({
        partitionKey: pk, partitionValues: partitionValues.get(pk) ?? [], node: fn.node, parts: [part],
        split: inputBytes([part]) > settings.targetSize && fn.node.mask < 0x7fffffff, reason,
      });
    }
  }
  return { frontiers, jobs };
}

function nodeReason(input: OptimizePlanInput, m: NodeOptimizingMetrics, part: NodeJobPart): NodeJobReason | undefined {
  const { settings, kind } = input;
  if (kind === 'full') return m.baseRows > 0 || part.changes.length > 0 ? 'full' : undefined;
  if (input.useTriggers) {
    if (kind === 'major' && majorNodeDue(m, settings)) return 'duplicates';
    const minor = minorAction(m, settings, input.nowMicros);
    if (minor?.action === 'fold') return minor.reason;
    if (minor?.action === 'compact' || minor?.action === 'delta') return splitDue(m, settings) ? 'split' : minor.action;
  } else if (part.changes.length > 0) {
    return 'fold';
  }
  return splitDue(m, settings) ? 'split' : undefined;
}

function frontierOf(frontiers: ReadonlyMap<string, readonly FrontierNode[]>, n: NodeOptimizingMetrics): FrontierNode {
  return frontiers.get(n.partitionKey)!.find((f) => f.node.mask === n.node.mask && f.node.index === n.node.index)!;
}
