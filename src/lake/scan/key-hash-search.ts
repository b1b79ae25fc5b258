import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import { hashKeyBatch } from '../bucket/key-hash.js';
import type { RowPicker } from '../format/data-file-reader.js';
import { sortedOrder } from '../optimize/hash-order.js';
import { rankBelow } from '../optimize/replaced-position.js';
import { sliceBatch } from '../arrow/record-batch-of.js';
import { takeRows } from './take-rows.js';

/** A batch's rows by key hash: the hashes ascending, and the row each came from (ties in row order). */
interface KeyHashIndex {
  readonly hashes: Uint32Array;
  readonly rows: Uint32Array;
}

/**
 * Batches a keyed read has seen once (the mark) or more (their index). Only a batch read
 * again is the same object: the row-group cache's. A base row group is in key-hash ranges
 * but not sorted within, so a point read would filter all of its 32k rows; from the second
 * read of a cached group on, it looks the key up instead. The entry dies with the batch.
 */
const seen = new WeakMap<RecordBatch, KeyHashIndex | 'once'>();

/**
 * A keyed read's picker: `pick` sees only the rows whose key hashes to one of `hashes`
 * (ascending, distinct). On a batch read before (a row-group cache hit) they are found in
 * the batch's key-hash index, built at its second read: hashing and sorting 32k rows costs
 * about what filtering them does, and every later read saves it. At a first read a point
 * read's one key goes to `pick` whole (its key filters find the row); a key set's rows are
 * hashed and kept by membership. A batch without every key column goes to `pick` whole.
 */
export function searchingKeyHashes(pick: RowPicker, keyNames: readonly string[], keyTypes: readonly SqlType[], hashes: Uint32Array): RowPicker {
  return (batch) => {
    if (!keyNames.every((k) => batch.schema.fields.some((f) => f.name === k))) return pick(batch);
    if (hashes.length === 1 && seen.get(batch) === undefined) {
      seen.set(batch, 'once');
      return pick(batch);
    }
    const candidates = rowsWithKeyHashes(batch, keyNames, keyTypes, hashes);
    if (candidates.length === 0) return candidates;
    // Ascending, as a picker's rows must be.
    const picked = pick(candidates.length === 1 ? sliceBatch(batch, candidates[0]!, candidates[0]! + 1) : takeRows(batch, candidates));
    if (picked === undefined) return candidates;
    return picked.map((r) => candidates[r]!);
  };
}

/**
 * The rows of `batch` whose key hashes to one of `hashes` (ascending, distinct), in row
 * order: looked up in the batch's key-hash index when it has been read before, else
 * hashed and kept by membership (and marked, so that its next read builds the index).
 */
export function rowsWithKeyHashes(batch: RecordBatch, keyNames: readonly string[], keyTypes: readonly SqlType[], hashes: Uint32Array): Int32Array {
  let index = seen.get(batch);
  if (index === undefined) {
    seen.set(batch, 'once');
    const h = hashKeyBatch(batch, keyNames, keyTypes);
    const out = new Int32Array(h.length);
    let n = 0;
    for (let r = 0; r < h.length; r++) if (holds(hashes, h[r]!)) out[n++] = r;
    return out.subarray(0, n);
  }
  if (index === 'once') seen.set(batch, index = keyHashIndex(batch, keyNames, keyTypes));
  const out: number[] = [];
  for (const target of hashes) {
    let at = rankBelow(index.hashes, target);
    while (at < index.hashes.length && index.hashes[at] === target) out.push(index.rows[at++]!);
  }
  const rows = Int32Array.from(out);
  // Each hash's rows are in row order; across hashes they are sorted here.
  return hashes.length === 1 ? rows : rows.sort();
}

function holds(sorted: Uint32Array, h: number): boolean {
  const at = rankBelow(sorted, h);
  return at < sorted.length && sorted[at] === h;
}

function keyHashIndex(batch: RecordBatch, keyNames: readonly string[], keyTypes: readonly SqlType[]): KeyHashIndex {
  const h = hashKeyBatch(batch, keyNames, keyTypes);
  const rows = sortedOrder(h, h.length);
  return { hashes: Uint32Array.from(rows, (r) => h[r]!), rows };
}
