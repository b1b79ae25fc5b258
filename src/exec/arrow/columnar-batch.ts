import { Schema, Field, Struct, Type, makeData } from 'apache-arrow';
import type { Data, DataType, RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import { ObjectAttachment } from '../../common/object-attachment.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { recordBatchOf } from '../../lake/index.js';
import type { OutputColumn } from '../plan/physical-plan.js';
import { execArrowType } from './arrow-types.js';
import { arrowColumn, decodeColumn, valuesColumn } from './column-source.js';
import type { ArrowForm, ColumnSource } from './column-source.js';
import { valuesToVector } from './vector-values.js';

/**
 * The executor's working form of a batch: one array of canonical values per
 * column. Operators decode an Arrow batch into this once, compute, and encode
 * their output back into Arrow at the operator boundary.
 *
 * Columns are decoded on first read of `columns[i]`: a join key or a filter
 * column is decoded, while a column that only passes through (a payload carried
 * by a join, a filter or a projection) stays Arrow data and is moved buffer to
 * buffer (`columnSource`, `selectColumn`) without ever becoming JS values.
 */
export interface ColumnarBatch {
  readonly numRows: number;
  readonly columns: readonly (readonly unknown[])[];
}

const VALUES = Symbol('decoded values');
const UNDECODED = Symbol('columns not read yet');
const ARROW_FORMS = Symbol('arrow forms');

/** A lazy batch's columns: an array-like whose index getters (on its prototype) decode on first read. */
interface LazyColumns {
  readonly length: number;
  /** Per column, its values once decoded (non-Arrow sources from the start). */
  readonly [VALUES]: (readonly unknown[] | undefined)[];
  /** Per column, its Arrow form while not read yet (cleared as read). */
  readonly [UNDECODED]: (ArrowForm | undefined)[];
  /** The Arrow form columns came from, kept after they are read (typed views such as scaled numerics use it). */
  readonly [ARROW_FORMS]: readonly (ArrowForm | undefined)[];
}

/**
 * Per width, the prototype of lazy batches' columns: one index getter per column,
 * shared by every batch of that width, so a batch only sets a few fields. Getters
 * defined on each batch's own array cost ~1.6 µs a column (defineProperty turns the
 * array's elements into a dictionary): 20 ms of a six-way join's main thread, 1,259 batches.
 * Array.prototype sits behind them, so map, slice, iteration and spreading work.
 */
const prototypes: object[] = [];

function lazyColumnsPrototype(width: number): object {
  let proto = prototypes[width];
  if (proto === undefined) {
    proto = Object.create(Array.prototype) as object;
    for (let i = 0; i < width; i++) {
      Object.defineProperty(proto, i, {
        enumerable: true,
        get(this: LazyColumns) {
          const values = this[VALUES];
          let v = values[i];
          if (v === undefined) {
            v = decodeColumn(this[UNDECODED][i]!);
            values[i] = v;
            this[UNDECODED][i] = undefined;
          }
          return v;
        },
      });
    }
    prototypes[width] = proto;
  }
  return proto;
}

/** A batch over `sources`; Arrow sources decode when first read. */
export function lazyBatch(numRows: number, sources: readonly ColumnSource[]): ColumnarBatch {
  const n = sources.length;
  let arrow = 0;
  for (let i = 0; i < n; i++) if (sources[i]!.kind !== 'values') arrow++;
  if (arrow === 0) {
    const columns: (readonly unknown[])[] = [];
    for (let i = 0; i < n; i++) { const s = sources[i]!; if (s.kind === 'values') columns.push(s.values); }
    return { numRows, columns };
  }
  const values: (readonly unknown[] | undefined)[] = new Array(n);
  const undecoded: (ArrowForm | undefined)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const s = sources[i]!;
    if (s.kind === 'values') values[i] = s.values;
    else undecoded[i] = s;
  }
  const columns = Object.create(lazyColumnsPrototype(n)) as { length: number; [VALUES]: unknown; [UNDECODED]: unknown; [ARROW_FORMS]: unknown };
  columns.length = n;
  columns[VALUES] = values;
  columns[UNDECODED] = undecoded;
  columns[ARROW_FORMS] = undecoded.slice();
  return { numRows, columns: columns as unknown as readonly (readonly unknown[])[] };
}

/** Column `i`'s Arrow form when it came from Arrow data, whether or not it has been decoded since. */
export function arrowFormOf(batch: ColumnarBatch, i: number): ArrowForm | undefined {
  return (batch.columns as unknown as Partial<LazyColumns>)[ARROW_FORMS]?.[i];
}

/**
 * Column `i` as the next operator should carry it: its Arrow data while undecoded
 * (reading it here does not decode it), and for ints, floats and dates held as
 * JS numbers even once decoded, else its values. A join key read as numbers to be
 * hashed would otherwise be gathered and concatenated value by value from then
 * on: four composite-key columns cost ~190 ms a run to join one 324k-row
 * build side. Text, numeric and 64-bit ints are left as values once read:
 * decoding them again costs more than moving the values does.
 */
export function columnSource(batch: ColumnarBatch, i: number): ColumnSource {
  const lazy = batch.columns as unknown as Partial<LazyColumns>;
  const arrow = lazy[ARROW_FORMS]?.[i];
  if (arrow !== undefined && (lazy[UNDECODED]![i] !== undefined || carriedAsArrow(arrow.base))) return arrow;
  return valuesColumn(batch.columns[i]!);
}

/** Whether decoding `data` again is one typed-array read a value (no BigInt to convert). */
function carriedAsArrow(data: Data): boolean {
  const t = data.typeId;
  return (t === Type.Int || t === Type.Float || t === Type.Date) && !(data.values instanceof BigInt64Array || data.values instanceof BigUint64Array);
}

/**
 * Batches this executor built, with the sources they were built from, so the
 * next operator skips decoding them again (freed with the batch).
 */
const decoded = new ObjectAttachment<RecordBatch, ColumnarBatch>('floe.decodedBatch');

export function decodeBatch(batch: RecordBatch, types: readonly SqlType[]): ColumnarBatch {
  const known = decoded.get(batch);
  if (known && known.columns.length === types.length) return known;
  const sources: ColumnSource[] = [];
  for (let i = 0; i < types.length; i++) {
    const child = batch.data.children[i];
    if (!child) throw new Error(`batch has ${batch.numCols} columns, expected ${types.length}`);
    sources.push(arrowColumn(child, types[i]!));
  }
  return lazyBatch(batch.numRows, sources);
}

/**
 * A scan batch's columns by name (else by position) as a ColumnarBatch: how
 * lake scans and pool workers turn what the lake returns into working form.
 */
export function decodeColumns(batch: RecordBatch, names: readonly string[], types: readonly SqlType[], rows?: Int32Array): ColumnarBatch {
  const sources: ColumnSource[] = [];
  const fields = batch.schema.fields;
  for (let i = 0; i < types.length; i++) {
    const named = fields.findIndex((f) => f.name === names[i]);
    // The child's Data itself: getChild would wrap it in a Vector only to unwrap it here.
    const child = batch.data.children[named >= 0 ? named : i];
    if (child === undefined) throw new FloeError(SqlState.internalError, `scan batch lacks column "${names[i]}"`);
    sources.push(arrowColumn(child, types[i]!, rows));
  }
  return lazyBatch(rows?.length ?? batch.numRows, sources);
}

export function schemaOf(columns: readonly OutputColumn[]): Schema {
  return new Schema(columns.map((c, i) => new Field(fieldName(c, i), execArrowType(c.type), true)));
}

function fieldName(c: OutputColumn, i: number): string {
  return c.name || `?column?${i}`;
}

/**
 * Builds an Arrow RecordBatch from column sources (all of length numRows). A
 * column still in Arrow form goes in as it is, under its own Arrow type (a
 * lake's Decimal128 numeric, a dictionary of strings); readers decode by
 * physical type, so they see the same values either way.
 */
export function encodeBatch(columns: readonly OutputColumn[], values: readonly ColumnSource[], numRows: number): RecordBatch {
  const fields: Field[] = [];
  const children: Data[] = [];
  columns.forEach((c, i) => {
    const src = values[i]!;
    const data = src.kind === 'values'
      ? valuesToVector(src.values, c.type).data[0] ?? makeData({ type: execArrowType(c.type), length: 0, nullCount: 0 } as never)
      : src.data;
    fields.push(new Field(fieldName(c, i), data.type as DataType, true));
    children.push(data);
  });
  const schema = new Schema(fields);
  // Names may repeat in SQL results (SELECT 1 AS a, 2 AS a); build the struct data directly so they survive.
  const data = makeData({ type: new Struct(schema.fields), length: numRows, nullCount: 0, children });
  const batch = recordBatchOf(schema, data);
  decoded.set(batch, lazyBatch(numRows, values));
  return batch;
}

/** Encodes a batch, keeping the columns nobody decoded in their Arrow form. */
export function encodeColumnar(columns: readonly OutputColumn[], batch: ColumnarBatch): RecordBatch {
  return encodeBatch(columns, columns.map((_, i) => columnSource(batch, i)), batch.numRows);
}
