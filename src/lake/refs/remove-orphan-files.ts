import type { TableMetadata } from '../table/table-metadata.js';
import type { LakeContext } from '../warehouse/lake-context.js';

export async function removeOrphanFiles(ctx: LakeContext, table: TableMetadata, opts: { olderThanMicros: bigint }): Promise<{ deletedFiles: string[] }> {
  void ctx; void table; void opts;
  throw new Error('not implemented');
}
