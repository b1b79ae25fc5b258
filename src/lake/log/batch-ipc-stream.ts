import { DataType, RecordBatchStreamWriter, Table, tableToIPC } from 'apache-arrow';
import type { Field, RecordBatch, Schema } from 'apache-arrow';

/** Schemas whose encoded message is kept (a process writes few table versions at a time). */
const SCHEMA_MESSAGES_MAX = 256;
/** The end-of-stream marker tableToIPC writes after the schema of an empty table. */
const EOS_BYTES = 8;
const schemaMessages = new Map<string, Uint8Array>();

/**
 * The stream writer with the schema message taken from a cache: a one-row commit's batch is
 * encoded as an Arrow IPC stream for the log, and encoding its schema (a flatbuffer with
 * every field's metadata) was half of that, redone for every commit of the same table.
 * `_writeSchema` is apache-arrow's protected hook for exactly this message.
 */
class SchemaCachingStreamWriter extends RecordBatchStreamWriter {
  protected override _writeSchema(schema: Schema): this {
    const message = schemaMessageOf(schema);
    return message === undefined ? super._writeSchema(schema) : this._write(message);
  }
}

/** One batch as an Arrow IPC stream, byte for byte what `tableToIPC(new Table(batch), 'stream')` gives. */
export function batchIpcStream(batch: RecordBatch): Uint8Array {
  return new SchemaCachingStreamWriter().writeAll(new Table(batch)).toUint8Array(true);
}

/** Batches of one schema (sameIpcSchema) as one Arrow IPC stream: the schema once, then each batch. */
export function batchesIpcStream(batches: readonly RecordBatch[]): Uint8Array {
  return new SchemaCachingStreamWriter().writeAll(new Table([...batches])).toUint8Array(true);
}

/** True when batches of these schemas can share one IPC stream: the same message would encode both. */
export function sameIpcSchema(a: Schema, b: Schema): boolean {
  if (a === b) return true;
  const key = schemaKey(a);
  return key !== undefined && key === schemaKey(b);
}

function schemaMessageOf(schema: Schema): Uint8Array | undefined {
  const key = schemaKey(schema);
  if (key === undefined) return undefined;
  let message = schemaMessages.get(key);
  if (message === undefined) {
    const stream = tableToIPC(new Table(schema), 'stream');
    message = stream.slice(0, stream.byteLength - EOS_BYTES);
    if (schemaMessages.size >= SCHEMA_MESSAGES_MAX) schemaMessages.clear();
    schemaMessages.set(key, message);
  }
  return message;
}

/**
 * Everything the schema message encodes: each field's name, nullability, metadata and type
 * (its id and every parameter, children recursively), and the schema's metadata. Undefined
 * (not cached) for dictionary fields, whose message also depends on dictionary ids.
 */
function schemaKey(schema: Schema): string | undefined {
  const fields: unknown[] = [];
  for (const f of schema.fields) {
    const k = fieldKey(f);
    if (k === undefined) return undefined;
    fields.push(k);
  }
  return JSON.stringify([[...schema.metadata], fields]);
}

function fieldKey(f: Field): unknown[] | undefined {
  const type = f.type as DataType;
  if (DataType.isDictionary(type)) return undefined;
  const params: unknown[] = [];
  for (const [name, value] of Object.entries(type)) {
    if (name === 'children') continue;
    params.push(name, ArrayBuffer.isView(value) ? Array.from(value as unknown as ArrayLike<number>) : value);
  }
  const children: unknown[] = [];
  for (const c of (type.children ?? []) as Field[]) {
    const k = fieldKey(c);
    if (k === undefined) return undefined;
    children.push(k);
  }
  return [f.name, f.nullable, type.typeId, params, [...f.metadata], children];
}
