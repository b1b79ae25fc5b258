import type { RecordBatch } from 'apache-arrow';
import { decodeDataFile } from '../format/data-file-reader.js';
import type { SelectedBatch } from '../arrow/selected-batch.js';
import type { RowPicker } from '../format/data-file-reader.js';
import type { DecodeForm } from '../format/native-parquet-reader.js';
import { cachedFooterRowGroups } from '../format/parquet-footer.js';
import type { ParquetSource } from '../format/parquet-io.js';
import { batchBytes } from './row-group-cache.js';
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
  const shape = shapeOf(task, extra, form);
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

/**
 * A change file (Parquet or a log locator's Arrow IPC range, both immutable) decoded
 * whole through the same cache: a point read of a table with many small commits reads
 * the few the key bitmap lets through, and the same ones again for other keys.
 */
export async function cachedChangeFile(
  cache: RowGroupCache, f: ScanFile, task: ScanTask, extra: readonly string[], decode: () => Promise<RecordBatch[]>, maxBytes = Number.POSITIVE_INFINITY,
): Promise<readonly RecordBatch[]> {
  // Rows a time-travel read keeps of a tiered file depend on the snapshot: part of the key.
  const key = `${f.path}\u0000change\u0000${shapeOf(task, extra, undefined)}\u0000${(f.keepSnapshots ?? []).join(',')}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const batches = await decode();
  if (batches.reduce((n, b) => n + batchBytes(b), 0) <= maxBytes) cache.put(key, batches);
  return batches;
}

/** Row counts of the row groups of recently read files (immutable), so a cache hit still opens nothing. */
const groupSizes = new Map<string, number[]>();
const GROUP_SIZES_FILES = 4096;

/**
 * The rows in each row group of a data file: what placing a point read's rows in the file
 * needs (deletion vectors). Read from its footer once per file.
 */
export async function cachedRowGroupSizes(path: string, open: () => Promise<ParquetSource>): Promise<number[]> {
  const hit = groupSizes.get(path);
  if (hit !== undefined) return hit;
  const sizes = (cachedFooterRowGroups(path, (await open()).footer) ?? []).map((g) => g.numRows);
  if (groupSizes.size >= GROUP_SIZES_FILES) groupSizes.delete(groupSizes.keys().next().value!);
  groupSizes.set(path, sizes);
  return sizes;
}

/** What a decode's result depends on besides the file: the columns (field ids and types), extra columns and form. */
function shapeOf(task: ScanTask, extra: readonly string[], form: DecodeForm | undefined): string {
  return JSON.stringify([task.columns.map((c) => [c.fieldId, c.type]), extra, form ?? null]);
}
