import type { BucketNode } from '../bucket/bucket-node.js';
import type { MergeEngineSpec } from '../merge/merge-engine.js';
import type { StorageConfig } from '../storage/storage-config.js';
import type { ColumnMetadata, TableMetadata } from '../table/table-metadata.js';
import type { SnapshotSelector } from '../refs/snapshot.js';
import type { LakeTransaction } from '../txn/lake-transaction.js';
import type { MergePositions } from './merge-position-memo.js';

/** Values are canonical (src/common/sql-type.ts). */
export interface ScanFilter {
  readonly column: string;
  readonly op: '=' | '<' | '<=' | '>' | '>=' | '<>' | 'isNull' | 'isNotNull' | 'in';
  readonly value?: unknown;
  readonly values?: readonly unknown[];
}

export interface ScanRequest {
  readonly table: TableMetadata;
  readonly at?: SnapshotSelector;
  /** Read inside this transaction: its pinned snapshot plus its own staged writes. */
  readonly txn?: LakeTransaction;
  /**
   * Column names to return, in this order. Besides table columns, an append table
   * accepts ROW_ID_COLUMN (int8, for deleteRows) and a keyed table SEQ_COLUMN.
   */
  readonly projection?: readonly string[];
  readonly filters?: readonly ScanFilter[];
  readonly limit?: number;
  /**
   * Keyed tables: the full keys (values in primary-key order) whose rows the reader needs;
   * rows of other keys may be left out. A hash join's build keys, when they give every
   * primary-key column of the scan on its probe side: the scan reads only the nodes, files
   * and row groups these keys hash into, and looks them up there (key-hash-search.ts).
   */
  readonly keyLookup?: readonly (readonly unknown[])[];
}

/** One data file as a task needs it: plain, structured-cloneable data. */
export interface ScanFile {
  readonly fileId: number;
  readonly path: string;
  readonly store: 'change' | 'base';
  readonly rowCount: number;
  readonly sizeBytes: number;
  readonly seq: bigint;
  readonly firstOffset: number;
  readonly node: BucketNode;
  /**
   * Keep only rows whose key hashes into the task's node: change files of an ancestor node,
   * and every file of a piece of a split merge (split-merge-task.ts).
   */
  readonly filterByHash: boolean;
  /** Only these row groups can hold the rows asked for (full-key point reads, key lookups); absent: all. */
  readonly rowGroups?: readonly number[];
  /**
   * Row positions deleted by deletion vectors (an append table's deletes, a keyed table's
   * delta folds), ascending; in a scan with kept merge positions, also the rows the merge dropped.
   */
  readonly deletedPositions?: readonly number[] | Int32Array;
  /**
   * Tiered change files read at a snapshot that does not descend from every commit they
   * hold: keep only rows whose `_snapshot` is one of these. Absent: every row.
   */
  readonly keepSnapshots?: readonly bigint[];
  /** A tiered change file: its rows carry `_seq` and `_snapshot`. */
  readonly tiered?: boolean;
}

export interface ScanTask {
  readonly tableId: number;
  readonly storage: StorageConfig;
  /** Every column of the table at the read schema. */
  readonly columns: readonly ColumnMetadata[];
  readonly keyColumns: readonly string[];
  readonly projection: readonly string[];
  /** Filters applied exactly by executeScanTask (the plan reported them 'exact'). */
  readonly filters: readonly ScanFilter[];
  readonly partitionKey: string;
  readonly node: BucketNode;
  readonly baseFiles: readonly ScanFile[];
  readonly changeFiles: readonly ScanFile[];
  readonly limit?: number;
  /**
   * A full-key point read's bucket hash, or a key lookup's (ScanRequest.keyLookup) that fall
   * into this task's node: ascending, distinct. Rows of other keys may be left out. A row
   * group the read takes from the row-group cache again is searched by them (key-hash-search.ts)
   * rather than filtered row by row.
   */
  readonly keyHashes?: Uint32Array;
  /**
   * A point read run in the caller's thread: the base row groups it decodes go through
   * the process's row-group cache (row-group-cache.ts). Set by the executor.
   */
  readonly cacheRowGroups?: true;
  /**
   * A whole node's (or piece's) deduplicating merge that a later scan of the same files may
   * repeat, so its decisions may be kept by position (merge-position-memo.ts). Set by the planner.
   */
  readonly memoizeMerge?: true;
  /** These files were planned before and nothing is kept for them yet: this run keeps its merge's positions. */
  readonly keepMergePositions?: true;
  /** The merge's decisions for these files, kept from an earlier scan and found by the planner: no merge runs. */
  readonly mergePositions?: MergePositions;
  /** The table's merge engine when it is not deduplicate (merge-engine.ts): how a key's rows combine. */
  readonly mergeEngine?: MergeEngineSpec;
}

export interface ScanStats {
  readonly partitionsTotal: number;
  readonly partitionsPruned: number;
  readonly filesTotal: number;
  readonly filesPruned: number;
  readonly nodesScanned: number;
  readonly nodesPruned: number;
  readonly changeFiles: number;
  readonly baseFiles: number;
  /** Row groups of the files the tasks read (the writer's cut: 128k rows, or recorded ranges). */
  readonly rowGroupsTotal: number;
  /** Of those, row groups a full-key point read skips by their key-hash ranges. */
  readonly rowGroupsPruned: number;
  /** Of nodesScanned, those whose merge was cut into key-hash pieces, a task each (split-merge-task.ts). */
  readonly nodesSplit?: number;
  /** Tasks that merge change rows, and of those, the ones given kept merge positions (merge-position-memo.ts). */
  readonly merges?: number;
  readonly mergesKept?: number;
  /** Of filesPruned, those only a plain index's value filters ruled out. */
  readonly filesPrunedByIndex?: number;
  /** The plain indexes an equality or IN filter of the scan can use. */
  readonly indexes?: readonly string[];
}

export interface ScanPlan {
  readonly snapshotId: bigint | undefined;
  readonly tasks: readonly ScanTask[];
  /** One entry per request filter. */
  readonly pushdown: readonly ('exact' | 'inexact' | 'unsupported')[];
  readonly stats: ScanStats;
}

/** int8 row id of an append table: (file id << 32) | row position. */
export const ROW_ID_COLUMN = '_row_id';
/** int8 sequence number of the change that produced a keyed row. */
export const SEQ_COLUMN = '_seq';
