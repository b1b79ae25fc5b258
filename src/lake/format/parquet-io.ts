import { DataType, RecordBatch, Schema, Table, tableToIPC } from 'apache-arrow';
import { parseTable } from 'arrow-js-ffi';
import * as pq from 'parquet-wasm';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ByteSource } from '../storage/storage.js';
import { copySelected } from '../arrow/selected-batch.js';
import { copyBatch } from '../arrow/take-rows.js';
import type { SelectedBatch } from '../arrow/selected-batch.js';
import { cachedFooterRowGroups } from './parquet-footer.js';
import { readColumnsInJs } from './native-parquet-reader.js';
import type { DecodeForm } from './native-parquet-reader.js';
import type { LateColumns } from './native-parquet-reader.js';
import { wasmBatchViews } from './wasm-views.js';

/**
 * Parquet encode through parquet-wasm; decode in JS (native-parquet-reader.ts) for the
 * files Floe writes, and through parquet-wasm for any other, avoiding the traps in
 * shared/NOTES.md:
 * - batchSize 128k rows (the 1024 default decodes ~20× slower);
 * - WASM tables are consumed with intoFFI() and copied out at once, then freed, so the
 *   next read does not grow WASM memory; a scan that filters copies out only the rows
 *   it keeps (decodeParquetSelected);
 * - export via arrow-js-ffi's parseTable over wasmMemory (IPC round trips cost seconds);
 * - the sync reader ignores `columns`, so a read of a few columns of a wide file goes
 *   through the async ParquetFile reader, which decodes only those (4 of lineitem's 17
 *   columns: 4–5× faster than the full sync decode); reads of most of the bytes stay sync.
 */
export const ROW_GROUP_ROWS = 131072;

/**
 * Fixed-width columns are stored uncompressed, text and binary LZ4_RAW. Through
 * parquet-wasm LZ4_RAW read fastest (754k lineitem rows, 5 columns, 2026-11-29:
 * 85–115 ms against 220–234 ms for zstd, 111–150 ms snappy, 119–146 ms uncompressed),
 * but the JS reader (native-parquet-reader.ts) reads an uncompressed PLAIN page of
 * numbers with one copy, while LZ4 over them is costly per byte in JS: they compress
 * into a sequence every few bytes. At SF 1 the warehouse grows from 0.92 to 1.35 GB;
 * on 2026-11-30 (JS reader on such files against parquet-wasm on all-LZ4 ones, back to
 * back) 17 of a 22-query analytic benchmark ran 5–33% faster (a one-table filtered scan −28%, a two-table join −33%), one query 27%
 * slower (its long comment text, LZ4 decompressed in JS; decompression got faster since).
 * Text keeps LZ4 (it compresses 2–3×, and decompresses at 270–430 MB/s in JS).
 * Every Parquet reader of note (parquet-mr 1.13+, Arrow, DuckDB) reads LZ4_RAW.
 *
 * Dictionary encoding only for string columns. Measured on 1M rows (int8 key, int4,
 * float8, 5000-distinct text): dictionary on every column encoded in 1.9–2.7 s to
 * 4.5 MB; strings only encoded in 0.76–0.84 s to 2.5 MB and decoded as fast or faster
 * (190–226 ms against 254–325 ms). High-cardinality numbers gain nothing from a dictionary.
 */
function writerProperties(rowGroupRows: number, schema: Schema): pq.WriterProperties {
  // WriterProperties is consumed by writeParquet, so a fresh one is built per file.
  let b = new pq.WriterPropertiesBuilder()
    .setCompression(pq.Compression.LZ4_RAW)
    .setMaxRowGroupSize(rowGroupRows)
    .setDictionaryEnabled(false)
    .setCreatedBy('floe');
  for (const f of schema.fields) {
    if (DataType.isUtf8(f.type) || DataType.isDictionary(f.type)) b = b.setColumnDictionaryEnabled(f.name, true);
    else if (!DataType.isBinary(f.type) && !DataType.isStruct(f.type) && !DataType.isList(f.type)) b = b.setColumnCompression(f.name, pq.Compression.UNCOMPRESSED);
  }
  return b.build();
}

/** The writer cuts row groups every `rowGroupRows` rows, across batch boundaries. */
export function encodeParquet(batches: readonly RecordBatch[], schema?: Schema, rowGroupRows = ROW_GROUP_ROWS): Uint8Array {
  const table = batches.length === 0 ? new Table(schema!) : new Table(batches as RecordBatch[]);
  // Arrow's Table leaves out batches whose schema differs from the first one's, silently:
  // a file would hold fewer rows than its catalog entry says.
  const rows = batches.reduce((n, b) => n + b.numRows, 0);
  if (table.numRows !== rows) throw new Error(`encoding a data file of ${rows} rows kept ${table.numRows}: its batches' schemas differ`);
  const ipc = tableToIPC(table, 'stream');
  const wasmTable = pq.Table.fromIPCStream(ipc);
  try {
    return pq.writeParquet(wasmTable, writerProperties(rowGroupRows, table.schema));
  } finally {
    try { wasmTable.free(); } catch { /* writeParquet may have consumed it */ }
  }
}

/**
 * A Parquet file to decode: its bytes, or a ByteSource read lazily (then only the
 * footer and the column chunks asked for are read), with its footer (any tail
 * of the file that holds the footer and the closing magic).
 */
export interface ParquetSource {
  readonly bytes?: Uint8Array;
  readonly blob?: ByteSource;
  readonly footer: Uint8Array;
}

export function bytesSource(bytes: Uint8Array): ParquetSource {
  return { bytes, footer: bytes };
}

/** A Blob's Parquet footer (and closing magic): its last bytes, read in at most two slices. */
export async function readFooter(blob: ByteSource, firstSlice = 256 * 1024): Promise<Uint8Array> {
  const size = blob.size;
  const guess = Math.min(size, firstSlice);
  let tail = new Uint8Array(await blob.slice(size - guess).arrayBuffer());
  if (tail.length < 8) return tail;
  const n = tail.length;
  const len = tail[n - 8]! | (tail[n - 7]! << 8) | (tail[n - 6]! << 16) | (tail[n - 5]! << 24);
  if (len + 8 > n && len + 8 <= size) tail = new Uint8Array(await blob.slice(size - len - 8).arrayBuffer());
  return tail;
}

/**
 * The whole-file sync reader decodes every column, so it pays off only when the
 * columns asked for are most of the columns and most of the bytes; otherwise the
 * async reader fetches and decodes just their chunks. Counting bytes matters:
 * 4 of partsupp's 6 columns are 21% of its bytes (ps_comment is the rest), and
 * reading the whole 58 MB file for them made those scans cost ten times what the
 * projected read does. Counting columns matters too: o_comment is most of
 * orders' bytes, but the sync reader would decode all 10 columns for a query's 3.
 */
const WHOLE_MIN_COLUMNS = 0.6;
const WHOLE_MIN_BYTES = 0.7;

/**
 * Whether reading columns `names` of row groups `rowGroups` (all when undefined)
 * should decode the whole file; true also when the footer cannot be read. A task
 * over a few row groups of a large file reads them projected.
 */
function readsWhole(path: string, footer: Uint8Array, names: readonly string[], rowGroups: readonly number[] | undefined): boolean {
  const groups = cachedFooterRowGroups(path, footer);
  if (groups === undefined || groups.length === 0) return true;
  const wanted = new Set(names);
  const reading = rowGroups === undefined ? undefined : new Set(rowGroups);
  // The whole-file read fetches every row group, so the share is of the file's bytes.
  let file = 0;
  let some = 0;
  for (let g = 0; g < groups.length; g++) {
    for (const [name, c] of groups[g]!.chunks) {
      file += c.compressedBytes;
      if (wanted.has(name) && (reading === undefined || reading.has(g))) some += c.compressedBytes;
    }
  }
  const width = groups[0]!.chunks.size;
  return names.length > width * WHOLE_MIN_COLUMNS && some > file * WHOLE_MIN_BYTES;
}

/**
 * Decodes the top-level, flat columns `names` of a file (names the file lacks are left
 * out). Only those columns are read and decoded unless they are most of the file
 * (readsWhole); then the whole file is (sync reader). `path` names the
 * file in errors and keys its parsed footer.
 */
export async function decodeParquetColumns(
  source: ParquetSource, path: string, names: readonly string[], rowGroups?: readonly number[], form?: DecodeForm,
): Promise<RecordBatch[]> {
  return readColumns(source, path, names, rowGroups, copiedBatches, copyBatch, undefined, form);
}

/**
 * decodeParquetColumns, keeping of each decoded batch only what `cut` chooses: it reads
 * the batch where it lies in WASM memory, so a scan keeping 2% of a table copies
 * 2% of its bytes, not all of them and then the kept rows again (copySelected).
 */
export async function decodeParquetSelected(
  source: ParquetSource, path: string, names: readonly string[], rowGroups: readonly number[] | undefined, cut: ViewCut, late?: LateCut, form?: DecodeForm,
): Promise<SelectedBatch[]> {
  const keep = (view: RecordBatch): SelectedBatch | undefined => {
    const { batch, rows } = cut(view);
    return rows === undefined || rows.length > 0 ? copySelected(batch, rows) : undefined;
  };
  const lateColumns: LateColumns<SelectedBatch> | undefined = late === undefined ? undefined : {
    reads: late.reads,
    ...(late.byCode === undefined ? {} : { byCode: late.byCode }),
    choose: (view) => late.pick(late.conform(view)),
    keepChosen: (batch) => ({ batch: late.conform(batch), rows: undefined }),
    keepAll: (view, rows) => copySelected(late.conform(view), rows),
  };
  return readColumns(source, path, names, rowGroups, (t) => cutBatches(t, cut, keep), keep, lateColumns, form);
}

/**
 * `cut` in two steps, for the JS reader: `conform` shapes a decoded batch as the
 * caller wants it (only reading it), `pick` chooses its rows reading only the
 * columns `reads` names (as the file does), so the others can be decoded after it,
 * at the rows it keeps.
 */
export interface LateCut {
  readonly reads: ReadonlySet<string>;
  /** Of `reads`, text columns `pick` may read by dictionary code (see LateColumns.byCode). */
  readonly byCode?: ReadonlyMap<string, boolean>;
  conform(view: RecordBatch): RecordBatch;
  pick(batch: RecordBatch): Int32Array | undefined;
}

async function readColumns<T>(
  source: ParquetSource, path: string, names: readonly string[], rowGroups: readonly number[] | undefined,
  out: (t: pq.Table) => T[], keep: (view: RecordBatch) => T | undefined, late?: LateColumns<T>, form?: DecodeForm,
): Promise<T[]> {
  const whole = async (): Promise<Uint8Array> => source.bytes ?? new Uint8Array(await source.blob!.arrayBuffer());
  if (rowGroups !== undefined && rowGroups.length === 0) return [];
  if (names.length > 0) {
    const kept = await readColumnsInJs(source, path, names, rowGroups, keep, undefined, late, form);
    if (kept !== undefined) return kept;
  }
  if (names.length === 0 || readsWhole(path, source.footer, names, rowGroups)) return out(readWhole(await whole(), path, rowGroups));
  let file: pq.ParquetFile;
  try {
    // parquet-wasm only calls size/slice/arrayBuffer on the handle, so a ByteSource serves.
    file = await pq.ParquetFile.fromFile((source.blob ?? new Blob([source.bytes!])) as Blob);
  } catch (e) {
    throw new FloeError(SqlState.dataCorrupted, `could not read data file "${path}": ${(e as Error).message ?? String(e)}`, { cause: e });
  }
  try {
    const schema = file.schema();
    let present: string[];
    try {
      present = names.filter((n) => { try { return schema.indexOf(n) >= 0; } catch { return false; } });
    } finally {
      schema.free();
    }
    if (present.length === 0) return out(readWhole(await whole(), path, rowGroups));
    let wasmTable: pq.Table;
    try {
      wasmTable = await file.read({ columns: present, batchSize: ROW_GROUP_ROWS, ...(rowGroups === undefined ? {} : { rowGroups: [...rowGroups] }) });
    } catch (e) {
      throw new FloeError(SqlState.dataCorrupted, `could not read data file "${path}": ${(e as Error).message ?? String(e)}`, { cause: e });
    }
    return out(wasmTable);
  } finally {
    file.free();
  }
}

/**
 * What to keep of a decoded batch still viewing WASM memory: the columns (a batch
 * over the view's data, e.g. some of its columns) and the rows (ascending; undefined
 * keeps all). It must only read the view and keep nothing of it.
 */
export type ViewCut = (view: RecordBatch) => SelectedBatch;

/** Copies a WASM table out as Arrow JS batches and frees it. */
function copiedBatches(wasmTable: pq.Table): RecordBatch[] {
  const ffi = wasmTable.intoFFI();
  try {
    return parseTable(pq.wasmMemory().buffer, ffi.arrayAddrs(), ffi.schemaAddr(), true).batches;
  } finally {
    ffi.drop();
  }
}

/**
 * Copies out of a WASM table what `keep` (`cut`, then the copy) keeps of each batch,
 * then frees it. Nothing calls into WASM until the copies are made, so the views stay valid.
 */
function cutBatches(wasmTable: pq.Table, cut: ViewCut, keep: (view: RecordBatch) => SelectedBatch | undefined): SelectedBatch[] {
  const ffi = wasmTable.intoFFI();
  try {
    const views = wasmBatchViews(pq.wasmMemory().buffer, ffi.arrayAddrs(), ffi.schemaAddr());
    if (views === undefined) {
      // Types the views cannot size: copied out first, then cut, the rows left a selection.
      const copied = parseTable(pq.wasmMemory().buffer, ffi.arrayAddrs(), ffi.schemaAddr(), true).batches as RecordBatch[];
      return copied.map(cut).filter(({ rows }) => rows === undefined || rows.length > 0);
    }
    const out: SelectedBatch[] = [];
    for (const view of views) {
      const kept = keep(view);
      if (kept !== undefined) out.push(kept);
    }
    return out;
  } finally {
    ffi.drop();
  }
}

function readWhole(bytes: Uint8Array, path: string, rowGroups: readonly number[] | undefined): pq.Table {
  try {
    return pq.readParquet(bytes, { batchSize: ROW_GROUP_ROWS, ...(rowGroups === undefined ? {} : { rowGroups: [...rowGroups] }) });
  } catch (e) {
    throw new FloeError(SqlState.dataCorrupted, `could not read data file "${path}": ${(e as Error).message ?? String(e)}`, { cause: e });
  }
}

/** Decodes a whole file; `path` only names the file in errors. */
export function decodeParquet(bytes: Uint8Array, path: string, projection?: readonly string[], rowGroups?: readonly number[]): RecordBatch[] {
  if (rowGroups !== undefined && rowGroups.length === 0) return [];
  const batches = copiedBatches(readWhole(bytes, path, rowGroups));
  if (projection === undefined) return batches;
  const table = new Table(batches);
  const names = projection.filter((n) => table.schema.fields.some((f) => f.name === n));
  return table.select(names).batches;
}
