import { DataType, makeData } from 'apache-arrow';
import type { Data, Field, RecordBatch } from 'apache-arrow';
import { parseTable } from 'arrow-js-ffi';
import { batchFromData } from '../arrow/batch-builder.js';

const mk = makeData as unknown as (props: Record<string, unknown>) => Data;

/** Column types whose views viewData can size; anything else is copied out by arrow-js-ffi. */
function viewable(type: DataType): boolean {
  return DataType.isInt(type) || DataType.isFloat(type) || DataType.isDecimal(type) || DataType.isDate(type)
    || DataType.isTime(type) || DataType.isTimestamp(type) || DataType.isBool(type) || DataType.isFixedSizeBinary(type)
    || DataType.isUtf8(type) || DataType.isBinary(type) || DataType.isNull(type);
}

/**
 * The batches of an exported WASM table as Arrow data viewing WASM memory, copying
 * nothing; undefined when a column's type is not one viewData can size. They stay
 * valid only until the next call into WASM, which may move or reuse that memory.
 */
export function wasmBatchViews(memory: ArrayBuffer, arrayAddrs: Parameters<typeof parseTable>[1], schemaAddr: number): RecordBatch[] | undefined {
  const table = parseTable(memory, arrayAddrs, schemaAddr, false);
  if (!table.schema.fields.every((f: Field) => viewable(f.type))) return undefined;
  return table.batches.map((b: RecordBatch) => batchFromData(b.schema.fields, b.data.children.map(viewData), b.numRows));
}

/**
 * arrow-js-ffi's views (copy = false) give a typed array `length` elements long
 * whatever the type: a decimal128 view holds a quarter of its words, a boolean view
 * eight times its bytes. Each view is rebuilt to cover exactly its rows' values.
 */
function viewData(d: Data): Data {
  if (DataType.isNull(d.type) || DataType.isUtf8(d.type) || DataType.isBinary(d.type)) return d;
  const v = d.values as Uint8Array;
  const end = d.offset + d.length;
  const values = DataType.isBool(d.type)
    ? new Uint8Array(v.buffer, v.byteOffset, (end + 7) >> 3)
    : new (v.constructor as new (b: ArrayBufferLike, o: number, n: number) => Uint8Array)(v.buffer, v.byteOffset, end * d.stride);
  return mk({ type: d.type, offset: d.offset, length: d.length, nullCount: d.nullCount, nullBitmap: d.nullBitmap, data: values });
}
