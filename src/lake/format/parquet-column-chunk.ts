import { DataType, Decimal as ArrowDecimal, Dictionary as ArrowDictionary, Int32, Type, makeData, makeVector } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import type { DecodeMemory } from './decode-memory.js';
import { decompressLz4Block, LZ4_SLACK } from './lz4-block.js';
import type { FooterColumn } from './parquet-footer.js';
import { decodeHybrid } from './rle-hybrid.js';
import { arrowDataAt, densePositions, widenDecimals } from './column-data-at-rows.js';
import { CompactReader, T_I32, T_STRUCT } from './thrift-compact.js';

/**
 * One column chunk of a Parquet file decoded in JS into Arrow data, for the chunks
 * Floe writes: data pages v1, PLAIN or dictionary-encoded values, flat columns,
 * uncompressed or LZ4_RAW. Anything else throws UnsupportedParquet and the file is
 * read through parquet-wasm instead.
 *
 * Why not parquet-wasm for these too: it spent ~35 ns a value decoding lineitem's
 * fixed-width columns (arrow-rs's decode, the FFI export, the copy out of WASM
 * memory), uncompressed or not. Here an uncompressed PLAIN page of a required
 * column is one copy into the Arrow buffer.
 */
export class UnsupportedParquet extends Error {}

// Parquet physical types.
const BOOLEAN = 0, INT32 = 1, INT64 = 2, FLOAT = 4, DOUBLE = 5, BYTE_ARRAY = 6, FIXED_LEN_BYTE_ARRAY = 7;
// Compression codecs.
export const UNCOMPRESSED = 0, LZ4_RAW = 7;
// Page types and encodings.
const DATA_PAGE = 0, INDEX_PAGE = 1, DICTIONARY_PAGE = 2;
const PLAIN = 0, PLAIN_DICTIONARY = 2, RLE = 3, RLE_DICTIONARY = 8;

/** How a chunk's physical values become the Arrow column's buffers. */
export type Target =
  /** The Arrow layout is the physical one (INT32→Int32/Date32, INT64→Int64/Time64/Timestamp/Decimal64, FLOAT, DOUBLE, FLBA→FixedSizeBinary). */
  | { readonly kind: 'same'; readonly width: number }
  /** INT32 kept as Int8 or Int16. */
  | { readonly kind: 'narrow'; readonly bytes: 1 | 2 }
  /** INT32, INT64 or big-endian FLBA unscaled values widened to Decimal128. */
  | { readonly kind: 'decimal'; readonly width: number }
  | { readonly kind: 'bytes' }
  | { readonly kind: 'bool' };

const ARROW_TIME_UNITS = ['s', 'ms', 'us', 'ns'] as const;

/** How column `c` decodes into Arrow type `type`; undefined when this decoder does not handle the pair. */
export function targetOf(c: FooterColumn, type: DataType): Target | undefined {
  if (c.repetition === 2) return undefined;
  const p = c.physical;
  if (DataType.isInt(type)) {
    const t = type as unknown as { bitWidth: number; isSigned: boolean };
    if (!t.isSigned) return undefined;
    if (t.bitWidth === 64) return p === INT64 ? { kind: 'same', width: 8 } : undefined;
    if (p !== INT32) return undefined;
    return t.bitWidth === 32 ? { kind: 'same', width: 4 } : { kind: 'narrow', bytes: t.bitWidth === 16 ? 2 : 1 };
  }
  if (DataType.isFloat(type)) {
    const precision = (type as unknown as { precision: number }).precision;
    if (precision === 1 && p === FLOAT) return { kind: 'same', width: 4 };
    if (precision === 2 && p === DOUBLE) return { kind: 'same', width: 8 };
    return undefined;
  }
  if (DataType.isDate(type)) return (type as unknown as { unit: number }).unit === 0 && p === INT32 ? { kind: 'same', width: 4 } : undefined;
  if (DataType.isTime(type) || DataType.isTimestamp(type)) {
    const t = type as unknown as { unit: number; bitWidth?: number };
    if (DataType.isTime(type) && t.bitWidth !== 64) return undefined;
    return p === INT64 && c.timeUnit !== undefined && ARROW_TIME_UNITS[t.unit] === c.timeUnit ? { kind: 'same', width: 8 } : undefined;
  }
  if (DataType.isDecimal(type)) {
    const bitWidth = (type as unknown as { bitWidth: number }).bitWidth;
    // Decimal64 over INT64 is the stored unscaled value as it is (see narrowDecimals).
    if (bitWidth === 64) return p === INT64 ? { kind: 'same', width: 8 } : undefined;
    if (bitWidth !== 128) return undefined;
    if (p === INT32) return { kind: 'decimal', width: 4 };
    if (p === INT64) return { kind: 'decimal', width: 8 };
    if (p === FIXED_LEN_BYTE_ARRAY && c.typeLength >= 1 && c.typeLength <= 16) return { kind: 'decimal', width: c.typeLength };
    return undefined;
  }
  if (DataType.isFixedSizeBinary(type)) {
    return p === FIXED_LEN_BYTE_ARRAY && c.typeLength === (type as unknown as { byteWidth: number }).byteWidth ? { kind: 'same', width: c.typeLength } : undefined;
  }
  if (DataType.isUtf8(type) || DataType.isBinary(type)) return p === BYTE_ARRAY ? { kind: 'bytes' } : undefined;
  if (DataType.isBool(type)) return p === BOOLEAN ? { kind: 'bool' } : undefined;
  return undefined;
}

/** Decimal64 of `type`'s scale and precision, when `type` is Decimal128 over column `c`'s INT64 unscaled values; else undefined. */
export function decimal64Of(c: FooterColumn, type: DataType): DataType | undefined {
  if (c.physical !== INT64 || !DataType.isDecimal(type)) return undefined;
  const t = type as unknown as { scale: number; precision: number; bitWidth: number };
  return t.bitWidth === 128 && t.precision <= 18 ? new ArrowDecimal(t.scale, t.precision, 64) : undefined;
}

/** The byte width of a fixed-width physical value as it lies in a PLAIN page. */
function physicalWidth(c: FooterColumn): number {
  switch (c.physical) {
    case INT32: case FLOAT: return 4;
    case INT64: case DOUBLE: return 8;
    case FIXED_LEN_BYTE_ARRAY: return c.typeLength;
    default: return 0;
  }
}

interface PageHeader {
  type: number;
  uncompressedSize: number;
  compressedSize: number;
  numValues: number;
  encoding: number;
  levelEncoding: number;
  /** Where the page's bytes start, just past the header. */
  body: number;
}

function readPageHeader(buf: Uint8Array, at: number): PageHeader {
  const r = new CompactReader(buf, at);
  const h: PageHeader = { type: -1, uncompressedSize: 0, compressedSize: 0, numValues: 0, encoding: -1, levelEncoding: -1, body: 0 };
  r.struct((id, type) => {
    if (id === 1 && type === T_I32) { h.type = r.int(); return true; }
    if (id === 2 && type === T_I32) { h.uncompressedSize = r.int(); return true; }
    if (id === 3 && type === T_I32) { h.compressedSize = r.int(); return true; }
    if ((id === 5 || id === 7) && type === T_STRUCT) {
      // data_page_header {1 num_values, 2 encoding, 3 definition_level_encoding}; dictionary_page_header {1 num_values, 2 encoding}.
      r.struct((fid, ftype) => {
        if (ftype !== T_I32) return false;
        if (fid === 1) { h.numValues = r.int(); return true; }
        if (fid === 2) { h.encoding = r.int(); return true; }
        if (fid === 3 && id === 5) { h.levelEncoding = r.int(); return true; }
        return false;
      });
      return true;
    }
    return false;
  });
  h.body = r.pos;
  return h;
}

/** A page's values decoded so far, densely (nulls not yet placed), in physical form. */
export class DenseValues {
  count = 0;
  /** Fixed-width values, `width` bytes each. */
  fixed: Uint8Array;
  /** BYTE_ARRAY values: offsets (count + 1 used) into `bytes`. */
  offsets: Int32Array;
  bytes: Uint8Array;
  bytesUsed = 0;
  /** BOOLEAN values, one byte (0 or 1) each. */
  flags: Uint8Array;
  /** Dictionary-encoded byte arrays kept as their indices (decoding at some rows only). */
  byIndex: Int32Array | undefined = undefined;

  /** Buffers come from `memory` under roles starting with `role`. */
  constructor(readonly width: number, capacity: number, physical: number, readonly memory: DecodeMemory, readonly role: string) {
    this.fixed = memory.take(`${role}fixed`, width > 0 ? capacity * width : 0);
    this.offsets = int32s(memory.take(`${role}offsets`, physical === BYTE_ARRAY ? 4 * (capacity + 1) : 0));
    this.offsets[0] = 0;
    this.bytes = memory.take(`${role}bytes`, physical === BYTE_ARRAY ? 1024 : 0);
    this.flags = memory.take(`${role}flags`, physical === BOOLEAN ? capacity : 0);
  }

  /** Room for `more` bytes, and WORD_SLACK past them for copies a word at a time. */
  reserveBytes(more: number): void {
    if (this.bytesUsed + more + WORD_SLACK <= this.bytes.length) return;
    this.bytes = this.memory.grow(`${this.role}bytes`, Math.max(this.bytes.length * 2, this.bytesUsed + more + WORD_SLACK), this.bytesUsed);
  }
}

/** A dictionary page's values: fixed-width bytes, or byte arrays with their offsets. */
export interface Dictionary {
  readonly count: number;
  readonly fixed: Uint8Array;
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
}

/**
 * Decodes column chunk `chunk` (its bytes, exactly) of `rows` rows into Arrow data
 * of `type`, in `memory` under roles starting with `role`. `codec` is the chunk's
 * compression.
 *
 * With `at` (ascending rows of the chunk), only those rows, in new memory of their
 * own: values are converted (decimals) and strings gathered from their dictionary for
 * them alone. Undefined when the chunk cannot be read so (dictionary pages that fall
 * back to PLAIN): the caller decodes it whole.
 */
export function decodeColumnChunk(chunk: Uint8Array, codec: number, column: FooterColumn, type: DataType, rows: number, memory: DecodeMemory, role: string): Data;
export function decodeColumnChunk(
  chunk: Uint8Array, codec: number, column: FooterColumn, type: DataType, rows: number, memory: DecodeMemory, role: string, at: Int32Array,
): Data | undefined;
export function decodeColumnChunk(
  chunk: Uint8Array, codec: number, column: FooterColumn, type: DataType, rows: number, memory: DecodeMemory, role: string, at?: Int32Array,
): Data | undefined {
  return decodeChunk(chunk, codec, column, type, rows, memory, role, at, false);
}

/**
 * A text column chunk whose values are all dictionary-encoded and none NULL, as an
 * Arrow Dictionary (Int32 indices into the chunk's Utf8 dictionary) viewing `memory`:
 * no string is copied. For a column that only a filter reads, which can then test each
 * dictionary value once. Undefined for any other chunk: the caller decodes it whole.
 */
export function decodeDictionaryCodes(
  chunk: Uint8Array, codec: number, column: FooterColumn, type: DataType, rows: number, memory: DecodeMemory, role: string,
): Data | undefined {
  if (column.physical !== BYTE_ARRAY || type.typeId !== Type.Utf8) return undefined;
  return decodeChunk(chunk, codec, column, type, rows, memory, role, undefined, true);
}

function decodeChunk(
  chunk: Uint8Array, codec: number, column: FooterColumn, type: DataType, rows: number, memory: DecodeMemory, role: string,
  at: Int32Array | undefined, codes: boolean,
): Data | undefined {
  const target = targetOf(column, type);
  if (target === undefined) throw new UnsupportedParquet(`column ${column.name}: physical type ${column.physical} as ${String(type)}`);
  if (codec !== UNCOMPRESSED && codec !== LZ4_RAW) throw new UnsupportedParquet(`codec ${codec}`);
  const width = physicalWidth(column);
  const dense = new DenseValues(width, rows, column.physical, memory, role);
  const optional = column.repetition === 1;
  // Definition levels of every row; only kept once a page has a null.
  let levels: Int32Array | undefined;
  let dictionary: Dictionary | undefined;
  let indices: Int32Array | undefined;
  let row = 0;
  let pos = 0;
  while (row < rows && pos < chunk.length) {
    const h = readPageHeader(chunk, pos);
    const end = h.body + h.compressedSize;
    if (h.compressedSize < 0 || end > chunk.length) throw new Error('page overruns its column chunk');
    pos = end;
    if (h.type === INDEX_PAGE) continue;
    if (h.type !== DATA_PAGE && h.type !== DICTIONARY_PAGE) throw new UnsupportedParquet(`page type ${h.type}`);
    let page: Uint8Array;
    if (codec === UNCOMPRESSED) page = chunk.subarray(h.body, end);
    else {
      // A dictionary outlives its page, so it gets its own buffer; data pages reuse one.
      const out = memory.take(h.type === DICTIONARY_PAGE ? `${role}dictionary-page` : `${role}page`, h.uncompressedSize + LZ4_SLACK);
      if (decompressLz4Block(chunk, h.body, end, out, h.uncompressedSize) !== h.uncompressedSize) throw new Error('LZ4 page decompressed to the wrong size');
      page = out.subarray(0, h.uncompressedSize);
    }
    if (h.type === DICTIONARY_PAGE) {
      if (h.encoding !== PLAIN && h.encoding !== PLAIN_DICTIONARY) throw new UnsupportedParquet(`dictionary encoding ${h.encoding}`);
      dictionary = readDictionary(page, h.numValues, column.physical, width, memory, `${role}dictionary-`);
      // Strings read at a few rows keep their dictionary indices; only those rows' bytes are copied.
      if ((at !== undefined || codes) && column.physical === BYTE_ARRAY) dense.byIndex = int32s(memory.take(`${role}dense-indices`, 4 * rows));
      continue;
    }
    const pageRows = Math.min(h.numValues, rows - row);
    let p = 0;
    let present = pageRows;
    if (optional) {
      if (h.levelEncoding !== RLE) throw new UnsupportedParquet(`definition level encoding ${h.levelEncoding}`);
      const length = readU32(page, 0);
      p = 4 + length;
      if (p > page.length) throw new Error('definition levels overrun their page');
      if (!allDefined(page, 4, p, pageRows)) {
        levels ??= int32s(memory.take(`${role}levels`, 4 * rows)).fill(1, 0, row);
        if (decodeHybrid(page, 4, p, 1, pageRows, levels, row) !== pageRows) throw new Error('definition levels end early');
        present = 0;
        for (let i = row; i < row + pageRows; i++) present += levels[i]!;
      } else if (levels !== undefined) levels.fill(1, row, row + pageRows);
    }
    if (h.encoding === PLAIN) {
      if (dense.byIndex !== undefined || codes) return undefined;
      readPlain(page, p, present, column.physical, dense);
    } else if (h.encoding === RLE_DICTIONARY || h.encoding === PLAIN_DICTIONARY) {
      if (dictionary === undefined) throw new Error('dictionary-encoded page without a dictionary');
      const bitWidth = page[p]!;
      if (dense.byIndex !== undefined) {
        const ids = dense.byIndex;
        const from = dense.count;
        if (decodeHybrid(page, p + 1, page.length, bitWidth, present, ids, from) !== present) throw new Error('dictionary indices end early');
        checkDictionaryIndices(ids, from, from + present, dictionary.count);
        dense.count += present;
      } else {
        if (indices === undefined || indices.length < present) indices = int32s(memory.take(`${role}indices`, 4 * present));
        if (decodeHybrid(page, p + 1, page.length, bitWidth, present, indices) !== present) throw new Error('dictionary indices end early');
        gatherDictionary(dictionary, indices, present, column.physical, dense);
      }
    } else throw new UnsupportedParquet(`data page encoding ${h.encoding}`);
    row += pageRows;
  }
  if (row !== rows) throw new Error(`column chunk holds ${row} of its ${rows} rows`);
  if (codes) return levels === undefined && dictionary !== undefined ? dictionaryCodes(type, dictionary, dense.byIndex!, rows) : undefined;
  if (at !== undefined) return arrowDataAt(type, target, dense, levels, at, dictionary);
  return arrowData(type, target, dense, levels, rows, memory, role);
}

function dictionaryCodes(type: DataType, dictionary: Dictionary, codes: Int32Array, rows: number): Data {
  const values = makeData({ type, offset: 0, length: dictionary.count, nullCount: 0, valueOffsets: dictionary.offsets.subarray(0, dictionary.count + 1), data: dictionary.bytes } as never);
  return makeData({ type: new ArrowDictionary(type, new Int32()), offset: 0, length: rows, nullCount: 0, data: codes.subarray(0, rows), dictionary: makeVector(values) } as never);
}

function int32s(bytes: Uint8Array): Int32Array {
  return new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2);
}

function readU32(b: Uint8Array, at: number): number {
  if (at + 4 > b.length) throw new Error('page too short');
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}

/** Whether levels `[start, end)` are one RLE run of 1s covering all `rows` (no nulls): the common case, read without decoding. */
function allDefined(b: Uint8Array, start: number, end: number, rows: number): boolean {
  let header = 0;
  let shift = 0;
  let p = start;
  for (;;) {
    if (p >= end) return false;
    const x = b[p++]!;
    header += (x & 0x7f) * 2 ** shift;
    if ((x & 0x80) === 0) break;
    shift += 7;
  }
  return header % 2 === 0 && header / 2 >= rows && p < end && b[p] === 1;
}

function readDictionary(page: Uint8Array, count: number, physical: number, width: number, memory: DecodeMemory, role: string): Dictionary {
  const d = new DenseValues(width, count, physical, memory, role);
  readPlain(page, 0, count, physical, d);
  // bytes keeps its slack (not cut to bytesUsed): gathers read words past the last value.
  return { count, fixed: d.fixed, offsets: d.offsets, bytes: d.bytes };
}

/**
 * Byte strings up to this long are copied 4 bytes at a time through DataViews, which
 * may write up to WORD_SLACK bytes past the end (the next value overwrites them);
 * longer ones with one typed-array copy. Measured on 6M dictionary strings of 4–17
 * bytes: 25 ns a value against 65 copying byte by byte and 37 with a typed-array copy each.
 */
const SHORT_COPY = 64;
const WORD_SLACK = 4;

/** Appends `count` PLAIN values from `page[p…]` to `dense`. */
function readPlain(page: Uint8Array, p: number, count: number, physical: number, dense: DenseValues): void {
  if (physical === BYTE_ARRAY) {
    // Each value is a 4-byte length and its bytes: the page's remaining bytes bound the total.
    dense.reserveBytes(page.length - p);
    const offsets = dense.offsets;
    const bytes = dense.bytes;
    const to = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    const from = new DataView(page.buffer, page.byteOffset, page.length);
    let used = dense.bytesUsed;
    let k = dense.count;
    const end = page.length;
    for (let i = 0; i < count; i++) {
      if (p + 4 > end) throw new Error('byte array overruns its page');
      const len = from.getUint32(p, true);
      p += 4;
      if (p + len > end) throw new Error('byte array overruns its page');
      // A word read may not pass the page's end; values near it are copied byte by byte.
      if (len <= SHORT_COPY && p + len + WORD_SLACK <= end) for (let j = 0; j < len; j += 4) to.setUint32(used + j, from.getUint32(p + j, true), true);
      else if (len <= SHORT_COPY) for (let j = 0; j < len; j++) bytes[used + j] = page[p + j]!;
      else bytes.set(page.subarray(p, p + len), used);
      used += len;
      p += len;
      offsets[++k] = used;
    }
    dense.bytesUsed = used;
    dense.count = k;
    return;
  }
  if (physical === BOOLEAN) {
    if (p + ((count + 7) >> 3) > page.length) throw new Error('boolean values overrun their page');
    const flags = dense.flags;
    for (let i = 0; i < count; i++) flags[dense.count + i] = (page[p + (i >> 3)]! >> (i & 7)) & 1;
    dense.count += count;
    return;
  }
  const bytes = count * dense.width;
  if (p + bytes > page.length) throw new Error('values overrun their page');
  dense.fixed.set(page.subarray(p, p + bytes), dense.count * dense.width);
  dense.count += count;
}

/**
 * Throws unless ids[start, end) all lie below `size`. In locals and without a branch
 * per value: read through objects, the check cost a third of a filter-only column's decode.
 */
function checkDictionaryIndices(ids: Int32Array, start: number, end: number, size: number): void {
  let over = 0;
  for (let i = start; i < end; i++) over |= +(ids[i]! >= size);
  if (over !== 0) throw new Error('dictionary index out of range');
}

function gatherDictionary(dict: Dictionary, indices: Int32Array, count: number, physical: number, dense: DenseValues): void {
  checkDictionaryIndices(indices, 0, count, dict.count);
  if (physical === BYTE_ARRAY) gatherByteArrays(dict.offsets, dict.bytes, indices, count, dense);
  else if (physical === BOOLEAN) throw new UnsupportedParquet('dictionary-encoded booleans');
  else gatherFixed(dict, indices, count, dense);
}

function gatherByteArrays(from: Int32Array, source: Uint8Array, indices: Int32Array, count: number, dense: DenseValues): void {
  let need = 0;
  for (let i = 0; i < count; i++) { const x = indices[i]!; need += from[x + 1]! - from[x]!; }
  dense.reserveBytes(need);
  const offsets = dense.offsets;
  const bytes = dense.bytes;
  const to = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  // The dictionary's own bytes have WORD_SLACK spare bytes past its last value (DenseValues).
  const at = new DataView(source.buffer, source.byteOffset, source.length);
  let used = dense.bytesUsed;
  let k = dense.count;
  for (let i = 0; i < count; i++) {
    const x = indices[i]!;
    const s = from[x]!;
    const len = from[x + 1]! - s;
    if (len <= SHORT_COPY) for (let j = 0; j < len; j += 4) to.setUint32(used + j, at.getUint32(s + j, true), true);
    else bytes.set(source.subarray(s, s + len), used);
    used += len;
    offsets[++k] = used;
  }
  dense.bytesUsed = used;
  dense.count = k;
}

function gatherFixed(dict: Dictionary, indices: Int32Array, count: number, dense: DenseValues): void {
  const w = dense.width;
  const at = dense.count;
  if (w === 4 || w === 8) {
    const words = w >> 2;
    const src = new Int32Array(dict.fixed.buffer, dict.fixed.byteOffset, dict.count * words);
    const dst = new Int32Array(dense.fixed.buffer, dense.fixed.byteOffset + at * w, count * words);
    if (words === 1) for (let i = 0; i < count; i++) dst[i] = src[indices[i]!]!;
    else for (let i = 0; i < count; i++) { const x = indices[i]! * 2; dst[2 * i] = src[x]!; dst[2 * i + 1] = src[x + 1]!; }
  } else {
    for (let i = 0; i < count; i++) dense.fixed.set(dict.fixed.subarray(indices[i]! * w, indices[i]! * w + w), (at + i) * w);
  }
  dense.count += count;
}

const mk = makeData as unknown as (props: Record<string, unknown>) => Data;

/** The Arrow column: dense values placed at their rows (nulls zeroed) and converted to the Arrow layout. */
function arrowData(type: DataType, target: Target, dense: DenseValues, levels: Int32Array | undefined, rows: number, memory: DecodeMemory, role: string): Data {
  let nullBitmap: Uint8Array | undefined;
  let nullCount = 0;
  if (levels !== undefined) {
    nullBitmap = memory.take(`${role}validity`, (rows + 7) >> 3).fill(0);
    for (let i = 0; i < rows; i++) {
      if (levels[i] === 1) nullBitmap[i >> 3]! |= 1 << (i & 7);
      else nullCount++;
    }
  }
  if (nullCount === 0) { levels = undefined; nullBitmap = undefined; }
  const base = { type, offset: 0, length: rows, nullCount, nullBitmap };
  switch (target.kind) {
    case 'bytes': {
      let offsets = dense.offsets;
      if (levels !== undefined) {
        const placed = int32s(memory.take(`${role}placed`, 4 * (rows + 1)));
        placed[0] = 0;
        let j = 0;
        for (let i = 0; i < rows; i++) {
          if (levels[i] === 1) j++;
          placed[i + 1] = dense.offsets[j]!;
        }
        offsets = placed;
      }
      return mk({ ...base, valueOffsets: offsets.subarray(0, rows + 1), data: dense.bytes.subarray(0, dense.bytesUsed) });
    }
    case 'bool': {
      const bits = memory.take(`${role}out`, (rows + 7) >> 3).fill(0);
      let j = 0;
      for (let i = 0; i < rows; i++) {
        if (levels !== undefined && levels[i] !== 1) continue;
        if (dense.flags[j++]) bits[i >> 3]! |= 1 << (i & 7);
      }
      return mk({ ...base, data: bits });
    }
    case 'same': {
      const w = target.width;
      const values = dense.fixed;
      if (levels !== undefined) placeInPlace(values, w, levels, rows, dense.count);
      const ArrayType = (type as unknown as { ArrayType: new (b: ArrayBufferLike, o: number, n: number) => ArrayLike<unknown> }).ArrayType;
      const per = (ArrayType as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
      return mk({ ...base, data: new ArrayType(values.buffer, values.byteOffset, (rows * w) / per) });
    }
    case 'narrow': {
      const src = new Int32Array(dense.fixed.buffer, dense.fixed.byteOffset, dense.count);
      const bytes = memory.take(`${role}out`, rows * target.bytes);
      const out = target.bytes === 2 ? new Int16Array(bytes.buffer, 0, rows) : new Int8Array(bytes.buffer, 0, rows);
      let j = 0;
      for (let i = 0; i < rows; i++) out[i] = levels === undefined || levels[i] === 1 ? src[j++]! : 0;
      return mk({ ...base, data: out });
    }
    case 'decimal':
      return mk({ ...base, data: decimal128(dense, target.width, levels, rows, memory.take(`${role}out`, rows * 16)) });
  }
}

/** Moves dense `w`-byte values to their rows, from the back so that none is overwritten before it moves. */
function placeInPlace(values: Uint8Array, w: number, levels: Int32Array, rows: number, count: number): void {
  let j = count - 1;
  if (w === 4 || w === 8) {
    const words = w >> 2;
    const v = new Int32Array(values.buffer, values.byteOffset, rows * words);
    for (let i = rows - 1; i >= 0; i--) {
      if (levels[i] === 1) {
        for (let k = words - 1; k >= 0; k--) v[i * words + k] = v[j * words + k]!;
        j--;
      } else for (let k = 0; k < words; k++) v[i * words + k] = 0;
    }
    return;
  }
  for (let i = rows - 1; i >= 0; i--) {
    if (levels[i] === 1) { values.copyWithin(i * w, j * w, j * w + w); j--; } else values.fill(0, i * w, i * w + w);
  }
}

/** Unscaled decimals (little-endian INT32/INT64, or big-endian two's complement of `width` bytes) as Decimal128 words. */
function decimal128(dense: DenseValues, width: number, levels: Int32Array | undefined, rows: number, target: Uint8Array): Uint32Array {
  const out = int32s(target);
  if (width === 8 && levels === undefined) {
    // The common case (numeric(p ≤ 18) without NULLs) in its own loop: no per-row branches.
    const src = dense.fixed;
    const words = new Int32Array(src.buffer, src.byteOffset, rows * 2);
    for (let i = 0, k = 0, o = 0; i < rows; i++, k += 2, o += 4) {
      const hi = words[k + 1]!;
      const sign = hi >> 31;
      out[o] = words[k]!;
      out[o + 1] = hi;
      out[o + 2] = sign;
      out[o + 3] = sign;
    }
  } else widenDecimals(dense.fixed, dense.count, width, levels === undefined ? undefined : densePositions(levels, undefined, rows), rows, out);
  return new Uint32Array(target.buffer, target.byteOffset, rows * 4);
}
