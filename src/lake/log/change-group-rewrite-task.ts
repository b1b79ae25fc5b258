import type { NewFileRecord } from '../catalog/catalog.js';
import type { FilePlacement } from '../format/data-file-writer.js';
import type { StorageConfig } from '../storage/storage-config.js';
import type { SqlType } from '../../common/sql-type.js';
import type { ColumnMetadata } from '../table/table-metadata.js';

/** A change file a group rewrite reads: plain data, no catalog handle. */
export interface ChangeGroupInput {
  readonly path: string;
  /** The file's transaction seq (a log or Parquet change file: every row's). */
  readonly seq: bigint;
  /** The commit that added it (a log or Parquet change file: every row's `_snapshot`). */
  readonly addedIn: bigint;
  /** A log or Parquet change file: its first row's offset in its transaction (the rest follow). */
  readonly firstOffset: number;
  /** A tiered Parquet file: its rows carry their own `_seq`, `_snapshot` and `_offset`. */
  readonly tiered: boolean;
}

/**
 * One (partition, node) group of change files rewritten as one tiered change file: tiering's
 * log files, or the optimizer's compaction of a big node's changes. Self-contained and
 * structured-clonable, so it runs on an optimizer worker thread; the catalog swap stays on
 * the calling thread. One of NodeRewriteTask's kinds.
 */
export interface ChangeGroupRewriteTask {
  readonly kind: 'change-group';
  readonly storage: StorageConfig;
  readonly tableId: number;
  /** Every column of the table at its current schema. */
  readonly columns: readonly ColumnMetadata[];
  /** The key's column names (change rows of a delete carry only these: the rest are nullable). */
  readonly primaryKey: readonly string[];
  /** Physical names (c<fieldId>) and types of the key columns, for the file's key bitmap. */
  readonly keyNames: readonly string[];
  readonly keyTypes: readonly SqlType[];
  readonly inputs: readonly ChangeGroupInput[];
  readonly placement: FilePlacement;
  /** The output's file seq: the newest input's. */
  readonly seq: bigint;
}

export interface ChangeGroupRewriteResult {
  readonly kind: 'change-group';
  /** The stored output, durable and not yet in the catalog (its `snapshots` are the caller's to set). */
  readonly file: NewFileRecord;
}
