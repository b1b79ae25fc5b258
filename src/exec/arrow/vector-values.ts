import { Type, makeData, makeVector, vectorFromArray } from 'apache-arrow';
import type { Data, DataType, Vector } from 'apache-arrow';
import type { Interval, SqlType } from '../../common/sql-type.js';
import { ObjectAttachment } from '../../common/object-attachment.js';
import { formatDecimal, formatScaled as formatScaledNumber } from '../types/numeric.js';
import { dataReader, flattenArray, hasMultidimensional, isMultidimArrowType, isValid, multidimArrowType, nullMask } from '../../lake/index.js';
import { execArrowType } from './arrow-types.js';
import { smallDecimalWords } from '../../common/decimal-words.js';

/** Date32 sentinels for ±infinity (PostgreSQL's DATEVAL_NOBEGIN/NOEND are out of any real range too). */
const DATE_POS_INF = 2147483647;
const DATE_NEG_INF = -2147483648;

/**
 * Reads a whole Arrow vector into canonical JavaScript values (null for NULL),
 * by the column's SqlType. Fixed-width columns are read straight from their
 * typed arrays (Arrow JS's getters turn µs timestamps into lossy ms numbers).
 */
export function vectorToValues(vector: Vector, type: SqlType): unknown[] {
  if (vector.data.length === 1) return columnValues(vector.data[0]!, type);
  const out = new Array<unknown>(vector.length);
  let base = 0;
  for (const data of vector.data) {
    readData(data, type, out, base);
    base += data.length;
  }
  return out;
}

/** vectorToValues for one column's Data (a batch's child), without a Vector around it. */
export function columnValues(data: Data, type: SqlType): unknown[] {
  const out = new Array<unknown>(data.length);
  readData(data, type, out, 0);
  if (data.offset === 0 && data.typeId === Type.Utf8 && UTF8_KINDS.has(type.kind)) decodedFrom.set(out, data);
  return out;
}

/** Rows `rows` of one Arrow Data as canonical values, read in place (no gathered copy first). */
export function dataToValues(data: Data, type: SqlType, rows: Int32Array): unknown[] {
  const out = new Array<unknown>(rows.length);
  readData(data, type, out, 0, rows);
  return out;
}

/** SqlType kinds valuesToVector writes as plain Utf8 (see utf8Vector). */
const UTF8_KINDS = new Set(['numeric', 'text', 'varchar', 'bpchar', 'name', 'char', 'json', 'jsonb', 'unknown']);

/**
 * Value arrays decoded from one whole Utf8 Data: encoding them back (a scan
 * re-emitting its input columns) reuses that Data instead of writing every
 * string again. Column arrays are never mutated after decoding (ColumnarBatch
 * columns are readonly), so the Data still holds exactly these values.
 */
const decodedFrom = new ObjectAttachment<readonly unknown[], Data>('floe.decodedFrom');

/** Kinds whose canonical value is the stored text as it is (convertObject returns it unchanged). */
const PLAIN_TEXT_KINDS = new Set(['numeric', 'text', 'varchar', 'bpchar', 'name', 'char', 'json', 'jsonb', 'unknown']);

/** ASCII values up to this many bytes key a cache exactly: 7 × 7 bits plus the length stay below 2^53. */
const SHORT_TEXT_BYTES = 7;

/** Reads `data`'s rows `rows` (all rows when undefined) into out[base…]. */
function readData(data: Data, type: SqlType, out: unknown[], base: number, rows?: Int32Array): void {
  const n = rows?.length ?? data.length;
  const t = data.type as DataType;
  const mask = nullMask(data);
  const offset = data.offset;
  if (type.kind === 'array' && isMultidimArrowType(t)) {
    const reader = dataReader(data, type);
    for (let k = 0; k < n; k++) out[base + k] = reader.get(rows === undefined ? k : rows[k]!);
    return;
  }
  switch (t.typeId) {
    case Type.Int: case Type.Float: case Type.Date: case Type.Time: case Type.Timestamp: {
      const vals = data.values as ArrayLike<number | bigint>;
      if (storedAsIs(type, t, vals)) {
        // One loop per case, no per-value switch on the type: a scan's int4 column read
        // through convertPrimitive cost ~50 ns a value (2026-11-30, count(ps_suppkey)).
        const nums = vals as ArrayLike<number>;
        const date = type.kind === 'date';
        for (let k = 0; k < n; k++) {
          const i = rows === undefined ? k : rows[k]!;
          if (mask !== undefined && !isValid(mask, offset, i)) { out[base + k] = null; continue; }
          const v = nums[i]!;
          out[base + k] = date && (v === DATE_POS_INF || v === DATE_NEG_INF) ? (v > 0 ? Infinity : -Infinity) : v;
        }
        return;
      }
      for (let k = 0; k < n; k++) {
        const i = rows === undefined ? k : rows[k]!;
        if (!isValid(mask, offset, i)) { out[base + k] = null; continue; }
        out[base + k] = convertPrimitive(vals[i]!, type, t);
      }
      return;
    }
    case Type.Bool: {
      const vals = data.values as Uint8Array;
      for (let k = 0; k < n; k++) {
        const i = rows === undefined ? k : rows[k]!;
        if (!isValid(mask, offset, i)) { out[base + k] = null; continue; }
        const j = data.offset + i;
        out[base + k] = (vals[j >> 3]! & (1 << (j & 7))) !== 0;
      }
      return;
    }
    case Type.Decimal: {
      const words = data.values as Uint32Array;
      const scale = (t as unknown as { scale: number }).scale;
      const bw = ((t as unknown as { bitWidth?: number }).bitWidth ?? 128) / 32;
      for (let k = 0; k < n; k++) {
        const i = rows === undefined ? k : rows[k]!;
        if (!isValid(mask, offset, i)) { out[base + k] = null; continue; }
        const off = i * bw;
        const small = scale >= 0 ? smallDecimalWords(words, off, bw) : NaN;
        if (small === small) { out[base + k] = formatScaledNumber(small, scale); continue; }
        let v = 0n;
        for (let w = bw - 1; w >= 0; w--) v = (v << 32n) | BigInt(words[off + w]!);
        const bits = BigInt(bw * 32);
        if (v >= 1n << (bits - 1n)) v -= 1n << bits;
        // A negative Decimal scale (numeric(p,-s)) means trailing zeros; numeric.ts scales are never negative.
        out[base + k] = scale < 0 ? formatDecimal({ unscaled: v * 10n ** BigInt(-scale), scale: 0 }) : formatDecimal({ unscaled: v, scale });
      }
      return;
    }
    case Type.Utf8: {
      const offsets = data.valueOffsets as Int32Array;
      const bytes = data.values as Uint8Array;
      const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const plain = PLAIN_TEXT_KINDS.has(type.kind);
      // Short ASCII values (flags, codes, modes) repeat
      // endlessly; they are looked up by their bytes instead of decoded one by one.
      const short = plain ? new Map<number, string>() : undefined;
      for (let k = 0; k < n; k++) {
        const i = rows === undefined ? k : rows[k]!;
        if (!isValid(mask, offset, i)) { out[base + k] = null; continue; }
        const s = offsets[i]!; const e = offsets[i + 1]!;
        if (short !== undefined && e - s <= SHORT_TEXT_BYTES) {
          let key = e - s;
          let ascii = true;
          for (let j = s; j < e; j++) { const c = bytes[j]!; if (c > 127) { ascii = false; break; } key = key * 128 + c; }
          if (ascii) {
            let v = short.get(key);
            if (v === undefined) { v = buf.toString('latin1', s, e); short.set(key, v); }
            out[base + k] = v;
            continue;
          }
        }
        const text = buf.toString('utf8', s, e);
        out[base + k] = plain ? text : convertObject(text, type);
      }
      return;
    }
    default: {
      const vec = makeVector(data);
      for (let k = 0; k < n; k++) {
        const i = rows === undefined ? k : rows[k]!;
        if (!isValid(mask, offset, i)) { out[base + k] = null; continue; }
        out[base + k] = convertObject(vec.get(i), type);
      }
    }
  }
}

/**
 * Whether convertPrimitive returns every value of these stored numbers unchanged
 * (dates but for the ±infinity sentinels): int2/int4 and float columns, Date32 days.
 */
function storedAsIs(type: SqlType, t: DataType, vals: ArrayLike<number | bigint>): boolean {
  if (!(vals instanceof Int32Array || vals instanceof Int16Array || vals instanceof Float64Array || vals instanceof Float32Array)) return false;
  switch (type.kind) {
    case 'int2': case 'int4': case 'float4': case 'float8': return t.typeId !== Type.Date;
    case 'date': return t.typeId === Type.Date && (t as unknown as { unit: number }).unit === 0;
    default: return false;
  }
}

function convertPrimitive(v: number | bigint, type: SqlType, t: DataType): unknown {
  switch (type.kind) {
    case 'int8': case 'time': case 'timestamp': case 'timestamptz': case 'timetz':
      return typeof v === 'bigint' ? v : BigInt(v);
    case 'date': {
      const d = Number(v);
      // Date64 (ms) would be unusual, but accept it.
      if (t.typeId === Type.Date && (t as unknown as { unit: number }).unit === 1) return Math.floor(d / 86400000);
      if (d === DATE_POS_INF) return Infinity;
      if (d === DATE_NEG_INF) return -Infinity;
      return d;
    }
    case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure':
      return Number(v) >>> 0;
    case 'bool': return Number(v) !== 0;
    case 'numeric': return String(v);
    default:
      return typeof v === 'bigint' ? Number(v) : v;
  }
}

function convertObject(v: unknown, type: SqlType): unknown {
  if (v === null || v === undefined) return null;
  switch (type.kind) {
    case 'uuid': {
      if (typeof v === 'string') return v.toLowerCase();
      const b = v as Uint8Array;
      const h = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }
    case 'interval': {
      const s = v as { months: number; days: number; micros: bigint | number };
      const iv: Interval = { months: Number(s.months), days: Number(s.days), micros: BigInt(s.micros) };
      return iv;
    }
    case 'array': {
      const list = v as Vector;
      return vectorToValues(list, type.element);
    }
    case 'bytea':
      return v instanceof Uint8Array ? v : new Uint8Array(v as ArrayLike<number>);
    case 'int8': return typeof v === 'bigint' ? v : BigInt(v as number);
    default:
      return v;
  }
}

/** Builds an Arrow vector (execArrowType(type)) from canonical values. */
export function valuesToVector(values: readonly unknown[], type: SqlType): Vector {
  const at = execArrowType(type);
  const n = values.length;
  switch (type.kind) {
    case 'int2': case 'int4': case 'float4': case 'float8': case 'int8': case 'time': case 'timestamp': case 'timetz':
    case 'timestamptz': case 'date': case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure': {
      const Arr = (at as unknown as { ArrayType: new (n: number) => ArrayLike<number | bigint> & { [i: number]: number | bigint } }).ArrayType;
      const data = new Arr(n);
      const bitmap = new Uint8Array((n + 7) >> 3);
      let nulls = 0;
      const big = type.kind === 'int8' || type.kind === 'time' || type.kind === 'timestamp' || type.kind === 'timestamptz' || type.kind === 'timetz';
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v === null || v === undefined) { nulls++; continue; }
        bitmap[i >> 3]! |= 1 << (i & 7);
        if (big) data[i] = v as bigint;
        else if (type.kind === 'date') {
          const d = v as number;
          data[i] = d === Infinity ? DATE_POS_INF : d === -Infinity ? DATE_NEG_INF : d;
        } else if (type.kind === 'oid' || type.kind === 'regclass' || type.kind === 'regtype' || type.kind === 'regproc' || type.kind === 'regprocedure') {
          data[i] = (v as number) | 0;
        } else data[i] = v as number;
      }
      return makeVector(makeData({ type: at, length: n, nullCount: nulls, nullBitmap: nulls > 0 ? bitmap : undefined, data } as never));
    }
    case 'uuid': {
      const data = new Uint8Array(n * 16);
      const bitmap = new Uint8Array((n + 7) >> 3);
      let nulls = 0;
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v === null || v === undefined) { nulls++; continue; }
        bitmap[i >> 3]! |= 1 << (i & 7);
        data.set(Buffer.from((v as string).replace(/-/g, ''), 'hex'), i * 16);
      }
      return makeVector(makeData({ type: at, length: n, nullCount: nulls, nullBitmap: nulls > 0 ? bitmap : undefined, data } as never));
    }
    case 'interval': {
      const vals = values.map((v) => {
        if (v === null || v === undefined) return null;
        const iv = v as Interval;
        return { months: iv.months, days: iv.days, micros: iv.micros };
      });
      return vectorFromArray(vals as never, at);
    }
    case 'array':
      if (type.element.kind !== 'array' && hasMultidimensional(values)) return multidimVector(values, type);
      return vectorFromArray(values.map((v) => (v === undefined ? null : v)) as never, at);
    case 'numeric': case 'text': case 'varchar': case 'bpchar': case 'name': case 'char': case 'json': case 'jsonb': case 'unknown': case 'void':
      return utf8Vector(values, at);
    default:
      return vectorFromArray(values.map((v) => (v === undefined ? null : v)) as never, at);
  }
}

/** Utf8 built straight into offset/data buffers (Arrow JS's builder is far slower per value). */
function utf8Vector(values: readonly unknown[], at: DataType): Vector {
  const n = values.length;
  const source = decodedFrom.get(values);
  if (source && source.length === n && source.type.typeId === at.typeId) return makeVector(source);
  if (n > 0) {
    const ascii = asciiUtf8Vector(values, at);
    if (ascii) return ascii;
  }
  const offsets = new Int32Array(n + 1);
  const bitmap = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) { nulls++; continue; }
    total += Buffer.byteLength(v as string, 'utf8');
  }
  const data = Buffer.allocUnsafe(total);
  let pos = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v !== null && v !== undefined) {
      bitmap[i >> 3]! |= 1 << (i & 7);
      pos += data.write(v as string, pos, 'utf8');
    }
    offsets[i + 1] = pos;
  }
  const bytes = new Uint8Array(data.buffer, data.byteOffset, pos);
  return makeVector(makeData({ type: at, length: n, nullCount: nulls, nullBitmap: nulls > 0 ? bitmap : undefined, valueOffsets: offsets, data: bytes } as never));
}

/**
 * utf8Vector for short ASCII strings (numeric text, codes, flags): a JS copy
 * loop beats one native Buffer.write call per value several times over.
 * Returns undefined at the first non-ASCII or long value (the caller then
 * takes the general path).
 */
function asciiUtf8Vector(values: readonly unknown[], at: DataType): Vector | undefined {
  const n = values.length;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) continue;
    const len = (v as string).length;
    if (len > 64) return undefined;
    total += len;
  }
  const offsets = new Int32Array(n + 1);
  const bitmap = new Uint8Array((n + 7) >> 3);
  const data = new Uint8Array(total);
  let nulls = 0;
  let pos = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) nulls++;
    else {
      bitmap[i >> 3]! |= 1 << (i & 7);
      const str = v as string;
      for (let j = 0; j < str.length; j++) {
        const c = str.charCodeAt(j);
        if (c > 0x7f) return undefined;
        data[pos++] = c;
      }
    }
    offsets[i + 1] = pos;
  }
  return makeVector(makeData({ type: at, length: n, nullCount: nulls, nullBitmap: nulls > 0 ? bitmap : undefined, valueOffsets: offsets, data } as never));
}

/** An array column holding a multi-dimensional value: Struct{dims, items} (src/lake/arrow/multidim-array.ts). */
function multidimVector(values: readonly unknown[], type: SqlType): Vector {
  const n = values.length;
  const flat = values.map((v) => (v === null || v === undefined ? null : flattenArray(v as unknown[])));
  const dims = valuesToVector(flat.map((f) => f?.dims ?? null), { kind: 'array', element: { kind: 'int4' } });
  const items = valuesToVector(flat.map((f) => f?.items ?? null), type);
  const bitmap = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (flat[i] === null) nulls++;
    else bitmap[i >> 3]! |= 1 << (i & 7);
  }
  const structType = multidimArrowType(items.type);
  return makeVector(makeData({
    type: structType, length: n, nullCount: nulls, nullBitmap: nulls > 0 ? bitmap : undefined, children: [dims.data[0]!, items.data[0]!],
  } as never));
}
