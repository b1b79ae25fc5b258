import { workerData } from 'piscina';
import { lowerThreadPriority } from '../../common/thread-priority.js';
import { writeChangeStoreFiles } from '../../lake/index.js';
import type { ChangeStoreFile, ChangeStoreJob } from '../../lake/index.js';
import type { IcebergExportWorkerData } from './iceberg-export-pool.js';

const { niceness } = workerData as IcebergExportWorkerData;
if (niceness > 0) lowerThreadPriority(niceness);

/** Reads a table's change store and writes it as Iceberg files, on the export thread (piscina calls it by name). */
export function writeChangeStore(job: ChangeStoreJob): Promise<ChangeStoreFile[]> {
  return writeChangeStoreFiles(job);
}
