import { deleteKeys } from '../storage/delete-keys.js';
import { tableDataPrefix } from '../table/table-layout.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { LakeContext } from '../warehouse/lake-context.js';

/**
 * Deletes files under the table's data directory that no catalog row names and that
 * are older than the cut-off. The grace period protects files a live transaction has
 * staged but not yet committed (they are durable before the catalog knows them).
 */
export async function removeOrphanFiles(ctx: LakeContext, table: TableMetadata, opts: { olderThanMicros: bigint }): Promise<{ deletedFiles: string[] }> {
  // Order matters. Open transactions first: one may commit files staged since it began,
  // whatever the grace period. Then list, then read references: a transaction that
  // commits after the first step has its files referenced by the last one.
  let cutoff = opts.olderThanMicros;
  for (const t of ctx.catalog.listTxns()) if (t.startedMicros < cutoff) cutoff = t.startedMicros;
  const listed = await ctx.storage.list(tableDataPrefix(table.id));
  const referenced = ctx.catalog.allFilePaths(table.id);
  const deletedFiles = listed.filter((f) => !referenced.has(f.key) && f.modifiedMicros < cutoff).map((f) => f.key);
  await deleteKeys(ctx.storage, deletedFiles);
  return { deletedFiles };
}
