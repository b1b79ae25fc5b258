import { RecordBatch } from 'apache-arrow';
import type { Data, Schema, Struct } from 'apache-arrow';

/**
 * A RecordBatch of `schema` over struct `data`, as Arrow's constructor builds it when
 * every child holds `data.length` rows, without the constructor's length check: that
 * check (ensureSameLengthData) copies the fields, builds a second schema with merged
 * metadata maps and a second struct on every call, a quarter of the bytes a point read
 * allocated. The fields set are the ones apache-arrow 21's constructor sets (`dictionaries`
 * stays lazy, as there; test/lake/kernels/record-batch-of.test.ts compares the two). A child
 * of another length goes through the constructor, which pads it.
 */
export function recordBatchOf(schema: Schema, data: Data<Struct>, metadata = new Map<string, string>()): RecordBatch {
  for (const child of data.children) if (child.length !== data.length) return new RecordBatch(schema, data, metadata);
  const batch = Object.create(RecordBatch.prototype) as { schema: Schema; data: Data<Struct>; _metadata: Map<string, string> };
  batch.schema = schema;
  batch.data = data;
  batch._metadata = metadata;
  return batch as unknown as RecordBatch;
}

/** Rows [begin, end) of a batch without copying, as RecordBatch.slice, through recordBatchOf. */
export function sliceBatch(batch: RecordBatch, begin: number, end: number): RecordBatch {
  const from = Math.max(0, Math.min(begin, batch.numRows));
  return recordBatchOf(batch.schema, batch.data.slice(from, Math.max(0, Math.min(end, batch.numRows) - from)), batch.metadata);
}
