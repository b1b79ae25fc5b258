import { tableFromIPC } from 'apache-arrow';
import type { Data, Field, RecordBatch, Schema } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { batchFromData } from '../arrow/batch-builder.js';
import { acquireDecodeMemory, releaseDecodeMemory } from './decode-memory.js';
import type { DecodeMemory } from './decode-memory.js';
import { decodeColumnChunk, LZ4_RAW, targetOf, UNCOMPRESSED, UnsupportedParquet } from './parquet-column-chunk.js';
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
  memory?: DecodeMemory,
): Promise<T[] | undefined> {
  const footer = cachedFooter(path, source.footer);
  if (footer === undefined) return undefined;
  const schema = arrowSchemaOf(footer);
  if (schema === undefined) return undefined;
  const columns: { column: FooterColumn; field: Field }[] = [];
  for (const name of names) {
    const column = footer.columns.get(name);
    const field = schema.fields.find((f) => f.name === name);
    if (column === undefined || field === undefined) continue;
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
  const using = memory ?? acquireDecodeMemory();
  try {
    for (const g of groups) {
      const group = footer.rowGroups[g]!;
      if (group.numRows === 0) continue;
      const chunks = columns.map(({ column }) => group.chunks.get(column.name)!);
      const bytes = await readChunks(source, chunks, using);
      let children: Data[];
      try {
        children = columns.map(({ column, field }, i) => decodeColumnChunk(bytes[i]!, chunks[i]!.codec, column, field.type, group.numRows, using, `${i}:`));
      } catch (e) {
        if (e instanceof UnsupportedParquet) return undefined;
        throw new FloeError(SqlState.dataCorrupted, `could not read data file "${path}": ${(e as Error).message ?? String(e)}`, { cause: e });
      }
      const out = keep(batchFromData(fields, children, group.numRows));
      if (out !== undefined) kept.push(out);
    }
  } finally {
    if (memory === undefined) releaseDecodeMemory(using);
  }
  return kept;
}

/** The bytes of each chunk, reading neighbouring chunks in one go (into `memory` when the source can). */
async function readChunks(source: ChunkSource, chunks: readonly FooterChunk[], memory: DecodeMemory): Promise<Uint8Array[]> {
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
      span = memory.take(`read:${k}`, end - start);
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
