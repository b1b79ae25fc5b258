import type { RecordBatch } from 'apache-arrow';
import { arrowFieldOf } from '../arrow/arrow-type.js';
import { batchFromData } from '../arrow/batch-builder.js';
import { takeBatch } from '../arrow/take-rows.js';
import { readDataFile } from '../format/data-file-reader.js';
import { encodeDataFile, storeDataFile } from '../format/data-file-writer.js';
import { openStorage } from '../storage/open-storage.js';
import { physicalName } from '../table/table-layout.js';
import type { AppendFilesRewriteResult, AppendFilesRewriteTask } from './append-files-rewrite-task.js';

/**
 * Runs an append-files rewrite: reads every input, drops its deleted positions, and
 * stores the rest as one file. Needs nothing but the task (storage is opened from its
 * config, as a scan task's is), so it runs on a worker thread as well as here.
 */
export async function executeAppendFilesRewrite(task: AppendFilesRewriteTask): Promise<AppendFilesRewriteResult> {
  const storage = openStorage(task.storage);
  // One schema for every batch: inputs written under older schemas conform to the current
  // columns on read, but their Arrow fields may differ in nullability or metadata.
  const fields = task.columns.map((c) => arrowFieldOf({ name: physicalName(c.fieldId), type: c.type, fieldId: c.fieldId, nullable: c.nullable }));
  const out: RecordBatch[] = [];
  const keptRows: number[] = [];
  let rowsIn = 0;
  for (const input of task.inputs) {
    let position = 0;
    let d = 0;
    let kept = 0;
    for (const b of await readDataFile(storage, input.path, task.columns)) {
      const keep: number[] = [];
      for (let i = 0; i < b.numRows; i++, position++) {
        while (d < input.deleted.length && input.deleted[d]! < position) d++;
        if (d < input.deleted.length && input.deleted[d] === position) continue;
        keep.push(i);
      }
      rowsIn += b.numRows;
      kept += keep.length;
      if (keep.length === 0) continue;
      const rows = keep.length === b.numRows ? b : takeBatch(b, Int32Array.from(keep));
      out.push(batchFromData(fields, rows.data.children, rows.numRows));
    }
    // The committer maps row ids by position: a file that reads differently from its catalog row must not be rewritten.
    if (position !== input.rowCount) throw new Error(`data file ${input.path} has ${position} rows, the catalog says ${input.rowCount}`);
    keptRows.push(kept);
  }
  if (out.length === 0) return { kind: 'append-files', file: undefined, keptRows, rowsIn };
  const encoded = encodeDataFile(out, task.columns);
  const file = await storeDataFile(storage, task.tableId, encoded, task.placement, 'base', task.seq, 0);
  return { kind: 'append-files', file, keptRows, rowsIn };
}
