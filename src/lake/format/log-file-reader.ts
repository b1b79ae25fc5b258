import { RecordBatchReader } from 'apache-arrow';
import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { parseLogLocator } from '../log/log-locator.js';

/**
 * The batches of a log file: a locator's byte range holds one complete Arrow IPC stream
 * whose columns are a change file's physical columns (`c<fieldId>` …, `_op`). The caller
 * conforms them to the current schema exactly as it does Parquet batches. A log file has
 * no row groups, footer or page statistics: `rowGroups` either names none (nothing to
 * read) or stands for the whole file.
 */
export function decodeLogFile(bytes: Uint8Array, path: string, rowGroups?: readonly number[]): RecordBatch[] {
  const at = parseLogLocator(path);
  if (at !== undefined && bytes.length !== at.length) {
    throw new FloeError(SqlState.dataCorrupted, `could not read log file "${path}": read ${bytes.length} of ${at.length} bytes`, {
      detail: 'The log segment is shorter than the catalog says.',
    });
  }
  if (rowGroups !== undefined && rowGroups.length === 0) return [];
  let batches: RecordBatch[];
  try {
    batches = RecordBatchReader.from(bytes).readAll().filter((b) => b.numRows > 0);
  } catch (e) {
    throw new FloeError(SqlState.dataCorrupted, `could not decode log file "${path}": ${(e as Error).message}`);
  }
  // The log store never writes an empty one; overwritten bytes can read as an empty stream
  // (a 0xFFFFFFFF continuation and a negative length end it) instead of failing.
  if (batches.length === 0) {
    throw new FloeError(SqlState.dataCorrupted, `could not decode log file "${path}": no rows in its Arrow IPC stream`);
  }
  return batches;
}
