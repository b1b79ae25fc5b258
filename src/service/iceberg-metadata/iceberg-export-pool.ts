import type { ChangeStoreFile, ChangeStoreJob, ChangeStoreWriter } from '../../lake/index.js';
import { backgroundThread } from '../background-thread.js';

/**
 * The export thread's nice value. Writing a table's pending changes as Iceberg files decodes
 * and merges every pending row and encodes two Parquet files: 0.4 s for 100k rows, which on
 * the gateway's main thread held every query behind it (stalls of 120 ms). At 19 a query's
 * threads are preferred when both are ready, as with the optimizer's; the export still runs
 * in the gaps they leave (bench/README.md, "The Iceberg export off the main thread").
 */
export const ICEBERG_EXPORT_NICENESS = 19;

/** One background thread that writes the change-store files of the metadata service's exports. */
export interface IcebergExportPool {
  readonly writeChangeStore: ChangeStoreWriter;
  close(): Promise<void>;
}

/** A failed write fails its export, which is retried at the next poll. */
export function createIcebergExportPool(opts: { readonly niceness?: number } = {}): IcebergExportPool {
  const thread = backgroundThread<ChangeStoreJob, ChangeStoreFile[]>(import.meta.url, 'iceberg-export-worker', 'writeChangeStore', opts.niceness ?? ICEBERG_EXPORT_NICENESS);
  return { writeChangeStore: (job) => thread.run(job), close: () => thread.close() };
}
