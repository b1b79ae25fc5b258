import { Table, tableToIPC } from 'apache-arrow';
import type { RecordBatch } from 'apache-arrow';
import { move } from 'piscina';
import { executeScanTask } from '../../lake/index.js';
import type { ScanTask } from '../../lake/index.js';
import { isFloeError } from '../../common/floe-error.js';

/**
 * Runs in a pool worker: executes one lake scan task and returns its batches
 * as a single Arrow IPC stream whose buffer is transferred, not copied.
 */
export async function runScanTask(task: ScanTask): Promise<ScanWorkerResult> {
  try {
    const batches: RecordBatch[] = [];
    for await (const b of executeScanTask(task)) batches.push(b);
    if (batches.length === 0) return null;
    // Only a top-level moved value is transferred; nested ones would be cloned.
    return move(tableToIPC(new Table(batches), 'stream')) as Uint8Array;
  } catch (e) {
    // Errors cross threads as plain objects; keep the SQLSTATE so the main thread can rebuild a FloeError.
    if (isFloeError(e)) return { error: { sqlstate: e.sqlstate, message: e.message, detail: e.detail, hint: e.hint } };
    throw e;
  }
}

export type ScanWorkerResult =
  | Uint8Array
  | null
  | { readonly error: { sqlstate: string; message: string; detail?: string; hint?: string } };
