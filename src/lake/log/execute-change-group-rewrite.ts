import { Int64, makeData } from 'apache-arrow';
import type { Data, Field, RecordBatch } from 'apache-arrow';
import { batchFromData, buildBatch } from '../arrow/batch-builder.js';
import { hashKeyBatch } from '../bucket/key-hash.js';
import { readDataFile } from '../format/data-file-reader.js';
import { encodeDataFile, fileColumns, storeDataFile } from '../format/data-file-writer.js';
import { keyBitmapOf } from '../bucket/key-bitmap.js';
import { openStorage } from '../storage/open-storage.js';
import { OFFSET_FILE_COLUMN, OP_COLUMN, SEQ_FILE_COLUMN, SNAPSHOT_FILE_COLUMN } from '../table/table-layout.js';
import type { ColumnMetadata } from '../table/table-metadata.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ChangeGroupRewriteResult, ChangeGroupRewriteTask } from './change-group-rewrite-task.js';
import { TIERED_COLUMNS_WITH_OFFSETS, tieredRows } from './tiered-rows.js';

/**
 * Reads a group's change files and stores their rows as one tiered change file, in (seq,
 * offset) order with each row's `_seq`, `_snapshot` and `_offset`. Needs nothing but the task
 * (no catalog), so it runs on an optimizer worker thread.
 */
export async function executeChangeGroupRewrite(task: ChangeGroupRewriteTask): Promise<ChangeGroupRewriteResult> {
  const storage = openStorage(task.storage);
  const fields = tieredFields(task.columns, task.primaryKey);
  // Runs of rows of one seq, from every input: a log or Parquet change file is one run (its
  // transaction's), a tiered input one per seq it holds. Stably ordered by seq they give the
  // file's (seq, offset) order, as one transaction's rows come from one input.
  const runs: { readonly seq: bigint; readonly batch: RecordBatch }[] = [];
  const hashes: Uint32Array[] = [];
  for (const f of task.inputs) {
    let offset = f.firstOffset;
    for (const b of await readDataFile(storage, f.path, task.columns, f.tiered ? [OP_COLUMN, ...TIERED_COLUMNS_WITH_OFFSETS] : [OP_COLUMN])) {
      const n = b.numRows;
      hashes.push(hashKeyBatch(b, task.keyNames, task.keyTypes));
      if (f.tiered) {
        const { seqs, offsets } = tieredRows(b);
        if (seqs === undefined) throw new FloeError(SqlState.dataCorrupted, `tiered change file ${f.path} has no ${SEQ_FILE_COLUMN} column`);
        // A tiered file written before `_offset` existed: its rows' offsets stay unknown.
        const children = offsets === undefined ? [...b.data.children, int64Data(new BigInt64Array(n).fill(-1n))] : b.data.children;
        const rows = batchFromData(fields, children, n);
        for (let start = 0; start < n;) {
          let end = start + 1;
          while (end < n && seqs[end] === seqs[start]) end++;
          runs.push({ seq: seqs[start]!, batch: rows.slice(start, end) });
          start = end;
        }
        continue;
      }
      const seq = int64Data(new BigInt64Array(n).fill(f.seq));
      const snapshot = int64Data(new BigInt64Array(n).fill(f.addedIn));
      const offsets = int64Data(BigInt64Array.from({ length: n }, (_, r) => BigInt(offset + r)));
      offset += n;
      runs.push({ seq: f.seq, batch: batchFromData(fields, [...b.data.children, seq, snapshot, offsets], n) });
    }
  }
  runs.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
  const all = new Uint32Array(hashes.reduce((n, h) => n + h.length, 0));
  hashes.reduce((at, h) => { all.set(h, at); return at + h.length; }, 0);
  const encoded = { ...encodeDataFile(runs.map((r) => r.batch), task.columns), keyBitmap: keyBitmapOf(all) };
  return { kind: 'change-group', file: await storeDataFile(storage, task.tableId, encoded, task.placement, 'change', task.seq, 0) };
}

function int64Data(values: BigInt64Array): Data<Int64> {
  return makeData({ type: new Int64(), length: values.length, nullCount: 0, data: values });
}

/** A tiered change file's Arrow fields: a change file's (table columns, `_op`), then `_seq`, `_snapshot` and `_offset`. */
function tieredFields(columns: readonly ColumnMetadata[], primaryKey: readonly string[]): Field[] {
  const cols = [
    ...fileColumns(columns, primaryKey, 'change'),
    { name: SEQ_FILE_COLUMN, type: { kind: 'int8' as const }, fieldId: -2, nullable: false },
    { name: SNAPSHOT_FILE_COLUMN, type: { kind: 'int8' as const }, fieldId: -3, nullable: false },
    { name: OFFSET_FILE_COLUMN, type: { kind: 'int8' as const }, fieldId: -4, nullable: false },
  ];
  return buildBatch(cols, cols.map(() => [])).schema.fields;
}
