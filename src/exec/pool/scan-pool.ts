import type { RecordBatch } from 'apache-arrow';

/** A pool of warm worker threads that run lake scan tasks (src/exec/pool/scan-worker.ts). */
export interface ScanPool {
  /** Runs one task on a worker; batches arrive as transferred buffers. */
  run(task: unknown, signal?: AbortSignal): AsyncIterable<RecordBatch>;
  readonly size: number;
  close(): Promise<void>;
}
