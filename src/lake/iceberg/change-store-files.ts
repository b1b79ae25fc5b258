import type { RecordBatch } from 'apache-arrow';
import { encodeParquet } from '../format/parquet-io.js';
import type { ScanTask } from '../scan/scan-types.js';
import { openStorage } from '../storage/open-storage.js';
import type { Storage } from '../storage/storage.js';
import type { StorageConfig } from '../storage/storage-config.js';
import { changeStoreRows } from './change-store-rows.js';
import type { ManifestFile } from './manifest-writer.js';

/**
 * The part of an Iceberg export that reads and writes data: a keyed table's change store
 * folded per key (change-store-rows.ts) and written as files. Plain data, so that it can run
 * on a background thread (the metadata service's export pool) as well as in the caller's.
 */
export interface ChangeStoreJob {
  readonly storage: StorageConfig;
  /** The table's scan at the exported snapshot (full projection, no filters). */
  readonly tasks: readonly ScanTask[];
  /** Field ids of the primary key: the equality deletes' columns. */
  readonly equalityIds: readonly number[];
  /** Storage key prefix of the files: the snapshot's manifest list's name, so cleanup knows whose they are. */
  readonly namePrefix: string;
  /** Each partition's values, by partition key. */
  readonly partitionValues: readonly (readonly [string, readonly unknown[]])[];
}

/** A file the export wrote for the change store, as its manifest lists it. */
export interface ChangeStoreFile extends ManifestFile {
  readonly key: string;
}

/** Runs a ChangeStoreJob: in this thread (writeChangeStoreFiles) or on another. */
export type ChangeStoreWriter = (job: ChangeStoreJob) => Promise<ChangeStoreFile[]>;

/**
 * Per partition with pending changes, an equality delete file (the primary key of every key
 * they touch) and a data file (the rows they leave live), each complete when put. `storage`
 * is the caller's, else the job's opened in this thread.
 */
export async function writeChangeStoreFiles(job: ChangeStoreJob, storage: Storage = openStorage(job.storage)): Promise<ChangeStoreFile[]> {
  const partitionValues = new Map(job.partitionValues);
  const out: ChangeStoreFile[] = [];
  let i = 0;
  for (const p of await changeStoreRows(storage, job.tasks)) {
    const values = partitionValues.get(p.partitionKey) ?? [];
    const put = async (suffix: string, batches: readonly RecordBatch[], ids?: readonly number[]) => {
      const bytes = encodeParquet(batches);
      const key = `${job.namePrefix}-p${i}-${suffix}.parquet`;
      await storage.put(key, bytes);
      out.push({
        key, rowCount: batches.reduce((n, b) => n + b.numRows, 0), sizeBytes: bytes.length, partitionValues: values,
        // No bounds: readers then never prune these files, which is always correct.
        columnStats: {}, ...(ids === undefined ? {} : { equalityIds: ids }),
      });
    };
    if (p.keys.length > 0) await put('eq-deletes', p.keys, job.equalityIds);
    if (p.rows.length > 0) await put('rows', p.rows);
    i++;
  }
  return out;
}
