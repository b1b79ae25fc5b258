import type { Data, Field, RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import { batchFromData } from '../arrow/batch-builder.js';
import { encodeKeyBatch, hashKeyData, keyColumnData } from '../bucket/key-encoding.js';
import { rowsByNode, type BucketNode } from '../bucket/bucket-node.js';
import { concatKeys, KeySet } from '../bucket/key-set.js';
import { readDataFile } from '../format/data-file-reader.js';
import { TIERED_COLUMNS, selectTieredRows, tieredRows } from '../log/tiered-rows.js';
import type { TieredRows } from '../log/tiered-rows.js';
import { mergeOnRead } from '../merge/merge-on-read.js';
import type { ChangeInput } from '../merge/merge-on-read.js';
import type { ScanTask } from '../scan/scan-types.js';
import { takeRows } from '../scan/take-rows.js';
import type { Storage } from '../storage/storage.js';
import { OP_COLUMN, physicalName } from '../table/table-layout.js';

/** A partition's change store as Iceberg v2 readers see it: equality deletes, then the rows that replace them. */
export interface PartitionChangeRows {
  readonly partitionKey: string;
  /** The key columns (physical names) of every key a pending change touches, each once. */
  readonly keys: RecordBatch[];
  /** Each touched key's row after its newest change, when that change left it live (table columns, physical names). */
  readonly rows: RecordBatch[];
}

/**
 * The change store of a keyed table's scan plan (full projection, no filters), folded per
 * key without the base. A scan task's change files are all newer than its node's base
 * (plan-scan keeps only files at or above the node's base seq, and tiering never puts
 * folded and unfolded rows in one file), so a key's newest change decides its row whatever
 * the base holds: deleting every touched key from the base and adding the live winners is
 * exactly the merge-on-read view. Ancestor nodes' change files count only for the keys that
 * hash into the task's node, as in the scan.
 */
export async function changeStoreRows(storage: Storage, tasks: readonly ScanTask[]): Promise<PartitionChangeRows[]> {
  const byPartition = new Map<string, { keys: RecordBatch[]; rows: RecordBatch[] }>();
  for (const task of tasks) {
    if (task.changeFiles.length === 0) continue;
    const keyCols = task.keyColumns.map((k) => task.columns.find((c) => c.name === k)!);
    const keyNames = keyCols.map((c) => physicalName(c.fieldId));
    const keyTypes = keyCols.map((c) => c.type);
    const changes: ChangeInput[] = [];
    const keys: RecordBatch[] = [];
    for (const f of task.changeFiles) {
      let offset = f.firstOffset;
      const extra = f.tiered === true ? [OP_COLUMN, ...TIERED_COLUMNS] : [OP_COLUMN];
      for (const decoded of await readDataFile(storage, f.path, task.columns, extra)) {
        let rows = tieredRows(decoded, f.keepSnapshots);
        if (f.filterByHash) rows = rowsOfNode(rows, task.node, keyNames, keyTypes);
        if (rows.batch.numRows > 0) {
          changes.push({
            batch: rows.batch, seq: f.seq, firstOffset: offset,
            ...(rows.positions === undefined ? {} : { offsets: rows.positions }), ...(rows.seqs === undefined ? {} : { seqs: rows.seqs }),
          });
          keys.push(columnsOf(rows.batch, keyNames));
        }
        offset += decoded.numRows;
      }
    }
    if (keys.length === 0) continue;
    let p = byPartition.get(task.partitionKey);
    if (p === undefined) byPartition.set(task.partitionKey, p = { keys: [], rows: [] });
    p.keys.push(...distinctKeys(keys, keyNames, keyTypes));
    const tableColumns = task.columns.map((c) => physicalName(c.fieldId));
    for (const b of mergeOnRead({ base: [], changes, keyColumns: keyNames, keyTypes })) if (b.numRows > 0) p.rows.push(columnsOf(b, tableColumns));
  }
  return [...byPartition].map(([partitionKey, p]) => ({ partitionKey, ...p }));
}

/** Each key once (a key's -U/+U pair, or its changes in several commits, need one delete): a row is kept where its key first appears. */
function distinctKeys(batches: readonly RecordBatch[], keyNames: readonly string[], keyTypes: readonly SqlType[]): RecordBatch[] {
  const all = concatKeys(batches.map((b) => encodeKeyBatch(b, keyNames, keyTypes)));
  // A set's member for a key is the first row that holds it.
  const firsts = new KeySet(all);
  const out: RecordBatch[] = [];
  let g = 0;
  for (const b of batches) {
    const keep: number[] = [];
    for (let r = 0; r < b.numRows; r++) if (firsts.indexOf(all, g + r) === g + r) keep.push(r);
    g += b.numRows;
    if (keep.length > 0) out.push(keep.length === b.numRows ? b : takeRows(b, keep));
  }
  return out;
}

/** The rows of an ancestor node's change batch whose key hashes into `node`. */
function rowsOfNode(rows: TieredRows, node: BucketNode, keyNames: readonly string[], keyTypes: readonly SqlType[]): TieredRows {
  const b = rows.batch;
  const keep = rowsByNode(hashKeyData(keyColumnData(b, keyNames), keyNames, keyTypes, b.numRows), node, true);
  return keep.length === b.numRows ? rows : selectTieredRows(rows, keep);
}

function columnsOf(b: RecordBatch, names: readonly string[]): RecordBatch {
  const fields: Field[] = [];
  const children: Data[] = [];
  for (const name of names) {
    const i = b.schema.fields.findIndex((f) => f.name === name);
    fields.push(b.schema.fields[i]!);
    children.push(b.data.children[i]!);
  }
  return batchFromData(fields, children, b.numRows);
}
