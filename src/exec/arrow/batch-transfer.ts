import {
  Binary, Bool, Data, DataType, Date_, Decimal, Dictionary, Duration, Field, FixedSizeBinary, FixedSizeList, Float, Int, Interval,
  LargeBinary, LargeUtf8, List, Null, Schema, Struct, Time, Timestamp, Type, Utf8, makeData, makeVector,
} from 'apache-arrow';
import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { recordBatchOf } from '../../lake/index.js';

/**
 * Scan batches crossing from a worker to the main thread: every buffer of their Arrow
 * data copied into one ArrayBuffer (which the pool transfers), described by a small
 * JSON header the other side rebuilds the Data from. Arrow IPC did this job before;
 * its flatbuffer messages and visitor-driven reader cost 0.1–0.3 ms a task on each
 * side, which a query of many small tasks (nine scans of small tables) paid dozens of times.
 *
 * Layout after `headerBytes` reserved bytes: the schema's description and the batches'
 * (each a u32 length and UTF-8 JSON; the schema's text keys a cache of rebuilt schemas),
 * then the buffers, each at an 8-byte aligned offset.
 */

type TypeText =
  | { readonly t: 'null' | 'bool' | 'utf8' | 'binary' | 'largeutf8' | 'largebinary' }
  | { readonly t: 'int'; readonly signed: boolean; readonly bits: number }
  | { readonly t: 'float'; readonly precision: number }
  | { readonly t: 'decimal'; readonly scale: number; readonly precision: number; readonly bits: number }
  | { readonly t: 'date' | 'interval' | 'duration'; readonly unit: number }
  | { readonly t: 'time'; readonly unit: number; readonly bits: number }
  | { readonly t: 'timestamp'; readonly unit: number; readonly tz: string | null }
  | { readonly t: 'fixedbinary'; readonly width: number }
  | { readonly t: 'list'; readonly child: FieldText }
  | { readonly t: 'fixedlist'; readonly size: number; readonly child: FieldText }
  | { readonly t: 'struct'; readonly children: readonly FieldText[] }
  | { readonly t: 'dictionary'; readonly values: TypeText; readonly indices: TypeText; readonly id: number; readonly ordered: boolean };

interface FieldText {
  readonly name: string;
  readonly type: TypeText;
  readonly nullable: boolean;
  readonly metadata?: readonly (readonly [string, string])[];
}

/** A buffer as [typed array kind, byte offset in the body, element count]; null when absent. */
type BufferText = readonly [number, number, number] | null;

interface DataText {
  readonly offset: number;
  readonly length: number;
  readonly nullCount: number;
  /** Offsets, values, validity, type ids (Arrow's BufferType order). */
  readonly buffers: readonly BufferText[];
  readonly children: readonly DataText[];
  /** A dictionary column's values, as the chunks of its vector. */
  readonly dictionary?: readonly DataText[];
}

interface SchemaText {
  readonly fields: readonly FieldText[];
  readonly metadata: readonly (readonly [string, string])[];
}

/** A batch: its row count and its columns. */
interface BatchText {
  readonly length: number;
  readonly columns: readonly DataText[];
}

type TypedArray =
  | Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array
  | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

const ARRAY_KINDS = [
  Uint8Array, Int8Array, Uint16Array, Int16Array, Uint32Array, Int32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array,
] as const;

const ALIGN = 8;

const align = (n: number): number => Math.ceil(n / ALIGN) * ALIGN;

const unsupported = (what: string): FloeError => new FloeError(SqlState.internalError, `scan batches cannot carry ${what} between threads`);

function typeText(type: DataType): TypeText {
  switch (type.typeId) {
    case Type.Null: return { t: 'null' };
    case Type.Bool: return { t: 'bool' };
    case Type.Utf8: return { t: 'utf8' };
    case Type.Binary: return { t: 'binary' };
    case Type.LargeUtf8: return { t: 'largeutf8' };
    case Type.LargeBinary: return { t: 'largebinary' };
    case Type.Int: { const x = type as Int; return { t: 'int', signed: x.isSigned, bits: x.bitWidth }; }
    case Type.Float: return { t: 'float', precision: (type as Float).precision };
    case Type.Decimal: { const x = type as Decimal; return { t: 'decimal', scale: x.scale, precision: x.precision, bits: x.bitWidth }; }
    case Type.Date: return { t: 'date', unit: (type as Date_).unit };
    case Type.Interval: return { t: 'interval', unit: (type as Interval).unit };
    case Type.Duration: return { t: 'duration', unit: (type as Duration).unit };
    case Type.Time: { const x = type as Time; return { t: 'time', unit: x.unit, bits: x.bitWidth }; }
    case Type.Timestamp: { const x = type as Timestamp; return { t: 'timestamp', unit: x.unit, tz: x.timezone ?? null }; }
    case Type.FixedSizeBinary: return { t: 'fixedbinary', width: (type as FixedSizeBinary).byteWidth };
    case Type.List: return { t: 'list', child: fieldText((type as List).children[0]!) };
    case Type.FixedSizeList: { const x = type as FixedSizeList; return { t: 'fixedlist', size: x.listSize, child: fieldText(x.children[0]!) }; }
    case Type.Struct: return { t: 'struct', children: (type as Struct).children.map(fieldText) };
    case Type.Dictionary: {
      const x = type as Dictionary;
      return { t: 'dictionary', values: typeText(x.dictionary), indices: typeText(x.indices), id: x.id, ordered: x.isOrdered };
    }
    default: throw unsupported(`Arrow type ${String(type)}`);
  }
}

function typeOf(t: TypeText): DataType {
  switch (t.t) {
    case 'null': return new Null();
    case 'bool': return new Bool();
    case 'utf8': return new Utf8();
    case 'binary': return new Binary();
    case 'largeutf8': return new LargeUtf8();
    case 'largebinary': return new LargeBinary();
    case 'int': return new Int(t.signed as never, t.bits as never);
    case 'float': return new Float(t.precision as never);
    case 'decimal': return new Decimal(t.scale, t.precision, t.bits);
    case 'date': return new Date_(t.unit as never);
    case 'interval': return new Interval(t.unit as never);
    case 'duration': return new Duration(t.unit as never);
    case 'time': return new Time(t.unit as never, t.bits as never);
    case 'timestamp': return new Timestamp(t.unit as never, t.tz);
    case 'fixedbinary': return new FixedSizeBinary(t.width);
    case 'list': return new List(fieldOf(t.child));
    case 'fixedlist': return new FixedSizeList(t.size, fieldOf(t.child));
    case 'struct': return new Struct(t.children.map(fieldOf));
    case 'dictionary': return new Dictionary(typeOf(t.values), typeOf(t.indices) as never, t.id, t.ordered);
  }
}

function fieldText(f: Field): FieldText {
  const base = { name: f.name, type: typeText(f.type), nullable: f.nullable };
  return f.metadata.size > 0 ? { ...base, metadata: [...f.metadata] } : base;
}

function fieldOf(f: FieldText): Field {
  return new Field(f.name, typeOf(f.type), f.nullable, f.metadata ? new Map(f.metadata) : undefined);
}

/** Lays out each buffer of `data` (and its children and dictionary) in the body, recording where. */
class BodyPlan {
  readonly arrays: TypedArray[] = [];
  readonly offsets: number[] = [];
  bytes = 0;

  data(d: Data): DataText {
    if (d.variadicBuffers.length > 0) throw unsupported('view types');
    const buffers = [d.valueOffsets, d.values, d.nullBitmap, d.typeIds].map((b) => this.#buffer(b as TypedArray | undefined));
    const text: DataText = { offset: d.offset, length: d.length, nullCount: d.nullCount, buffers, children: d.children.map((c) => this.data(c)) };
    return d.dictionary ? { ...text, dictionary: d.dictionary.data.map((c) => this.data(c)) } : text;
  }

  #buffer(b: TypedArray | undefined): BufferText {
    if (b === undefined || b === null) return null;
    const kind = ARRAY_KINDS.findIndex((k) => b instanceof k);
    if (kind < 0) throw unsupported(`a buffer of ${Object.prototype.toString.call(b)}`);
    const at = this.bytes;
    this.arrays.push(b);
    this.offsets.push(at);
    this.bytes = at + align(b.byteLength);
    return [kind, at, b.length];
  }
}

/** `batches` (one schema) as one buffer, `headerBytes` left free at its front for the caller. */
export function packBatches(batches: readonly RecordBatch[], headerBytes: number): Uint8Array {
  if (batches.length === 0) return new Uint8Array(headerBytes);
  const schema = batches[0]!.schema;
  const body = new BodyPlan();
  const schemaText: SchemaText = { fields: schema.fields.map(fieldText), metadata: [...schema.metadata] };
  const batchesText: BatchText[] = batches.map((b) => ({ length: b.numRows, columns: b.data.children.map((c) => body.data(c)) }));
  const texts = [JSON.stringify(schemaText), JSON.stringify(batchesText)].map((t) => Buffer.from(t, 'utf8'));
  const bodyStart = align(headerBytes + texts.reduce((n, t) => n + 4 + t.length, 0));
  const out = new Uint8Array(bodyStart + body.bytes);
  const view = new DataView(out.buffer);
  let at = headerBytes;
  for (const t of texts) {
    view.setUint32(at, t.length, true);
    out.set(t, at + 4);
    at += 4 + t.length;
  }
  body.arrays.forEach((a, i) => out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), bodyStart + body.offsets[i]!));
  return out;
}

/** Schemas rebuilt from their description, by its text: a query's tasks all send the same one. */
const schemas = new Map<string, Schema>();
const SCHEMA_CACHE_MAX = 256;

/**
 * The batches `packBatches` wrote into `bytes` (its `headerBytes` included). The
 * batches view `bytes`' buffer, which the caller hands over with them.
 */
export function unpackBatches(bytes: Uint8Array, headerBytes: number): RecordBatch[] {
  if (bytes.byteLength <= headerBytes) return [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const texts: string[] = [];
  let at = headerBytes;
  for (let i = 0; i < 2; i++) {
    const length = view.getUint32(at, true);
    texts.push(Buffer.from(bytes.buffer, bytes.byteOffset + at + 4, length).toString('utf8'));
    at += 4 + length;
  }
  const schema = schemaOf(texts[0]!);
  const batches = JSON.parse(texts[1]!) as BatchText[];
  // The body is 8-aligned within `bytes`; typed views need it aligned within the buffer as well.
  const bodyStart = bytes.byteOffset + align(at);
  const buffer = (bodyStart % ALIGN === 0 ? bytes.buffer : bytes.slice(align(at)).buffer) as ArrayBuffer;
  const base = bodyStart % ALIGN === 0 ? bodyStart : 0;
  const build = (t: DataText, type: DataType): Data => {
    const buffers = t.buffers.map((b) => (b === null ? undefined : new ARRAY_KINDS[b[0]]!(buffer, base + b[1], b[2])));
    const childTypes = type.children?.map((f: Field) => f.type) ?? [];
    const children = t.children.map((c, i) => build(c, childTypes[i]!));
    const dictionary = t.dictionary ? makeVector(t.dictionary.map((c) => build(c, (type as Dictionary).dictionary))) : undefined;
    return new Data(type, t.offset, t.length, t.nullCount, buffers as never, children, dictionary);
  };
  return batches.map((b) => {
    const columns = b.columns.map((c, i) => build(c, schema.fields[i]!.type));
    return recordBatchOf(schema, makeData({ type: new Struct(schema.fields), length: b.length, nullCount: 0, children: columns }));
  });
}

function schemaOf(text: string): Schema {
  let schema = schemas.get(text);
  if (schema === undefined) {
    if (schemas.size >= SCHEMA_CACHE_MAX) schemas.clear();
    const t = JSON.parse(text) as SchemaText;
    schema = new Schema(t.fields.map(fieldOf), new Map(t.metadata));
    schemas.set(text, schema);
  }
  return schema;
}
