import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import { ByteSink } from './byte-sink.js';
import type { ColumnAccessor } from './column-accessor.js';
import { encodeKeyAccessors, hashKeyData, keyColumnData } from './key-encoding.js';
import { keyValueBytes, writeKeyValue } from './key-serializer.js';
import { murmur3Range } from './murmur3.js';

export type { ColumnAccessor } from './column-accessor.js';
export { keyValueBytes };

/**
 * The bucket-tree hash of a key: murmur3 (x86, seed 0) over Iceberg's single-value
 * serialization (key-serializer.ts); for a composite key, over the concatenation of
 * each column's serialization, each prefixed by its 4-byte big-endian length.
 * A NULL key column is 23502.
 */
export function hashKey(types: readonly SqlType[], values: readonly unknown[]): number {
  const sink = new ByteSink(64);
  if (types.length === 1) {
    writeKeyValue(sink, types[0]!, values[0]);
  } else {
    for (let c = 0; c < types.length; c++) {
      const at = sink.reserveLength();
      writeKeyValue(sink, types[c]!, values[c], `key${c + 1}`);
      sink.patchLength(at);
    }
  }
  return murmur3Range(sink.bytes, 0, sink.pos);
}

export function hashKeyColumns(types: readonly SqlType[], columns: readonly ColumnAccessor[], numRows: number): Uint32Array {
  return encodeKeyAccessors(types, columns, numRows).hashes;
}

/** Hashes read from the batch's raw Arrow buffers (no per-row values built for common key types). */
export function hashKeyBatch(batch: RecordBatch, keyColumns: readonly string[], types: readonly SqlType[]): Uint32Array {
  return hashKeyData(keyColumnData(batch, keyColumns), keyColumns, types, batch.numRows);
}
