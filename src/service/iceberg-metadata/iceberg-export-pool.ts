import { Piscina } from 'piscina';
import { workerModule } from '../../common/worker-module.js';
import type { ChangeStoreFile, ChangeStoreJob, ChangeStoreWriter } from '../../lake/index.js';

/**
 * The export thread's nice value. Writing a table's pending changes as Iceberg files decodes
 * and merges every pending row and encodes two Parquet files: 0.4 s for 100k rows, which on
 * the gateway's main thread held every query behind it (stalls of 120 ms). At 19 a query's
 * threads are preferred when both are ready, as with the optimizer's; the export still runs
 * in the gaps they leave (bench/README.md, "The Iceberg export off the main thread").
 */
export const ICEBERG_EXPORT_NICENESS = 19;

/** What the export thread is started with (piscina's workerData). */
export interface IcebergExportWorkerData {
  readonly niceness: number;
}

/** One background thread that writes the change-store files of the metadata service's exports. */
export interface IcebergExportPool {
  readonly writeChangeStore: ChangeStoreWriter;
  close(): Promise<void>;
}

/**
 * The thread starts with the first export that has pending changes (loading the lake and
 * parquet-wasm takes it a few seconds, which a gateway that never exports a change store
 * does not pay), then stays.
 */
export function createIcebergExportPool(opts: { readonly niceness?: number } = {}): IcebergExportPool {
  let pool: Piscina | undefined;
  const started = (): Piscina => {
    if (pool !== undefined) return pool;
    const { filename, execArgv } = workerModule(import.meta.url, 'iceberg-export-worker');
    pool = new Piscina({
      filename, name: 'writeChangeStore', minThreads: 1, maxThreads: 1, idleTimeout: 2 ** 31 - 1, execArgv,
      workerData: { niceness: opts.niceness ?? ICEBERG_EXPORT_NICENESS } satisfies IcebergExportWorkerData,
    });
    // A worker that died fails its job (the export is retried at the next poll); the pool stays usable.
    pool.on('error', () => undefined);
    return pool;
  };
  return {
    writeChangeStore: (job: ChangeStoreJob) => started().run(job) as Promise<ChangeStoreFile[]>,
    close: async () => { await pool?.destroy(); },
  };
}
