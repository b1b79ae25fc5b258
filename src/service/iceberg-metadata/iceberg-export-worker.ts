import { workerData } from 'piscina';
import { lowerThreadPriority } from '../../common/thread-priority.js';
import type { ChangeStoreFile, ChangeStoreJob } from '../../lake/index.js';
import type { BackgroundThreadData } from '../background-thread.js';

const { niceness } = workerData as BackgroundThreadData;
if (niceness > 0) lowerThreadPriority(niceness);
// Loaded after the priority is lowered: the lake's modules and parquet-wasm take the thread
// about 1.4 s of CPU to load, and it starts while queries run (with the first export).
const lake = import('../../lake/index.js');

/** Reads a table's change store and writes it as Iceberg files, on the export thread (piscina calls it by name). */
export async function writeChangeStore(job: ChangeStoreJob): Promise<ChangeStoreFile[]> {
  return (await lake).writeChangeStoreFiles(job);
}
