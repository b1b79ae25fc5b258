import type { RecordBatch } from 'apache-arrow';
import { decodeDataFile } from '../format/data-file-reader.js';
import type { SelectedBatch } from '../arrow/selected-batch.js';
import type { RowPicker } from '../format/data-file-reader.js';
import type { DecodeForm } from '../format/native-parquet-reader.js';
import type { ParquetSource } from '../format/parquet-io.js';
import type { RowGroupCache } from './row-group-cache.js';
import type { ScanFile, ScanTask } from './scan-types.js';

/**
 * A point read's base rows through the row-group cache: each of the file's candidate
 * row groups (those whose key-hash range holds the key) is taken decoded from the
 * cache, or decoded whole (every column the task reads) and kept there; then `pick`
 * chooses the rows. On a hit the file is not opened at all. Counts hits and misses.
 */
export async function selectCachedRowGroups(
  cache: RowGroupCache, open: () => Promise<ParquetSource>, f: ScanFile, groups: readonly number[], task: ScanTask,
  extra: readonly string[], form: DecodeForm | undefined, pick: RowPicker, counters: { rowGroupsRead: number; rowGroupCacheHits?: number } | undefined,
): Promise<SelectedBatch[]> {
  const shape = JSON.stringify([task.columns.map((c) => [c.fieldId, c.type]), extra, form ?? null]);
  const out: SelectedBatch[] = [];
  let source: ParquetSource | undefined;
  for (const g of groups) {
    const key = `${f.path}\u0000${g}\u0000${shape}`;
    let batches: readonly RecordBatch[] | undefined = cache.get(key);
    if (batches === undefined) {
      source ??= await open();
      batches = await decodeDataFile(source, f.path, task.columns, extra, [g], form);
      cache.put(key, batches);
      if (counters) counters.rowGroupsRead++;
    } else if (counters) {
      counters.rowGroupCacheHits = (counters.rowGroupCacheHits ?? 0) + 1;
    }
    for (const batch of batches) {
      const rows = pick(batch);
      if (rows === undefined || rows.length > 0) out.push({ batch, rows });
    }
  }
  return out;
}
