import type { RecordBatch } from 'apache-arrow';
import { fileStats } from '../format/data-file-writer.js';
import type { ColumnMetadata } from '../table/table-metadata.js';
import { batchesIpcStream, sameIpcSchema } from './batch-ipc-stream.js';
import type { InlineDataFile } from './log-commit-record.js';
import type { PendingDataFile } from './pending-data-file.js';

/**
 * A transaction's in-memory data files as its log record carries them: consecutive files
 * of one store and (partition, node) whose rows follow each other in the transaction's
 * offsets become one file. Every row keeps its (seq, offset), the file's first offset plus its
 * position, so the merge rule, readers and a publication's change order see exactly what
 * the separate files gave. A transaction of many one-row statements into one table (an
 * ORM's executemany) then adds one catalog row, and one file for every scan to merge, per
 * node instead of one per statement: read amplification that the optimizer would
 * otherwise have to fold away.
 */
export function coalescePendingFiles(pending: readonly PendingDataFile[], columns: readonly ColumnMetadata[]): InlineDataFile[] {
  const out: InlineDataFile[] = [];
  let run: PendingDataFile[] = [];
  const flush = () => {
    if (run.length === 1) out.push({ file: run[0]!.file, ipc: run[0]!.ipc });
    else if (run.length > 1) out.push(merged(run, columns));
    run = [];
  };
  for (const p of pending) {
    const last = run[run.length - 1];
    if (last !== undefined && !follows(last, p)) flush();
    run.push(p);
  }
  flush();
  return out;
}

function follows(a: PendingDataFile, b: PendingDataFile): boolean {
  const x = a.file;
  const y = b.file;
  return y.store === x.store && y.seq === x.seq && y.firstOffset === x.firstOffset + x.rowCount
    && y.partitionKey === x.partitionKey && y.nodeMask === x.nodeMask && y.nodeIndex === x.nodeIndex
    && x.keyBitmap?.length === y.keyBitmap?.length
    && sameIpcSchema(a.batch.schema, b.batch.schema);
}

function merged(run: readonly PendingDataFile[], columns: readonly ColumnMetadata[]): InlineDataFile {
  const first = run[0]!.file;
  const batches: RecordBatch[] = run.map((p) => p.batch);
  let keyBitmap: Uint8Array | undefined;
  if (first.keyBitmap !== undefined) {
    keyBitmap = new Uint8Array(first.keyBitmap.length);
    for (const p of run) {
      const bits = p.file.keyBitmap!;
      for (let i = 0; i < keyBitmap.length; i++) keyBitmap[i]! |= bits[i]!;
    }
  }
  return {
    file: { ...first, rowCount: run.reduce((n, p) => n + p.file.rowCount, 0), stats: fileStats(batches, columns), keyBitmap },
    ipc: batchesIpcStream(batches),
  };
}
