import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import { encodeKeyBatch, type EncodedKeys } from '../bucket/key-encoding.js';
import { decodeDataFile } from '../format/data-file-reader.js';
import type { ParquetSource } from '../format/parquet-io.js';
import { sortedOrder } from '../optimize/hash-order.js';
import { rankBelow } from '../optimize/replaced-position.js';
import { sharedRowGroupCache } from '../scan/row-group-cache.js';
import type { ColumnMetadata } from '../table/table-metadata.js';

/*
 * Base rows for the lookup changelog producer (lookup-changelog.ts), which finds the row
 * before each write of a key: an UPDATE of a stream's hot rows meets the same base row
 * groups statement after statement, and decoded each whole (every column, ~32k rows) every
 * time. The groups now come from the process's row-group cache (the point reads' own, by
 * bytes, least recently used first; files are immutable), and each cached batch gets its
 * keys encoded and ordered by hash once, so a statement visits only the rows of its keys.
 */

/** Row groups `groups` of a base file, `columns` and `extras` decoded, through the shared row-group cache. */
export async function cachedBaseGroups(
  open: () => Promise<ParquetSource>, path: string, columns: readonly ColumnMetadata[], extras: readonly string[], groups: readonly number[],
): Promise<RecordBatch[]> {
  const cache = sharedRowGroupCache();
  const shape = JSON.stringify([columns.map((c) => [c.fieldId, c.type]), extras]);
  const out: RecordBatch[] = [];
  for (const g of groups) {
    const key = `${path}\u0000${g}\u0000lookup\u0000${shape}`;
    let batches = cache.get(key);
    if (batches === undefined) {
      batches = await decodeDataFile(await open(), path, columns, extras, [g]);
      cache.put(key, batches);
    }
    out.push(...batches);
  }
  return out;
}

/** A batch's encoded keys, and its rows ordered by key hash. */
export interface IndexedKeys {
  readonly keys: EncodedKeys;
  readonly sortedHashes: Uint32Array;
  readonly rows: Uint32Array;
}

/** Per cached batch (only a cached batch is met again): dies with it. */
const indexes = new WeakMap<RecordBatch, IndexedKeys>();

export function indexedKeys(batch: RecordBatch, keyNames: readonly string[], keyTypes: readonly SqlType[]): IndexedKeys {
  let index = indexes.get(batch);
  if (index === undefined) {
    const keys = encodeKeyBatch(batch, keyNames, keyTypes);
    const rows = sortedOrder(keys.hashes, keys.length);
    index = { keys, sortedHashes: Uint32Array.from(rows, (r) => keys.hashes[r]!), rows };
    indexes.set(batch, index);
  }
  return index;
}

/** The rows whose key hash is one of `hashes`, ascending. */
export function rowsWithHashes(index: IndexedKeys, hashes: readonly Uint32Array[]): number[] {
  const out: number[] = [];
  for (const hs of hashes) {
    for (let i = 0; i < hs.length; i++) {
      const h = hs[i]! >>> 0;
      for (let at = rankBelow(index.sortedHashes, h); at < index.sortedHashes.length && index.sortedHashes[at] === h; at++) out.push(index.rows[at]!);
    }
  }
  out.sort((a, b) => a - b);
  // A hash asked for twice (two nodes, or two members colliding) lists its rows twice.
  return out.filter((r, i) => i === 0 || out[i - 1] !== r);
}
