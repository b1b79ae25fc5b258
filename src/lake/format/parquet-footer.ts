/**
 * The Parquet footer (FileMetaData, Thrift compact protocol) read in JS: the flat
 * columns of the schema, the embedded Arrow schema, and the row groups with, per
 * column chunk, where its pages lie and its raw statistics. parquet-wasm exposes
 * row-group metadata but no statistics (shared/NOTES.md), and going through WASM for
 * a few fields costs more than reading them here. Decoding the statistics into SQL
 * values is the scan's job (lake/scan/row-group-stats.ts); decoding the pages is
 * parquet-pages.ts's.
 */
import { CompactReader, T_BINARY, T_FALSE, T_I32, T_I64, T_LIST, T_STRUCT, T_TRUE } from './thrift-compact.js';

/** One column chunk as the footer describes it. */
export interface FooterChunk {
  /** Parquet physical type (0 BOOLEAN, 1 INT32, 2 INT64, ...); -1 when absent. */
  readonly physical: number;
  /** total_compressed_size: the bytes a read of this chunk fetches. */
  readonly compressedBytes: number;
  /** Compression codec (0 UNCOMPRESSED, 7 LZ4_RAW, ...). */
  readonly codec: number;
  /** Where the chunk's first page starts: its dictionary page when it has one. */
  readonly firstPageOffset: number;
  /** max_value/min_value in the column's sort order, as stored. */
  readonly min: Uint8Array | undefined;
  readonly max: Uint8Array | undefined;
  readonly nullCount: number | undefined;
}

export interface FooterRowGroup {
  readonly numRows: number;
  /** By top-level column name (chunks of nested columns are left out). */
  readonly chunks: ReadonlyMap<string, FooterChunk>;
}

/** A top-level leaf column of the schema, as its SchemaElement declares it. */
export interface FooterColumn {
  readonly name: string;
  readonly physical: number;
  /** FIXED_LEN_BYTE_ARRAY's width; 0 otherwise. */
  readonly typeLength: number;
  /** 0 REQUIRED, 1 OPTIONAL, 2 REPEATED. */
  readonly repetition: number;
  /** The time unit of a TIME or TIMESTAMP column ('ms' | 'us' | 'ns'); undefined otherwise. */
  readonly timeUnit: 'ms' | 'us' | 'ns' | undefined;
}

export interface ParquetFooter {
  /** The top-level leaf columns by name; nested columns are left out. */
  readonly columns: ReadonlyMap<string, FooterColumn>;
  readonly rowGroups: readonly FooterRowGroup[];
  /** The `ARROW:schema` key's value (base64 Arrow IPC schema), when the writer kept one. */
  readonly arrowSchema: string | undefined;
}

/** The footer of a file (any tail of it holding the footer and the closing magic); undefined when it cannot be read. */
export function readFooter(bytes: Uint8Array): ParquetFooter | undefined {
  const n = bytes.length;
  if (n < 12 || bytes[n - 4] !== 0x50 || bytes[n - 3] !== 0x41 || bytes[n - 2] !== 0x52 || bytes[n - 1] !== 0x31) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = view.getUint32(n - 8, true);
  if (len + 8 > n) return undefined;
  try {
    return fileMetaData(new CompactReader(bytes, n - 8 - len));
  } catch {
    return undefined;
  }
}

/** The row groups of a footer; undefined when it cannot be read. */
export function readFooterRowGroups(bytes: Uint8Array): FooterRowGroup[] | undefined {
  return readFooter(bytes)?.rowGroups as FooterRowGroup[] | undefined;
}

/** Parsed footers by file: data files never change once written. */
const footerCache = new Map<string, ParquetFooter | undefined>();
const FOOTER_CACHE_FILES = 256;

/**
 * readFooter, remembered per file (`path` and the footer's length key it): a worker
 * runs several tasks over row-group ranges of the same base file, and parsing a large
 * footer (92 row groups × 17 columns for a lineitem file at SF 1) took longer than
 * the filter it serves.
 */
export function cachedFooter(path: string, footer: Uint8Array): ParquetFooter | undefined {
  const key = `${path}\0${footer.length}`;
  if (footerCache.has(key)) return footerCache.get(key);
  const parsed = readFooter(footer);
  if (footerCache.size >= FOOTER_CACHE_FILES) footerCache.delete(footerCache.keys().next().value!);
  footerCache.set(key, parsed);
  return parsed;
}

export function cachedFooterRowGroups(path: string, footer: Uint8Array): FooterRowGroup[] | undefined {
  return cachedFooter(path, footer)?.rowGroups as FooterRowGroup[] | undefined;
}

function fileMetaData(r: CompactReader): ParquetFooter {
  const groups: FooterRowGroup[] = [];
  let columns = new Map<string, FooterColumn>();
  let arrowSchema: string | undefined;
  r.struct((id, type) => {
    if (id === 2 && type === T_LIST) { columns = schemaColumns(r); return true; }
    if (id === 4 && type === T_LIST) { r.list(() => groups.push(rowGroup(r))); return true; }
    if (id === 5 && type === T_LIST) {
      r.list(() => {
        let key = '';
        let value: Uint8Array | undefined;
        r.struct((kid, ktype) => {
          if (kid === 1 && ktype === T_BINARY) { key = Buffer.from(r.binary()).toString('utf8'); return true; }
          if (kid === 2 && ktype === T_BINARY) { value = r.binary(); return true; }
          return false;
        });
        if (key === 'ARROW:schema' && value !== undefined) arrowSchema = Buffer.from(value).toString('utf8');
      });
      return true;
    }
    return false;
  });
  return { columns, rowGroups: groups, arrowSchema };
}

interface SchemaElement {
  name: string;
  physical: number;
  typeLength: number;
  repetition: number;
  children: number;
  convertedType: number;
  timeUnit: 'ms' | 'us' | 'ns' | undefined;
}

/** The root's direct children that are leaves; a group (nested column) and its subtree are skipped. */
function schemaColumns(r: CompactReader): Map<string, FooterColumn> {
  const elements: SchemaElement[] = [];
  r.list(() => elements.push(schemaElement(r)));
  const out = new Map<string, FooterColumn>();
  if (elements.length === 0) return out;
  let i = 1;
  for (let c = 0; c < elements[0]!.children && i < elements.length; c++) {
    const e = elements[i]!;
    if (e.children === 0) {
      const timeUnit = e.timeUnit ?? CONVERTED_TIME_UNITS.get(e.convertedType);
      out.set(e.name, { name: e.name, physical: e.physical, typeLength: e.typeLength, repetition: e.repetition, timeUnit });
    }
    i = afterSubtree(elements, i);
  }
  return out;
}

/** The index just past element `i` and all its descendants (the list is the schema tree in preorder). */
function afterSubtree(elements: readonly SchemaElement[], i: number): number {
  let pending = 1;
  while (pending > 0 && i < elements.length) {
    pending += elements[i]!.children - 1;
    i++;
  }
  return i;
}

// ConvertedType TIME_MILLIS 7, TIME_MICROS 8, TIMESTAMP_MILLIS 9, TIMESTAMP_MICROS 10.
const CONVERTED_TIME_UNITS = new Map<number, 'ms' | 'us'>([[7, 'ms'], [8, 'us'], [9, 'ms'], [10, 'us']]);

function schemaElement(r: CompactReader): SchemaElement {
  const e: SchemaElement = { name: '', physical: -1, typeLength: 0, repetition: 0, children: 0, convertedType: -1, timeUnit: undefined };
  r.struct((id, type) => {
    if (id === 1 && type === T_I32) { e.physical = r.int(); return true; }
    if (id === 2 && type === T_I32) { e.typeLength = r.int(); return true; }
    if (id === 3 && type === T_I32) { e.repetition = r.int(); return true; }
    if (id === 4 && type === T_BINARY) { e.name = Buffer.from(r.binary()).toString('utf8'); return true; }
    if (id === 5 && type === T_I32) { e.children = r.int(); return true; }
    if (id === 6 && type === T_I32) { e.convertedType = r.int(); return true; }
    if (id === 10 && type === T_STRUCT) { e.timeUnit = logicalTimeUnit(r); return true; }
    return false;
  });
  return e;
}

/** The unit of a TIME (7) or TIMESTAMP (8) LogicalType; undefined for any other logical type. */
function logicalTimeUnit(r: CompactReader): 'ms' | 'us' | 'ns' | undefined {
  let unit: 'ms' | 'us' | 'ns' | undefined;
  r.struct((id, type) => {
    if ((id !== 7 && id !== 8) || type !== T_STRUCT) return false;
    r.struct((tid, ttype) => {
      if (tid === 1 && (ttype === T_TRUE || ttype === T_FALSE)) return true;
      if (tid !== 2 || ttype !== T_STRUCT) return false;
      r.struct((uid, utype) => {
        if (utype !== T_STRUCT) return false;
        unit = uid === 1 ? 'ms' : uid === 2 ? 'us' : uid === 3 ? 'ns' : undefined;
        r.struct(() => false);
        return true;
      });
      return true;
    });
    return true;
  });
  return unit;
}

function rowGroup(r: CompactReader): FooterRowGroup {
  let numRows = 0;
  const chunks = new Map<string, FooterChunk>();
  r.struct((id, type) => {
    if (id === 1 && type === T_LIST) {
      r.list(() => {
        r.struct((cid, ctype) => {
          if (cid !== 3 || ctype !== T_STRUCT) return false;
          const m = columnMetaData(r);
          if (m !== undefined) chunks.set(m.name, m.chunk);
          return true;
        });
      });
      return true;
    }
    if (id === 3 && type === T_I64) { numRows = Number(r.long()); return true; }
    return false;
  });
  return { numRows, chunks };
}

function columnMetaData(r: CompactReader): { name: string; chunk: FooterChunk } | undefined {
  let physical = -1;
  let codec = -1;
  let compressedBytes = 0;
  let dataPageOffset = -1;
  let dictionaryPageOffset = -1;
  const path: string[] = [];
  let stats: { min?: Uint8Array; max?: Uint8Array; nullCount?: number } = {};
  r.struct((id, type) => {
    if (id === 1 && type === T_I32) { physical = r.int(); return true; }
    if (id === 3 && type === T_LIST) { r.list(() => path.push(Buffer.from(r.binary()).toString('utf8'))); return true; }
    if (id === 4 && type === T_I32) { codec = r.int(); return true; }
    if (id === 7 && type === T_I64) { compressedBytes = Number(r.long()); return true; }
    if (id === 9 && type === T_I64) { dataPageOffset = Number(r.long()); return true; }
    if (id === 11 && type === T_I64) { dictionaryPageOffset = Number(r.long()); return true; }
    if (id === 12 && type === T_STRUCT) {
      const s: { min?: Uint8Array; max?: Uint8Array; nullCount?: number } = {};
      r.struct((sid, stype) => {
        // 5/6 are max_value/min_value in the column's sort order; 1/2 (deprecated) are signed-byte ordered: not used.
        if (sid === 5 && stype === T_BINARY) { s.max = r.binary(); return true; }
        if (sid === 6 && stype === T_BINARY) { s.min = r.binary(); return true; }
        if (sid === 3 && stype === T_I64) { s.nullCount = Number(r.long()); return true; }
        return false;
      });
      stats = s;
      return true;
    }
    return false;
  });
  if (path.length !== 1) return undefined;
  // Some writers record a dictionary page offset of 0 for chunks without one; the first page is never at 0 (the magic is).
  const firstPageOffset = dictionaryPageOffset > 0 && dictionaryPageOffset < dataPageOffset ? dictionaryPageOffset : dataPageOffset;
  return { name: path[0]!, chunk: { physical, compressedBytes, codec, firstPageOffset, min: stats.min, max: stats.max, nullCount: stats.nullCount } };
}
