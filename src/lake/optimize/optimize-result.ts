import type { BucketNode } from '../bucket/bucket-node.js';
import type { OptimizingSettings } from '../table/optimizing-properties.js';
import type { AppendFilesRewriteResult, AppendFilesRewriteTask } from './append-files-rewrite-task.js';
import type { KeyedNodeRewriteResult, KeyedNodeRewriteTask } from './keyed-node-rewrite-task.js';
import type { ChangeGroupRewriteResult, ChangeGroupRewriteTask } from '../log/change-group-rewrite-task.js';

/**
 * What one optimize process does (Amoro's three kinds, adapted to Floe's bucket tree; the
 * definitions are in docs/design-notes.md, "Self-optimizing"):
 * - minor folds a node's change files into its base, or on a node too big to rewrite for a
 *   few changes, compacts them into one change file;
 * - major also rewrites undersized base files and those with many superseded or deleted rows;
 * - full rewrites every node.
 * Any kind splits a node whose base passed the target size.
 */
export type OptimizeKind = 'minor' | 'major' | 'full';

export interface OptimizeProgress {
  readonly phase: 'plan' | 'node' | 'commit' | 'done';
  readonly partition?: string;
  readonly node?: string;
  readonly nodesDone: number;
  readonly nodesTotal: number;
}

export interface OptimizeOptions {
  /** Branch to optimize; default main. */
  readonly ref?: string;
  /** Default minor. */
  readonly kind?: OptimizeKind;
  /**
   * With settings, only nodes past their triggers are worked (the scheduler's way). Without,
   * every node with work of the kind is (CALL optimize's way).
   */
  readonly triggers?: OptimizingSettings;
  /**
   * Runs one node's rewrite. The self-optimizing service passes one that runs it on its own
   * worker threads; the default runs it on the calling thread.
   */
  readonly runNodeRewrite?: (task: NodeRewriteTask) => Promise<NodeRewriteResult>;
  /** How many node rewrites of this run may be in flight at once; default 1 (one node's data in memory at a time). */
  readonly rewriteConcurrency?: number;
  readonly onProgress?: (p: OptimizeProgress) => void;
  /** Aborting stops before the next node and before the commit; the table is left as it was. */
  readonly signal?: AbortSignal;
}

/** What an optimize process read and wrote. */
export interface RewriteVolume {
  /** Data files read and replaced (change and base), and their bytes and rows. */
  readonly filesIn: number;
  readonly bytesIn: number;
  readonly rowsIn: number;
  /** Data files written, and their bytes and rows. */
  readonly filesOut: number;
  readonly bytesOut: number;
  readonly rowsOut: number;
}

export interface OptimizeResult extends RewriteVolume {
  readonly kind: OptimizeKind;
  /** The snapshot the optimizer committed, or undefined when there was nothing to do. */
  readonly snapshotId: bigint | undefined;
  readonly nodesOptimized: number;
  readonly nodesSplit: number;
  /** Pairs of undersized sibling nodes merged back into their parent (major). */
  readonly nodesMerged: number;
  readonly changeFilesFolded: number;
  /** Change files of big nodes compacted into one per node, their base left alone (minorAction). */
  readonly changeFilesCompacted: number;
  readonly baseFilesWritten: number;
  readonly lowWatermark: bigint;
  /** Nodes skipped because another optimizer committed to them first. */
  readonly conflicts: number;
}

/**
 * One node's rewrite, self-contained and structured-clonable so it can run on a worker
 * thread: the storage to read and write, the inputs, and where the outputs go. The
 * optimizer plans and commits on the calling thread; only this runs elsewhere. A union
 * by `kind`: append tables add theirs, and a big node's change compaction its group rewrite.
 */
export type NodeRewriteTask = KeyedNodeRewriteTask | AppendFilesRewriteTask | ChangeGroupRewriteTask;

export type NodeRewriteResult = KeyedNodeRewriteResult | AppendFilesRewriteResult | ChangeGroupRewriteResult;

/** Per frontier node: what a scan of it merges, and what is waiting to be folded. */
export interface NodeOptimizingMetrics {
  readonly partitionKey: string;
  readonly node: BucketNode;
  /** Change files a scan of this node merges (its line: ancestors, itself, descendants), unfolded. */
  readonly changeFiles: number;
  readonly changeRows: number;
  readonly changeBytes: number;
  /** Of those, files below the low watermark: what a minor may fold now. */
  readonly foldableChangeFiles: number;
  /** Commit time of the oldest unfolded change on the node's line. */
  readonly oldestChangeMicros: bigint | undefined;
  readonly baseFiles: number;
  readonly baseRows: number;
  readonly baseBytes: number;
  /** Of the base rows, those deletion vectors mark superseded (delta folds). */
  readonly deletedRows: number;
}

/** A table's optimizing state at a branch head, for the scheduler and floe_optimizing. */
export interface OptimizingMetrics {
  readonly keyed: boolean;
  readonly pendingChangeFiles: number;
  readonly pendingChangeRows: number;
  readonly pendingChangeBytes: number;
  readonly oldestPendingChangeMicros: bigint | undefined;
  readonly baseFiles: number;
  readonly baseRows: number;
  readonly baseBytes: number;
  /** Base (or append-table data) files under target-size / fragment-ratio. */
  readonly smallFiles: number;
  /** Rows marked deleted by deletion vectors, over all data rows (append tables; 0 for keyed). */
  readonly duplicateRatio: number;
  /** The most change files a scan merges for one node (max over frontier nodes). */
  readonly readAmplification: number;
  readonly nodes: readonly NodeOptimizingMetrics[];
  /**
   * Keyed tables: the smallest seq of a pending change file at or above the low watermark
   * the metrics were read at. Once the watermark passes it, more changes are foldable though
   * no commit moved the head; undefined when every pending change is foldable.
   */
  readonly nextFoldableSeq?: bigint;
}
