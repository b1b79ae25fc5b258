import type { TableMetadata } from '../table/table-metadata.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import type { OptimizeOptions, OptimizeResult } from './optimize-result.js';

export async function optimizeTable(ctx: LakeContext, table: TableMetadata, opts: OptimizeOptions): Promise<OptimizeResult> {
  void ctx; void table; void opts;
  throw new Error('not implemented');
}
