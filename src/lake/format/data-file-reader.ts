import type { Data, Field, RecordBatch } from 'apache-arrow';
import { arrowFieldOf } from '../arrow/arrow-type.js';
import { batchFromData, buildColumnData } from '../arrow/batch-builder.js';
import type { Storage } from '../storage/storage.js';
import { physicalName } from '../table/table-layout.js';
import type { ColumnMetadata } from '../table/table-metadata.js';
import type { SelectedBatch } from '../arrow/selected-batch.js';
import { bytesSource, decodeParquet, decodeParquetColumns, decodeParquetSelected } from './parquet-io.js';
import type { ParquetSource, ViewCut } from './parquet-io.js';
import type { DecodeForm } from './native-parquet-reader.js';
import { isLogPath } from '../log/log-locator.js';
import { readDataFileBytes } from './data-file-source.js';
import { decodeLogFile } from './log-file-reader.js';
import { decodeInitialDefault } from '../table/initial-default.js';
import { widenColumnData } from '../arrow/widen-column-data.js';

export interface ExtraColumn {
  readonly name: string;
  readonly field: Field;
}

/**
 * Reads a data file as batches whose columns are exactly `columns` (by physical name,
 * in order) followed by the `extra` columns present in the file; a narrow `columns`
 * decodes only those columns. Columns added after
 * the file was written read as their initial default (NULL without one); columns the
 * file has but the schema dropped are left out; columns widened since (ALTER … TYPE)
 * read as their current type. A log file (path a log locator) reads the same way.
 */
export async function readDataFile(
  storage: Storage, path: string, columns: readonly ColumnMetadata[], extra: readonly string[] = [], rowGroups?: readonly number[],
): Promise<RecordBatch[]> {
  return decodeDataFile(await readDataFileBytes(storage, path), path, columns, extra, rowGroups);
}

/** readDataFile over bytes already fetched. */
export async function decodeDataFile(
  source: Uint8Array | ParquetSource, path: string, columns: readonly ColumnMetadata[], extra: readonly string[] = [], rowGroups?: readonly number[],
  form?: DecodeForm,
): Promise<RecordBatch[]> {
  const src = source instanceof Uint8Array ? bytesSource(source) : source;
  if (isLogPath(path)) return decodeLogFile(await wholeBytes(src), path, rowGroups).map((b) => conformBatch(b, columns, extra));
  const batches = isFlat(columns)
    ? await decodeParquetColumns(src, path, physicalNames(columns, extra), rowGroups, form)
    : decodeParquet(src.bytes ?? new Uint8Array(await src.blob!.arrayBuffer()), path, undefined, rowGroups);
  return batches.map((b) => conformBatch(b, columns, extra));
}

/**
 * Chooses the rows of a batch (ascending; undefined keeps all) as it is decoded, before
 * it is copied out of the decoder's memory. It must only read the batch.
 */
export type RowPicker = (batch: RecordBatch) => Int32Array | undefined;

/**
 * decodeDataFile keeping only the rows `pick` chooses of each conformed batch, chosen
 * before the batch is copied out of the decoder (decodeParquetSelected). With `reads`
 * (the physical columns `pick` reads; it must read no other) the other columns are
 * decoded after the choice, only at the rows it keeps when they are few; `byCode`
 * names text columns of those that may reach `pick` as Arrow Dictionaries of their
 * codes (see LateColumns.byCode).
 */
export async function decodeDataFileSelected(
  source: Uint8Array | ParquetSource, path: string, columns: readonly ColumnMetadata[], extra: readonly string[], rowGroups: readonly number[] | undefined,
  pick: RowPicker, reads?: ReadonlySet<string>, byCode?: ReadonlyMap<string, boolean>, form?: DecodeForm,
): Promise<SelectedBatch[]> {
  const src = source instanceof Uint8Array ? bytesSource(source) : source;
  const conform = (view: RecordBatch): RecordBatch => conformBatch(view, columns, extra);
  if (isLogPath(path)) {
    // An IPC stream's batches are already in memory of their own: the choice is only noted.
    return decodeLogFile(await wholeBytes(src), path, rowGroups).map((view) => {
      const batch = conform(view);
      return { batch, rows: pick(batch) };
    });
  }
  const cut: ViewCut = (view) => {
    const batch = conform(view);
    return { batch, rows: pick(batch) };
  };
  // Nested columns need the whole-file reader, which decodes every column (readsWhole).
  return decodeParquetSelected(src, path, isFlat(columns) ? physicalNames(columns, extra) : [], rowGroups, cut, reads === undefined ? undefined : { reads, conform, pick, ...(byCode === undefined ? {} : { byCode }) }, form);
}

async function wholeBytes(src: ParquetSource): Promise<Uint8Array> {
  return src.bytes ?? new Uint8Array(await src.blob!.arrayBuffer());
}

/** Only flat columns can be decoded by name; nested ones need the whole-file reader. */
function isFlat(columns: readonly ColumnMetadata[]): boolean {
  return columns.every((c) => c.type.kind !== 'interval' && c.type.kind !== 'array');
}

function physicalNames(columns: readonly ColumnMetadata[], extra: readonly string[]): string[] {
  return [...columns.map((c) => physicalName(c.fieldId)), ...extra];
}

export function conformBatch(b: RecordBatch, columns: readonly ColumnMetadata[], extra: readonly string[]): RecordBatch {
  const fields: Field[] = [];
  const children: Data[] = [];
  const index = new Map<string, number>();
  b.schema.fields.forEach((f, i) => index.set(f.name, i));
  for (const c of columns) {
    const name = physicalName(c.fieldId);
    const i = index.get(name);
    if (i !== undefined) {
      const data = b.data.children[i]!;
      const widened = widenColumnData(data, c.type);
      fields.push(widened === data ? b.schema.fields[i]! : arrowFieldOf({ name, type: c.type, fieldId: c.fieldId, nullable: true }));
      children.push(widened);
    } else {
      const value = decodeInitialDefault(c.initialDefault, c.type);
      fields.push(arrowFieldOf({ name, type: c.type, fieldId: c.fieldId, nullable: true }));
      children.push(buildColumnData(c.type, new Array<unknown>(b.numRows).fill(value), c.name, true));
    }
  }
  for (const name of extra) {
    const i = index.get(name);
    if (i === undefined) continue;
    fields.push(b.schema.fields[i]!);
    children.push(b.data.children[i]!);
  }
  return batchFromData(fields, children, b.numRows);
}
