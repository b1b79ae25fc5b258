import type { Data, RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { batchFromData } from '../arrow/batch-builder.js';
import { columnReader } from '../arrow/column-reader.js';
import { takeRows } from '../scan/take-rows.js';
import { OFFSET_FILE_COLUMN, SEQ_FILE_COLUMN, SNAPSHOT_FILE_COLUMN } from '../table/table-layout.js';

/**
 * A tiered change file holds rows of several commits (docs/design-notes.md, "Tiering"):
 * each row carries its transaction's seq (`_seq`), its commit's snapshot (`_snapshot`) and
 * its offset in the transaction (`_offset`). The extra physical columns a reader asks a
 * change file for when the file is tiered; readers that order rows by their position in
 * the file (scans, key checks, folds) leave `_offset` out.
 */
export const TIERED_COLUMNS: readonly string[] = [SEQ_FILE_COLUMN, SNAPSHOT_FILE_COLUMN];

/** TIERED_COLUMNS and `_offset`, for readers that need each row's transaction offset (table_changes, a tiering's rewrite). */
export const TIERED_COLUMNS_WITH_OFFSETS: readonly string[] = [...TIERED_COLUMNS, OFFSET_FILE_COLUMN];

/** True for a tiered change file (its record lists the commits it holds). */
export function isTieredFile(f: { readonly snapshots?: readonly bigint[] | undefined }): boolean {
  return f.snapshots !== undefined;
}

/** The extras to decode from a change file: `_op`, plus `_seq`/`_snapshot` (and `_offset` when asked) when tiered. */
export function changeFileExtras(f: { readonly snapshots?: readonly bigint[] | undefined }, op: string, withOffsets = false): string[] {
  if (!isTieredFile(f)) return [op];
  return [op, ...(withOffsets ? TIERED_COLUMNS_WITH_OFFSETS : TIERED_COLUMNS)];
}

/** A decoded change batch split into its rows and, for a tiered file, each row's seq, snapshot and offset. */
export interface TieredRows {
  /** The batch without `_seq`, `_snapshot` and `_offset`. */
  readonly batch: RecordBatch;
  /** Row r's seq; undefined: the file's seq (not tiered). */
  readonly seqs: BigInt64Array | undefined;
  readonly snapshots: BigInt64Array | undefined;
  /** Row r's offset in its transaction (-1: not known); undefined: `_offset` was not decoded (or the file is not tiered). */
  readonly offsets: BigInt64Array | undefined;
  /** Row r's position in the decoded batch (rows were dropped); undefined: r. */
  readonly positions: Int32Array | undefined;
}

/**
 * Splits off a decoded change batch's `_seq`, `_snapshot` and `_offset` columns (when it has
 * them) and keeps only the rows whose snapshot is in `keep` (undefined: every row).
 */
export function tieredRows(b: RecordBatch, keep?: readonly bigint[] | ReadonlySet<bigint>): TieredRows {
  const seqAt = b.schema.fields.findIndex((f) => f.name === SEQ_FILE_COLUMN);
  const snapAt = b.schema.fields.findIndex((f) => f.name === SNAPSHOT_FILE_COLUMN);
  if (seqAt < 0 && snapAt < 0) return { batch: b, seqs: undefined, snapshots: undefined, offsets: undefined, positions: undefined };
  if (seqAt < 0 || snapAt < 0) throw new FloeError(SqlState.dataCorrupted, 'tiered change file with only one of _seq and _snapshot');
  const offsetAt = b.schema.fields.findIndex((f) => f.name === OFFSET_FILE_COLUMN);
  const seqs = int64Values(b.data.children[seqAt]!, b, SEQ_FILE_COLUMN);
  const snapshots = int64Values(b.data.children[snapAt]!, b, SNAPSHOT_FILE_COLUMN);
  const offsets = offsetAt < 0 ? undefined : int64Values(b.data.children[offsetAt]!, b, OFFSET_FILE_COLUMN);
  const split = (i: number): boolean => i !== seqAt && i !== snapAt && i !== offsetAt;
  const fields = b.schema.fields.filter((_, i) => split(i));
  const children: Data[] = b.data.children.filter((_, i) => split(i));
  const rows: TieredRows = { batch: batchFromData(fields, children, b.numRows), seqs, snapshots, offsets, positions: undefined };
  if (keep === undefined) return rows;
  const kept = keep instanceof Set ? keep : new Set(keep as readonly bigint[]);
  const pick: number[] = [];
  for (let r = 0; r < snapshots.length; r++) if (kept.has(snapshots[r]!)) pick.push(r);
  return pick.length === b.numRows ? rows : selectTieredRows(rows, Int32Array.from(pick));
}

/** Rows `rows` (ascending positions in `t.batch`) of a split batch. */
export function selectTieredRows(t: TieredRows, rows: Int32Array): TieredRows {
  return {
    batch: takeRows(t.batch, rows),
    seqs: t.seqs === undefined ? undefined : BigInt64Array.from(rows, (r) => t.seqs![r]!),
    snapshots: t.snapshots === undefined ? undefined : BigInt64Array.from(rows, (r) => t.snapshots![r]!),
    offsets: t.offsets === undefined ? undefined : BigInt64Array.from(rows, (r) => t.offsets![r]!),
    positions: t.positions === undefined ? rows : Int32Array.from(rows, (r) => t.positions![r]!),
  };
}

function int64Values(d: Data, b: RecordBatch, name: string): BigInt64Array {
  const v = d.values as unknown;
  // A slice's values already start at its first row (Arrow subarrays them; `offset` is for the validity bits).
  if (v instanceof BigInt64Array && d.nullCount === 0) return v.subarray(0, d.length);
  const r = columnReader(b.getChild(name)!, { kind: 'int8' });
  const out = new BigInt64Array(b.numRows);
  for (let i = 0; i < b.numRows; i++) {
    const x = r.get(i);
    if (x === null || x === undefined) throw new FloeError(SqlState.dataCorrupted, `tiered change row with NULL ${name}`);
    out[i] = BigInt(x as bigint);
  }
  return out;
}
