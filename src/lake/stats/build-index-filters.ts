import type { FileColumnStats } from '../catalog/catalog.js';
import { readDataFile } from '../format/data-file-reader.js';
import { physicalName } from '../table/table-layout.js';
import type { TableMetadata } from '../table/table-metadata.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import { bloomOfBatches, bloomSupported } from './value-bloom.js';

/** Files whose new stats are written to the catalog together (and progress is logged). */
const FILES_PER_BATCH = 32;

/**
 * CREATE INDEX over the files already there: reads each data file's indexed columns and
 * adds their value filters to the file's catalog stats (files written from now on get
 * theirs when written). A file that stays without one (written by a transaction that
 * began before the index, or a column the file predates) is simply never skipped.
 * Returns the number of files given a filter.
 */
export async function buildIndexFilters(ctx: LakeContext, table: TableMetadata, columnNames: readonly string[], indexName: string): Promise<number> {
  const columns = table.columns.filter((c) => columnNames.includes(c.name) && bloomSupported(c.type));
  if (columns.length === 0) return 0;
  const missing = (stats: Readonly<Record<string, FileColumnStats>>) => columns.some((c) => {
    const s = stats[physicalName(c.fieldId)];
    return s !== undefined && s.bloom === undefined;
  });
  const files = ctx.catalog.allFiles(table.id).filter((f) => f.store !== 'dv' && f.path !== '' && missing(f.stats));
  let pending: { fileId: number; stats: Record<string, FileColumnStats> }[] = [];
  let done = 0;
  const flush = (): void => {
    ctx.catalog.setFileStats(table.id, pending);
    done += pending.length;
    pending = [];
    if (files.length > FILES_PER_BATCH) ctx.logger?.info({ table: `${table.namespace}.${table.name}`, index: indexName, files: done, of: files.length }, 'building index filters');
  };
  for (const f of files) {
    const batches = await readDataFile(ctx.storage, f.path, columns);
    const stats: Record<string, FileColumnStats> = { ...f.stats };
    for (const c of columns) {
      const name = physicalName(c.fieldId);
      const current = stats[name];
      const bloom = current === undefined ? undefined : bloomOfBatches(batches, name, c.type);
      if (current !== undefined && bloom !== undefined) stats[name] = { ...current, bloom };
    }
    pending.push({ fileId: f.fileId, stats });
    if (pending.length >= FILES_PER_BATCH) flush();
  }
  if (pending.length > 0) flush();
  return done;
}
