import { DataType } from 'apache-arrow';
import type { Data, RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { dataReader, isValidAt } from '../arrow/column-reader.js';
import { ByteSink } from './byte-sink.js';
import type { ColumnAccessor } from './column-accessor.js';
import { writeKeyValue } from './key-serializer.js';
import { murmur3Finish, murmur3Long, murmur3MixWord, murmur3Range } from './murmur3.js';

/**
 * The keys of a batch in one flat form, so that hashing and key equality run over
 * typed arrays with no per-row objects:
 *  - 'long': a single key column serialized as a 64-bit integer (ints, dates, times,
 *    timestamps, bool, oid): low and high words per row;
 *  - 'bytes': any other key: each row's serialization (key-serializer.ts; composite
 *    keys as length-prefixed concatenation) in one buffer with offsets.
 * hashes[i] is murmur3 of row i's serialization: Iceberg's hash, the bucket-tree hash.
 */
export interface EncodedKeys {
  readonly kind: 'long' | 'bytes';
  readonly length: number;
  readonly hashes: Uint32Array;
  readonly lo: Int32Array;
  readonly hi: Int32Array;
  readonly bytes: Uint8Array;
  readonly offsets: Int32Array;
}

const LONG_KINDS = new Set(['bool', 'int2', 'int4', 'int8', 'date', 'time', 'timestamp', 'timestamptz', 'timetz', 'oid', 'regclass', 'regtype', 'regproc', 'regprocedure']);

/** Whether keys of these types encode as 'long'. */
export function isLongKey(types: readonly SqlType[]): boolean {
  return types.length === 1 && LONG_KINDS.has(types[0]!.kind);
}

const EMPTY_I32 = new Int32Array(0);
const EMPTY_U8 = new Uint8Array(0);

export function encodeKeyBatch(batch: RecordBatch, keyColumns: readonly string[], types: readonly SqlType[]): EncodedKeys {
  return encodeKeyData(keyColumnData(batch, keyColumns), keyColumns, types, batch.numRows);
}

/** The batch's key columns, each as its one Data. */
export function keyColumnData(batch: RecordBatch, keyColumns: readonly string[]): Data[] {
  return keyColumns.map((name) => {
    const child = batch.getChild(name);
    if (child === null) throw new FloeError(SqlState.undefinedColumn, `key column "${name}" is missing from the batch`);
    return child.data.length === 1 ? child.data[0]! : concatError(name);
  });
}

function concatError(name: string): never {
  throw new FloeError(SqlState.internalError, `key column "${name}" of a RecordBatch has more than one chunk`);
}

export function encodeKeyData(datas: readonly Data[], names: readonly string[], types: readonly SqlType[], numRows: number): EncodedKeys {
  for (let c = 0; c < datas.length; c++) {
    const d = datas[c]!;
    if (d.nullCount > 0) {
      for (let i = 0; i < numRows; i++) {
        if (!isValidAt(d, i)) {
          throw new FloeError(SqlState.notNullViolation, `null value in column "${names[c]}" violates not-null constraint`, {
            detail: 'Primary key columns cannot be NULL.',
          });
        }
      }
    }
  }
  if (isLongKey(types)) {
    const words = longWords(datas[0]!, types[0]!, numRows);
    if (words !== undefined) {
      const { lo, hi } = words;
      const hashes = new Uint32Array(numRows);
      for (let i = 0; i < numRows; i++) hashes[i] = murmur3Long(lo[i]!, hi[i]!);
      return { kind: 'long', length: numRows, hashes, lo, hi, bytes: EMPTY_U8, offsets: EMPTY_I32 };
    }
    const reader = dataReader(datas[0]!, types[0]!);
    return encodeKeyAccessors(types, [reader], numRows, names);
  }
  const composite = datas.length > 1;
  if (composite && types.every((t) => LONG_KINDS.has(t.kind))) {
    const words = datas.map((d, c) => longWords(d, types[c]!, numRows));
    if (words.every((w): w is LongWords => w !== undefined)) return encodeLongComposite(words, numRows);
  }
  const sink = new ByteSink(Math.max(256, numRows * 12));
  const offsets = new Int32Array(numRows + 1);
  const writers = datas.map((d, c) => columnWriter(d, types[c]!, names[c]!));
  for (let i = 0; i < numRows; i++) {
    for (let c = 0; c < writers.length; c++) {
      if (composite) {
        const at = sink.reserveLength();
        writers[c]!(sink, i);
        sink.patchLength(at);
      } else {
        writers[c]!(sink, i);
      }
    }
    offsets[i + 1] = sink.pos;
  }
  return finishBytes(sink, offsets, numRows);
}

/**
 * Just the hashes of encodeKeyData's keys: for long-serialized keys (one column or several)
 * computed a word at a time with no key bytes built, else taken from the full encoding.
 * A merge-on-read scan hashes every base row but needs the bytes of only the few whose
 * hash a change row shares.
 */
export function hashKeyData(datas: readonly Data[], names: readonly string[], types: readonly SqlType[], numRows: number): Uint32Array {
  if (types.every((t) => LONG_KINDS.has(t.kind)) && datas.every((d) => d.nullCount === 0)) {
    const words = datas.map((d, c) => longWords(d, types[c]!, numRows));
    if (words.every((w): w is LongWords => w !== undefined)) {
      if (words.length === 1) {
        const { lo, hi } = words[0]!;
        const hashes = new Uint32Array(numRows);
        for (let i = 0; i < numRows; i++) hashes[i] = murmur3Long(lo[i]!, hi[i]!);
        return hashes;
      }
      return longCompositeHashes(words, numRows);
    }
  }
  return encodeKeyData(datas, names, types, numRows).hashes;
}

function longCompositeHashes(columns: readonly LongWords[], numRows: number): Uint32Array {
  const state = new Int32Array(numRows);
  for (const { lo, hi } of columns) {
    for (let i = 0; i < numRows; i++) state[i] = murmur3MixWord(murmur3MixWord(murmur3MixWord(state[i]!, LONG_LENGTH_WORD), lo[i]!), hi[i]!);
  }
  const hashes = new Uint32Array(numRows);
  const rowBytes = 12 * columns.length;
  for (let i = 0; i < numRows; i++) hashes[i] = murmur3Finish(state[i]!, rowBytes);
  return hashes;
}

/** A composite key column's 4-byte big-endian length prefix for an 8-byte long, as a little-endian word. */
const LONG_LENGTH_WORD = 0x08000000;

/**
 * A composite key whose columns all serialize as longs (the usual multi-int keys):
 * each row is, per column, the length prefix then the long's two words, 12 bytes
 * a column. Written and hashed a word at a time, column by column, with no per-row
 * serializer calls: the same bytes and hashes as the general path, several times faster.
 */
function encodeLongComposite(columns: readonly LongWords[], numRows: number): EncodedKeys {
  const stride = 3 * columns.length;
  const words = new Int32Array(numRows * stride);
  const state = new Int32Array(numRows);
  for (let c = 0; c < columns.length; c++) {
    const { lo, hi } = columns[c]!;
    for (let i = 0, at = 3 * c; i < numRows; i++, at += stride) {
      const l = lo[i]!;
      const h = hi[i]!;
      words[at] = LONG_LENGTH_WORD;
      words[at + 1] = l;
      words[at + 2] = h;
      state[i] = murmur3MixWord(murmur3MixWord(murmur3MixWord(state[i]!, LONG_LENGTH_WORD), l), h);
    }
  }
  const rowBytes = 4 * stride;
  const hashes = new Uint32Array(numRows);
  const offsets = new Int32Array(numRows + 1);
  for (let i = 0; i < numRows; i++) {
    hashes[i] = murmur3Finish(state[i]!, rowBytes);
    offsets[i + 1] = offsets[i]! + rowBytes;
  }
  return { kind: 'bytes', length: numRows, hashes, lo: EMPTY_I32, hi: EMPTY_I32, bytes: new Uint8Array(words.buffer), offsets };
}

/** The same encoding over canonical values (for callers without Arrow data). */
export function encodeKeyAccessors(types: readonly SqlType[], columns: readonly ColumnAccessor[], numRows: number, names?: readonly string[]): EncodedKeys {
  const name = (c: number) => names?.[c] ?? `key${c + 1}`;
  if (isLongKey(types)) {
    const sink = new ByteSink(8);
    const lo = new Int32Array(numRows);
    const hi = new Int32Array(numRows);
    const hashes = new Uint32Array(numRows);
    const col = columns[0]!;
    for (let i = 0; i < numRows; i++) {
      sink.pos = 0;
      writeKeyValue(sink, types[0]!, col.get(i), name(0));
      lo[i] = sink.view.getInt32(0, true);
      hi[i] = sink.view.getInt32(4, true);
      hashes[i] = murmur3Long(lo[i]!, hi[i]!);
    }
    return { kind: 'long', length: numRows, hashes, lo, hi, bytes: EMPTY_U8, offsets: EMPTY_I32 };
  }
  const sink = new ByteSink(Math.max(256, numRows * 12));
  const offsets = new Int32Array(numRows + 1);
  const composite = types.length > 1;
  for (let i = 0; i < numRows; i++) {
    for (let c = 0; c < types.length; c++) {
      if (composite) {
        const at = sink.reserveLength();
        writeKeyValue(sink, types[c]!, columns[c]!.get(i), name(c));
        sink.patchLength(at);
      } else {
        writeKeyValue(sink, types[c]!, columns[c]!.get(i), name(c));
      }
    }
    offsets[i + 1] = sink.pos;
  }
  return finishBytes(sink, offsets, numRows);
}

function finishBytes(sink: ByteSink, offsets: Int32Array, numRows: number): EncodedKeys {
  const bytes = sink.bytes.subarray(0, sink.pos);
  const hashes = new Uint32Array(numRows);
  for (let i = 0; i < numRows; i++) hashes[i] = murmur3Range(bytes, offsets[i]!, offsets[i + 1]!);
  return { kind: 'bytes', length: numRows, hashes, lo: EMPTY_I32, hi: EMPTY_I32, bytes, offsets };
}

interface LongWords {
  readonly lo: Int32Array;
  readonly hi: Int32Array;
}

/** Low/high words of a long-serialized key column read straight from Arrow buffers, or undefined for unusual layouts. */
function longWords(data: Data, type: SqlType, n: number): LongWords | undefined {
  const t = data.type as DataType;
  if (DataType.isDictionary(t)) return undefined; // values are dictionary indices
  const v = data.values as unknown;
  const lo = new Int32Array(n);
  const hi = new Int32Array(n);
  if (type.kind === 'bool' && DataType.isBool(t)) {
    const bits = v as Uint8Array;
    const off = data.offset;
    for (let i = 0; i < n; i++) lo[i] = (bits[(off + i) >> 3]! >> ((off + i) & 7)) & 1;
    return { lo, hi };
  }
  if (v instanceof BigInt64Array) {
    if ((DataType.isTime(t) || DataType.isTimestamp(t)) && (t as unknown as { unit: number }).unit !== 2) return undefined;
    if (v.byteOffset % 4 !== 0) return undefined;
    const w = new Int32Array(v.buffer, v.byteOffset, 2 * n);
    for (let i = 0; i < n; i++) {
      lo[i] = w[2 * i]!;
      hi[i] = w[2 * i + 1]!;
    }
    return { lo, hi };
  }
  if (v instanceof Int32Array || v instanceof Int16Array || v instanceof Int8Array) {
    if (DataType.isDate(t) && (t as unknown as { unit: number }).unit !== 0) return undefined;
    if (DataType.isTime(t)) return undefined;
    const unsigned = type.kind === 'oid' || type.kind === 'regclass' || type.kind === 'regtype' || type.kind === 'regproc' || type.kind === 'regprocedure';
    for (let i = 0; i < n; i++) {
      const x = v[i]!;
      lo[i] = x;
      hi[i] = unsigned ? 0 : x >> 31;
    }
    return { lo, hi };
  }
  return undefined;
}

type RowWriter = (sink: ByteSink, i: number) => void;

/** A writer of one key column's serialization from raw Arrow buffers, falling back to canonical values. */
function columnWriter(data: Data, type: SqlType, name: string): RowWriter {
  const t = data.type as DataType;
  if ((DataType.isUtf8(t) || DataType.isBinary(t)) && type.kind !== 'numeric' && type.kind !== 'uuid') {
    const bytes = data.values as Uint8Array;
    const offs = data.valueOffsets as Int32Array;
    if (type.kind === 'bpchar') {
      return (sink, i) => {
        let end = offs[i + 1]!;
        const start = offs[i]!;
        while (end > start && bytes[end - 1] === 0x20) end--;
        sink.append(bytes, start, end);
      };
    }
    return (sink, i) => sink.append(bytes, offs[i]!, offs[i + 1]!);
  }
  if (type.kind === 'uuid' && DataType.isFixedSizeBinary(t)) {
    const bytes = data.values as Uint8Array;
    return (sink, i) => sink.append(bytes, 16 * i, 16 * i + 16);
  }
  if (LONG_KINDS.has(type.kind)) {
    const words = longWords(data, type, data.length);
    if (words !== undefined) {
      const { lo, hi } = words;
      return (sink, i) => sink.long(lo[i]!, hi[i]!);
    }
  }
  if (type.kind === 'numeric' && DataType.isDecimal(t)) {
    const w = data.values as Uint32Array;
    // Decimal64 (a scan's narrowed numeric) hashes as the same value widened to Decimal128.
    if ((t as unknown as { bitWidth: number }).bitWidth === 64) return (sink, i) => writeDecimalWords(sink, widened(w, i), 0);
    return (sink, i) => writeDecimalWords(sink, w, 4 * i);
  }
  const reader = dataReader(data, type);
  return (sink, i) => writeKeyValue(sink, type, reader.get(i), name);
}

const wide = new Uint32Array(4);

/** Decimal64 value i as Decimal128's 4 words (the upper two its sign), in a buffer reused per call. */
function widened(w: Uint32Array, i: number): Uint32Array {
  const hi = w[2 * i + 1]!;
  wide[0] = w[2 * i]!;
  wide[1] = hi;
  wide[2] = wide[3] = hi >= 0x80000000 ? 0xffffffff : 0;
  return wide;
}

/** Minimal big-endian two's complement of a Decimal128's 4 little-endian words, without BigInt. */
function writeDecimalWords(sink: ByteSink, w: Uint32Array, at: number): void {
  sink.ensure(16);
  const out = sink.bytes;
  const p = sink.pos;
  for (let k = 0; k < 4; k++) {
    const word = w[at + 3 - k]!;
    out[p + 4 * k] = word >>> 24;
    out[p + 4 * k + 1] = (word >>> 16) & 0xff;
    out[p + 4 * k + 2] = (word >>> 8) & 0xff;
    out[p + 4 * k + 3] = word & 0xff;
  }
  let s = 0;
  while (s < 15 && ((out[p + s] === 0 && (out[p + s + 1]! & 0x80) === 0) || (out[p + s] === 0xff && (out[p + s + 1]! & 0x80) !== 0))) s++;
  if (s > 0) out.copyWithin(p, p + s, p + 16);
  sink.pos = p + 16 - s;
}
