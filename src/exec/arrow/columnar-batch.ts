import { RecordBatch, Schema, Field, Struct, makeData } from 'apache-arrow';
import type { Vector } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { OutputColumn } from '../plan/physical-plan.js';
import { execArrowType } from './arrow-types.js';
import { valuesToVector, vectorToValues } from './vector-values.js';

/**
 * The executor's working form of a batch: one array of canonical values per
 * column. Operators decode an Arrow batch into this once, compute, and encode
 * their output back into Arrow at the operator boundary.
 */
export interface ColumnarBatch {
  readonly numRows: number;
  readonly columns: readonly (readonly unknown[])[];
}

/**
 * Batches this executor built, with the values they were built from, so the
 * next operator skips decoding them again (weakly held: freed with the batch).
 */
const decoded = new WeakMap<RecordBatch, ColumnarBatch>();

export function decodeBatch(batch: RecordBatch, types: readonly SqlType[]): ColumnarBatch {
  const known = decoded.get(batch);
  if (known && known.columns.length === types.length) return known;
  const columns: unknown[][] = [];
  for (let i = 0; i < types.length; i++) {
    const child = batch.getChildAt(i);
    if (!child) throw new Error(`batch has ${batch.numCols} columns, expected ${types.length}`);
    columns.push(vectorToValues(child as Vector, types[i]!));
  }
  return { numRows: batch.numRows, columns };
}

/**
 * A scan batch's columns by name (else by position) as a ColumnarBatch: how
 * lake scans and pool workers turn what the lake returns into working form.
 */
export function decodeColumns(batch: RecordBatch, names: readonly string[], types: readonly SqlType[]): ColumnarBatch {
  const columns: unknown[][] = [];
  for (let i = 0; i < types.length; i++) {
    const child = batch.getChild(names[i]!) ?? batch.getChildAt(i);
    if (!child) throw new FloeError(SqlState.internalError, `scan batch lacks column "${names[i]}"`);
    columns.push(vectorToValues(child as Vector, types[i]!));
  }
  return { numRows: batch.numRows, columns };
}

export function schemaOf(columns: readonly OutputColumn[]): Schema {
  return new Schema(columns.map((c, i) => new Field(c.name || `?column?${i}`, execArrowType(c.type), true)));
}

/** Builds an Arrow RecordBatch from column value arrays (all of length numRows). */
export function encodeBatch(columns: readonly OutputColumn[], values: readonly (readonly unknown[])[], numRows: number): RecordBatch {
  const schema = schemaOf(columns);
  const children = columns.map((c, i) => {
    const v = valuesToVector(values[i]!, c.type);
    return v.data[0] ?? makeData({ type: execArrowType(c.type), length: 0, nullCount: 0 } as never);
  });
  // Names may repeat in SQL results (SELECT 1 AS a, 2 AS a); build the struct data directly so they survive.
  const data = makeData({ type: new Struct(schema.fields), length: numRows, nullCount: 0, children });
  const batch = new RecordBatch(schema, data);
  decoded.set(batch, { numRows, columns: values });
  return batch;
}

export function encodeColumnar(columns: readonly OutputColumn[], batch: ColumnarBatch): RecordBatch {
  return encodeBatch(columns, batch.columns, batch.numRows);
}
