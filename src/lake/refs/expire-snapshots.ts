import type { TableMetadata } from '../table/table-metadata.js';
import type { LakeContext } from '../warehouse/lake-context.js';

export async function expireSnapshots(ctx: LakeContext, table: TableMetadata, opts: { olderThanMicros: bigint; retainLast?: number }): Promise<{ expiredSnapshots: number; deletedFiles: number }> {
  void ctx; void table; void opts;
  throw new Error('not implemented');
}
