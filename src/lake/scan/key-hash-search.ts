import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import { hashKeyBatch } from '../bucket/key-hash.js';
import type { RowPicker } from '../format/data-file-reader.js';
import { sortedOrder } from '../optimize/hash-order.js';
import { rankBelow } from '../optimize/replaced-position.js';
import { takeRows } from './take-rows.js';

/** A batch's rows by key hash: the hashes ascending, and the row each came from (ties in row order). */
interface KeyHashIndex {
  readonly hashes: Uint32Array;
  readonly rows: Uint32Array;
}

/**
 * Batches a point read has seen once (the mark) or more (their index). Only a batch read
 * again is the same object: the row-group cache's. A base row group is in key-hash ranges
 * but not sorted within, so a point read would filter all of its 32k rows; from the second
 * read of a cached group on, it looks the key up instead. The entry dies with the batch.
 */
const seen = new WeakMap<RecordBatch, KeyHashIndex | 'once'>();

/**
 * A full-key point read's picker: on a batch read before (a row-group cache hit), `pick`
 * sees only the rows whose key hashes to `hash`, found in the batch's key-hash index
 * (built at its second read: hashing and sorting 32k rows costs about what filtering them
 * does, and every later read saves it). A batch without every key column, or read for the
 * first time, goes to `pick` whole.
 */
export function searchingKeyHash(pick: RowPicker, keyNames: readonly string[], keyTypes: readonly SqlType[], hash: number): RowPicker {
  const target = hash >>> 0;
  return (batch) => {
    let index = seen.get(batch);
    if (index === undefined) {
      seen.set(batch, 'once');
      return pick(batch);
    }
    if (index === 'once') {
      if (!keyNames.every((k) => batch.schema.fields.some((f) => f.name === k))) return pick(batch);
      seen.set(batch, index = keyHashIndex(batch, keyNames, keyTypes));
    }
    const { hashes, rows } = index;
    const lo = rankBelow(hashes, target);
    let end = lo;
    while (end < hashes.length && hashes[end] === target) end++;
    if (end === lo) return new Int32Array(0);
    // Ascending, as a picker's rows must be (equal hashes keep their rows' order).
    const candidates = Int32Array.from(rows.subarray(lo, end));
    const picked = pick(candidates.length === 1 ? batch.slice(candidates[0]!, candidates[0]! + 1) : takeRows(batch, candidates));
    if (picked === undefined) return candidates;
    return picked.map((r) => candidates[r]!);
  };
}

function keyHashIndex(batch: RecordBatch, keyNames: readonly string[], keyTypes: readonly SqlType[]): KeyHashIndex {
  const h = hashKeyBatch(batch, keyNames, keyTypes);
  const rows = sortedOrder(h, h.length);
  return { hashes: Uint32Array.from(rows, (r) => h[r]!), rows };
}
