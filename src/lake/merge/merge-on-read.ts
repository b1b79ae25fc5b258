import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import type { BucketNode } from '../bucket/bucket-node.js';

export interface ChangeInput {
  readonly batch: RecordBatch;
  readonly seq: bigint;
  readonly firstOffset: number;
  /** Keep only rows whose key hashes into this node (for change files of an ancestor node). */
  readonly hashFilter?: BucketNode;
}

export interface MergeOptions {
  readonly base: readonly RecordBatch[];
  readonly changes: readonly ChangeInput[];
  readonly keyColumns: readonly string[];
  readonly keyTypes: readonly SqlType[];
  readonly hashFilter?: { readonly node: BucketNode };
}

export function mergeOnRead(opts: MergeOptions): RecordBatch[] {
  void opts;
  throw new Error('not implemented');
}
