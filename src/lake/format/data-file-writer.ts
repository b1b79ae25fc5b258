import { randomUUID } from 'node:crypto';
import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BatchColumn } from '../arrow/batch-builder.js';
import type { BucketNode } from '../bucket/bucket-node.js';
import type { FileColumnStats, NewFileRecord } from '../catalog/catalog.js';
import { computeColumnStats, encodeStatValue } from '../stats/column-stats.js';
import type { ColumnStats } from '../stats/column-stats.js';
import { bloomOfBatches } from '../stats/value-bloom.js';
import { valueOrderOf } from '../stats/value-order.js';
import type { Storage } from '../storage/storage.js';
import { OP_COLUMN, SEQ_FILE_COLUMN, physicalName, tableDataPrefix } from '../table/table-layout.js';
import type { ColumnMetadata } from '../table/table-metadata.js';
import { unifyMultidimColumns } from '../arrow/unify-multidim-columns.js';
import { encodeParquet } from './parquet-io.js';

/** Arrow columns of a data file: table columns by field id, then _op (change) or _seq (base). */
export function fileColumns(columns: readonly ColumnMetadata[], keyNames: readonly string[], store: 'change' | 'base' | 'append'): BatchColumn[] {
  const out: BatchColumn[] = columns.map((c) => ({
    name: physicalName(c.fieldId), type: c.type, fieldId: c.fieldId,
    // Change rows of a delete carry only the key, so only key columns are NOT NULL there;
    // NOT NULL of other columns is checked on the rows that need it before building.
    nullable: store === 'append' ? c.nullable : !keyNames.includes(c.name),
  }));
  if (store === 'change') out.push({ name: OP_COLUMN, type: { kind: 'text' }, fieldId: -1, nullable: false });
  if (store === 'base') out.push({ name: SEQ_FILE_COLUMN, type: { kind: 'int8' }, fieldId: -2, nullable: false });
  return out;
}

export interface FilePlacement {
  readonly partitionKey: string;
  readonly partitionValues: readonly unknown[];
  readonly node: BucketNode;
}

/** Stats and encoded bytes of one batch, ready to be stored as a data file. */
export interface EncodedFile {
  readonly bytes: Uint8Array;
  readonly rowCount: number;
  readonly stats: Record<string, FileColumnStats>;
  readonly rowGroups?: readonly (readonly [number, number])[];
  readonly keyBitmap?: Uint8Array;
}

export function encodeDataFile(
  batches: RecordBatch | readonly RecordBatch[], columns: readonly ColumnMetadata[],
  rowGroups?: { readonly rows: number; readonly ranges: readonly (readonly [number, number])[] },
): EncodedFile {
  const list = unifyMultidimColumns(Array.isArray(batches) ? batches : [batches as RecordBatch]);
  const stats = fileStats(list, columns);
  const rowCount = list.reduce((n, b) => n + b.numRows, 0);
  if (rowGroups === undefined) return { bytes: encodeParquet(list), rowCount, stats };
  return { bytes: encodeParquet(list, undefined, rowGroups.rows), rowCount, stats, rowGroups: rowGroups.ranges };
}

/**
 * A file's per-column statistics as the catalog keeps them (encodeStatValue form), keyed by
 * physical name; an indexed column (a plain index's) also gets its value filter (value-bloom.ts).
 */
export function fileStats(list: readonly RecordBatch[], columns: readonly ColumnMetadata[]): Record<string, FileColumnStats> {
  const stats: Record<string, FileColumnStats> = {};
  for (const c of columns) {
    const name = physicalName(c.fieldId);
    const merged = mergeStats(list.map((b) => ({ rows: b.numRows, s: computeColumnStats(b, [{ name, type: c.type }])[name]! })), c.type);
    const bloom = c.indexed === true ? bloomOfBatches(list, name, c.type) : undefined;
    stats[name] = {
      min: merged.min === null ? null : encodeStatValue(c.type, merged.min),
      max: merged.max === null ? null : encodeStatValue(c.type, merged.max),
      nullCount: merged.nullCount,
      ...(bloom === undefined ? {} : { bloom }),
    };
  }
  return stats;
}

/** Stats of several batches as one; an unknown bound in any batch with values makes it unknown. */
function mergeStats(parts: readonly { rows: number; s: ColumnStats }[], type: SqlType): ColumnStats {
  const order = valueOrderOf(type);
  let min: unknown = null;
  let max: unknown = null;
  let nullCount = 0;
  let minKnown = true;
  let maxKnown = true;
  for (const { rows, s } of parts) {
    nullCount += s.nullCount;
    if (s.nullCount === rows) continue;
    if (s.min === null || order === undefined) minKnown = false;
    else if (min === null || order(s.min, min) < 0) min = s.min;
    if (s.max === null || order === undefined) maxKnown = false;
    else if (max === null || order(s.max, max) > 0) max = s.max;
  }
  return { min: minKnown ? min : null, max: maxKnown ? max : null, nullCount };
}

/** Stores an encoded file under a fresh name; the file is durable when this resolves. */
export async function storeDataFile(
  storage: Storage, tableId: number, file: EncodedFile, placement: FilePlacement,
  store: 'change' | 'base', seq: bigint, firstOffset: number,
): Promise<NewFileRecord> {
  const path = `${tableDataPrefix(tableId)}${store}-${randomUUID()}.parquet`;
  await storage.put(path, file.bytes);
  return {
    store, path, partitionKey: placement.partitionKey, partitionValues: placement.partitionValues,
    nodeMask: placement.node.mask, nodeIndex: placement.node.index, rowCount: file.rowCount,
    sizeBytes: file.bytes.length, seq, firstOffset, stats: file.stats, dvTarget: undefined, dvPositions: undefined,
    rowGroups: file.rowGroups, keyBitmap: file.keyBitmap,
  };
}

/** An empty-node marker: keeps a split child on the frontier while it holds no rows. */
export function nodeMarker(placement: FilePlacement, seq: bigint): NewFileRecord {
  return {
    store: 'base', path: '', partitionKey: placement.partitionKey, partitionValues: placement.partitionValues,
    nodeMask: placement.node.mask, nodeIndex: placement.node.index, rowCount: 0, sizeBytes: 0, seq,
    firstOffset: 0, stats: {}, dvTarget: undefined, dvPositions: undefined, rowGroups: undefined, keyBitmap: undefined,
  };
}

export function checkNotNull(columns: readonly ColumnMetadata[], values: readonly (readonly unknown[])[], table: string): void {
  for (let c = 0; c < columns.length; c++) {
    const col = columns[c]!;
    if (col.nullable) continue;
    const vals = values[c]!;
    for (let i = 0; i < vals.length; i++) {
      if (vals[i] === null || vals[i] === undefined) {
        throw new FloeError(SqlState.notNullViolation, `null value in column "${col.name}" of relation "${table}" violates not-null constraint`);
      }
    }
  }
}
