import type { BucketNode } from '../bucket/bucket-node.js';
import type { NewFileRecord } from '../catalog/catalog.js';
import type { MergeEngineSpec } from '../merge/merge-engine.js';
import type { StorageConfig } from '../storage/storage-config.js';
import type { SqlType } from '../../common/sql-type.js';
import type { ColumnMetadata } from '../table/table-metadata.js';

/** A data file a node rewrite reads: plain data, no catalog handle. */
export interface RewriteInputFile {
  readonly fileId: number;
  readonly path: string;
  readonly rowCount: number;
  readonly sizeBytes: number;
  readonly seq: bigint;
  readonly firstOffset: number;
  readonly node: BucketNode;
  /** Change files of an ancestor of the part's node: keep only rows whose key hashes into it. */
  readonly hashFilter?: BucketNode;
  /** A tiered change file: the commits whose rows the rewrite reads (those on its branch); its rows carry `_seq` and `_snapshot`. */
  readonly snapshots?: readonly bigint[];
  /** A base file's deletion vector: row positions a delta fold found superseded. */
  readonly deletedPositions?: readonly number[];
}

/**
 * A large base file a delta fold leaves in place: its rows whose keys the folded changes
 * touch are added to its deletion vector (`deletedPositions`, the one it has).
 */
export interface DeltaKeptFile {
  readonly fileId: number;
  readonly path: string;
  readonly rowCount: number;
  readonly partitionValues: readonly unknown[];
  readonly deletedPositions: readonly number[];
}

/**
 * One current frontier node's inputs: its base files and the change files below the low
 * watermark on its line. Each part is merged on read by itself, because each has its own
 * base seq: an ancestor's change already folded into one sibling's base must not be
 * applied to it again when the siblings are merged.
 */
export interface RewritePart {
  readonly node: BucketNode;
  readonly baseFiles: readonly RewriteInputFile[];
  readonly changeFiles: readonly RewriteInputFile[];
}

/**
 * One node's rewrite, self-contained and structured-clonable so it runs on a worker
 * thread: the storage, the table's columns and key, the inputs, and where the output goes.
 * Planning and the commit stay on the calling thread.
 */
export interface KeyedNodeRewriteTask {
  readonly kind: 'keyed-node';
  readonly tableId: number;
  readonly storage: StorageConfig;
  /** Every column of the table at its current schema. */
  readonly columns: readonly ColumnMetadata[];
  /** Physical names (c<fieldId>) and types of the key columns. */
  readonly keyNames: readonly string[];
  readonly keyTypes: readonly SqlType[];
  readonly partitionKey: string;
  readonly partitionValues: readonly unknown[];
  /** The node the output belongs to: the part's node, or the parent of two merged siblings. */
  readonly node: BucketNode;
  /** One part, or two sibling parts merged into `node`. */
  readonly parts: readonly RewritePart[];
  /** The low watermark: the output's file seq. */
  readonly watermark: bigint;
  /** An output whose encoded size passes this is split into `node`'s children. */
  readonly targetSizeBytes: number;
  /** The inputs already pass the target: split without first encoding the whole node. */
  readonly split: boolean;
  /** The table's merge engine when it is not deduplicate: the fold combines a key's rows by it. */
  readonly mergeEngine?: MergeEngineSpec;
  /**
   * A delta fold (one part, deduplicate tables): the parts' base files are the node's small
   * ones, rewritten with the changes into one base file; these large ones stay, with the
   * rows the changes supersede marked deleted. Never splits.
   */
  readonly delta?: readonly DeltaKeptFile[];
}

/** What one node rewrite wrote: catalog records for the caller's commit, and counters. */
export interface KeyedNodeRewriteResult {
  readonly kind: 'keyed-node';
  /** Base files and empty-node markers, not yet in the catalog. */
  readonly files: readonly NewFileRecord[];
  /** A delta fold's deletion vectors, one per kept file (dvTarget: its file id), at the task's watermark. */
  readonly deletionVectors?: readonly NewFileRecord[];
  /** The output went to the node's two children. */
  readonly split: boolean;
  /** Files, bytes and rows decoded (an ancestor's change file counts whole, though only its node's rows are kept). */
  readonly filesRead: number;
  readonly bytesRead: number;
  readonly rowsRead: number;
  /** Data files written (markers excluded), their bytes and rows. */
  readonly filesOut: number;
  readonly bytesOut: number;
  readonly rowsOut: number;
}
