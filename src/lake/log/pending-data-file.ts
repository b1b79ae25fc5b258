import type { RecordBatch } from 'apache-arrow';
import type { NewFileRecord } from '../catalog/catalog.js';
import { fileStats } from '../format/data-file-writer.js';
import type { FilePlacement } from '../format/data-file-writer.js';
import type { ColumnMetadata } from '../table/table-metadata.js';
import { batchIpcStream } from './batch-ipc-stream.js';

/**
 * A data file a transaction has staged but not stored: a keyed table's change file or an
 * append table's base file. It holds its rows as the Arrow IPC stream the log will hold,
 * and everything its catalog row needs but the path, which only the log knows once the
 * record is appended (a locator) — or a data file's path, if the transaction has to store
 * it after all (storePending in the transaction).
 */
export interface PendingDataFile {
  readonly file: Omit<NewFileRecord, 'path' | 'sizeBytes'> & { readonly store: 'change' | 'base' };
  readonly batch: RecordBatch;
  readonly ipc: Uint8Array;
}

export function pendingDataFile(
  store: 'change' | 'base', batch: RecordBatch, columns: readonly ColumnMetadata[], placement: FilePlacement, keyBitmap: Uint8Array | undefined,
  seq: bigint, firstOffset: number,
): PendingDataFile {
  return {
    batch,
    ipc: batchIpcStream(batch),
    file: {
      store, partitionKey: placement.partitionKey, partitionValues: placement.partitionValues,
      nodeMask: placement.node.mask, nodeIndex: placement.node.index, rowCount: batch.numRows, seq, firstOffset,
      stats: fileStats([batch], columns), dvTarget: undefined, dvPositions: undefined, rowGroups: undefined, keyBitmap,
    },
  };
}
