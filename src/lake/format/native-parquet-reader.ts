import { Field, makeData, tableFromIPC } from 'apache-arrow';
import type { Data, DataType, RecordBatch, Schema } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { batchFromData } from '../arrow/batch-builder.js';
import { GATHER_MAX_SHARE } from '../arrow/selected-batch.js';
import { takeData } from '../arrow/take-rows.js';
import { stringsAtRows } from './column-data-at-rows.js';
import { acquireDecodeMemory, releaseDecodeMemory } from './decode-memory.js';
import type { DecodeMemory } from './decode-memory.js';
import { decimal64Of, decodeColumnChunk, decodeDictionaryCodes, LZ4_RAW, targetOf, UNCOMPRESSED, UnsupportedParquet } from './parquet-column-chunk.js';
import { cachedFooter } from './parquet-footer.js';
import type { FooterChunk, FooterColumn, ParquetFooter } from './parquet-footer.js';

/** What the JS reader needs of a file: its bytes, or ranges of them read on demand. */
export interface ChunkSource {
  readonly bytes?: Uint8Array;
  readonly blob?: { slice(start: number, end: number): ChunkRange };
  readonly footer: Uint8Array;
}

/** A byte range of the file: read into a buffer of the reader's when it can be (no fresh memory), else as a new one. */
interface ChunkRange {
  arrayBuffer(): Promise<ArrayBuffer>;
  readInto?(target: Uint8Array): Promise<void>;
}

/** The Arrow schema each file was written with (the footer's `ARROW:schema`), parsed once per parsed footer. */
const arrowSchemas = new WeakMap<ParquetFooter, Schema | null>();

function arrowSchemaOf(footer: ParquetFooter): Schema | undefined {
  let schema = arrowSchemas.get(footer);
  if (schema === undefined) {
    schema = null;
    if (footer.arrowSchema !== undefined) {
      try {
        schema = tableFromIPC(Buffer.from(footer.arrowSchema, 'base64')).schema;
      } catch {
        schema = null;
      }
    }
    arrowSchemas.set(footer, schema);
  }
  return schema ?? undefined;
}

/** How a read may shape the values it decodes. */
export interface DecodeForm {
  /**
   * numeric(p ≤ 18) columns stored as INT64 decode as Arrow Decimal64 (the stored
   * values as they lie, 8 bytes a row) rather than widened to the file's Decimal128.
   * For query scans, whose readers take any Decimal width: widening cost 8 ns a value
   * and doubled the bytes every later copy moves (two numeric(15,2) columns a scan filters).
   * Merges and writers keep Decimal128, the type the table's files are written with.
   */
  readonly narrowDecimals?: boolean;
}

/** `field` as the read decodes it: Decimal64 for a narrowed numeric over INT64 (see DecodeForm). */
function formOf(field: Field, column: FooterColumn, form: DecodeForm | undefined): Field {
  const narrow = form?.narrowDecimals === true ? decimal64Of(column, field.type) : undefined;
  return narrow === undefined ? field : new Field(field.name, narrow, field.nullable, field.metadata);
}

/** Ranges of the file closer than this are read as one: a read costs more than the bytes between. */
const READ_GAP_BYTES = 64 * 1024;

/**
 * Columns `names` of row groups `rowGroups` (all when undefined), one batch per row
 * group, decoded in JS (parquet-column-chunk.ts); names the file lacks are left out.
 * Each batch views memory the next row group's decode reuses, so `keep` is given
 * each in turn and must copy what it keeps (undefined: nothing); the kept values are
 * returned. Undefined when the file is not one this reader handles (no Arrow schema
 * in the footer, a type or encoding it does not decode, none of the names present):
 * the caller reads it through parquet-wasm. `path` names the file in errors and keys
 * its parsed footer. `memory` is the thread's decode memory unless given.
 */
export async function readColumnsInJs<T>(
  source: ChunkSource, path: string, names: readonly string[], rowGroups: readonly number[] | undefined, keep: (view: RecordBatch) => T | undefined,
  memory?: DecodeMemory, late?: LateColumns<T>, form?: DecodeForm,
): Promise<T[] | undefined> {
  const footer = cachedFooter(path, source.footer);
  if (footer === undefined) return undefined;
  const schema = arrowSchemaOf(footer);
  if (schema === undefined) return undefined;
  const columns: { column: FooterColumn; field: Field }[] = [];
  for (const name of names) {
    const column = footer.columns.get(name);
    const stored = schema.fields.find((f) => f.name === name);
    if (column === undefined || stored === undefined) continue;
    const field = formOf(stored, column, form);
    if (targetOf(column, field.type) === undefined) return undefined;
    columns.push({ column, field });
  }
  if (columns.length === 0) return undefined;
  const groups = rowGroups ?? footer.rowGroups.map((_, i) => i);
  for (const g of groups) {
    const group = footer.rowGroups[g];
    if (group === undefined) throw new FloeError(SqlState.dataCorrupted, `could not read data file "${path}": it has no row group ${g}`);
    for (const { column } of columns) {
      const chunk = group.chunks.get(column.name);
      if (chunk === undefined || (chunk.codec !== UNCOMPRESSED && chunk.codec !== LZ4_RAW)) return undefined;
    }
  }
  const kept: T[] = [];
  const fields = columns.map(({ field }) => field);
  // Columns the late reader's choice does not read wait for its rows.
  const waiting = late === undefined ? [] : columns.flatMap((c, i) => (late.reads.has(c.column.name) ? [] : [i]));
  const first = late === undefined ? [] : columns.flatMap((c, i) => (late.reads.has(c.column.name) ? [i] : []));
  const using = memory ?? acquireDecodeMemory();
  try {
    for (const g of groups) {
      const group = footer.rowGroups[g]!;
      const n = group.numRows;
      if (n === 0) continue;
      const chunks = columns.map(({ column }) => group.chunks.get(column.name)!);
      const decode = (i: number, bytes: Uint8Array, at?: Int32Array | 'codes'): Data | undefined => {
        const { column, field } = columns[i]!;
        try {
          if (at === 'codes') return decodeDictionaryCodes(bytes, chunks[i]!.codec, column, field.type, n, using, `${i}:`);
          return at === undefined
            ? decodeColumnChunk(bytes, chunks[i]!.codec, column, field.type, n, using, `${i}:`)
            : decodeColumnChunk(bytes, chunks[i]!.codec, column, field.type, n, using, `${i}:`, at);
        } catch (e) {
          if (e instanceof UnsupportedParquet) throw e;
          throw new FloeError(SqlState.dataCorrupted, `could not read data file "${path}": ${(e as Error).message ?? String(e)}`, { cause: e });
        }
      };
      try {
        if (late === undefined || waiting.length === 0 || waiting.length === columns.length) {
          const bytes = await readChunks(source, chunks, using, 'read');
          const out = keep(batchFromData(fields, columns.map((_, i) => decode(i, bytes[i]!)!), n));
          if (out !== undefined) kept.push(out);
          continue;
        }
        const out = await readLate(n, first, waiting, chunks, fields, late, source, using, decode);
        if (out !== undefined) kept.push(out);
      } catch (e) {
        if (e instanceof UnsupportedParquet) return undefined;
        throw e;
      }
    }
  } finally {
    if (memory === undefined) releaseDecodeMemory(using);
  }
  return kept;
}

/**
 * A read that decodes the columns a row choice reads first, then the others at the
 * rows it keeps: when it keeps few, they are converted and copied for those rows alone.
 */
export interface LateColumns<T> {
  /** Columns (as the file names them) the choice reads. */
  readonly reads: ReadonlySet<string>;
  /**
   * Of those, text columns the choice may read as an Arrow Dictionary of their codes
   * (when the chunk allows; no string is built for it): true for a column the caller
   * keeps, whose strings are then built for the rows chosen (all of them when many),
   * false for one it drops after the choice, left NULL.
   */
  readonly byCode?: ReadonlyMap<string, boolean>;
  /**
   * The rows to keep (ascending; undefined: all) of a row group whose other columns
   * are stand-ins, all NULL: it must read none of them.
   */
  choose(view: RecordBatch): Int32Array | undefined;
  /** What is kept of a batch holding only the chosen rows, in buffers of its own. */
  keepChosen(batch: RecordBatch): T;
  /** What is kept of `view` (viewing decode memory) at `rows`: it must copy. */
  keepAll(view: RecordBatch, rows: Int32Array | undefined): T;
}

/** One row group read late (see LateColumns): columns `first` (indexes) decode before the choice, `waiting` after it; undefined when no row is kept. */
async function readLate<T>(
  n: number, first: readonly number[], waiting: readonly number[], chunks: readonly FooterChunk[], fields: readonly Field[], late: LateColumns<T>,
  source: ChunkSource, memory: DecodeMemory, decode: (i: number, bytes: Uint8Array, at?: Int32Array | 'codes') => Data | undefined,
): Promise<T | undefined> {
  const firstBytes = await readChunks(source, first.map((i) => chunks[i]!), memory, 'read');
  const children: Data[] = fields.map((f) => standIn(f.type, n));
  const choiceFields = [...fields];
  const coded: { i: number; k: number; kept: boolean }[] = [];
  first.forEach((i, k) => {
    const kept = late.byCode?.get(fields[i]!.name);
    const codes = kept === undefined ? undefined : decode(i, firstBytes[k]!, 'codes');
    if (codes !== undefined) {
      coded.push({ i, k, kept: kept! });
      choiceFields[i] = new Field(fields[i]!.name, codes.type, false, fields[i]!.metadata);
    }
    children[i] = codes ?? decode(i, firstBytes[k]!)!;
  });
  const rows = late.choose(batchFromData(choiceFields, children, n));
  if (rows !== undefined && rows.length === 0) return undefined;
  const few = rows !== undefined && rows.length <= n * GATHER_MAX_SHARE;
  for (const { i, k, kept } of coded) {
    // A dropped column is neither copied nor turned into strings; a kept one gets the
    // chosen rows' strings, or all of them by decoding its chunk again.
    if (!kept) children[i] = nullText(fields[i]!.type, n);
    else if (few) children[i] = stringsAtRows(children[i]!, rows);
    else children[i] = decode(i, firstBytes[k]!)!;
  }
  const lateBytes = await readChunks(source, waiting.map((i) => chunks[i]!), memory, 'late');
  if (few) {
    const chosen: (Data | undefined)[] = new Array(fields.length);
    for (const i of first) chosen[i] = coded.some((c) => c.i === i && c.kept) ? children[i]! : takeData(children[i]!, rows);
    waiting.forEach((i, k) => { chosen[i] = decode(i, lateBytes[k]!, rows) ?? takeData(decode(i, lateBytes[k]!)!, rows); });
    return late.keepChosen(batchFromData(fields, chosen as Data[], rows.length));
  }
  waiting.forEach((i, k) => { children[i] = decode(i, lateBytes[k]!)!; });
  return late.keepAll(batchFromData(fields, children, n), rows);
}

/** A column's stand-in until it is decoded: `n` NULLs of its type. */
function standIn(type: DataType, n: number): Data {
  return makeData({ type, length: n, nullCount: n, nullBitmap: new Uint8Array((n + 7) >> 3) } as never);
}

/** `n` NULLs of a Utf8 type, with the offsets a copy or a gather reads. */
function nullText(type: DataType, n: number): Data {
  return makeData({ type, length: n, nullCount: n, nullBitmap: new Uint8Array((n + 7) >> 3), valueOffsets: new Int32Array(n + 1), data: new Uint8Array(0) } as never);
}

/** The bytes of each chunk, reading neighbouring chunks in one go (into `memory` under roles `role:…` when the source can). */
async function readChunks(source: ChunkSource, chunks: readonly FooterChunk[], memory: DecodeMemory, role: string): Promise<Uint8Array[]> {
  const out: Uint8Array[] = new Array(chunks.length);
  if (source.bytes !== undefined) {
    chunks.forEach((c, i) => { out[i] = rangeOf(source.bytes!, c.firstPageOffset, c.compressedBytes); });
    return out;
  }
  const order = chunks.map((_, i) => i).sort((a, b) => chunks[a]!.firstPageOffset - chunks[b]!.firstPageOffset);
  let k = 0;
  while (k < order.length) {
    const start = chunks[order[k]!]!.firstPageOffset;
    let end = start + chunks[order[k]!]!.compressedBytes;
    let last = k;
    while (last + 1 < order.length && chunks[order[last + 1]!]!.firstPageOffset <= end + READ_GAP_BYTES) {
      last++;
      const c = chunks[order[last]!]!;
      end = Math.max(end, c.firstPageOffset + c.compressedBytes);
    }
    const range = source.blob!.slice(start, end);
    let span: Uint8Array;
    if (range.readInto !== undefined) {
      span = memory.take(`${role}:${k}`, end - start);
      await range.readInto(span);
    } else span = new Uint8Array(await range.arrayBuffer());
    for (let i = k; i <= last; i++) {
      const c = chunks[order[i]!]!;
      out[order[i]!] = rangeOf(span, c.firstPageOffset - start, c.compressedBytes);
    }
    k = last + 1;
  }
  return out;
}

function rangeOf(bytes: Uint8Array, start: number, length: number): Uint8Array {
  if (start < 0 || start + length > bytes.length) throw new Error('column chunk lies outside the file');
  return bytes.subarray(start, start + length);
}
