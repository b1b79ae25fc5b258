import type { SqlType } from '../../common/sql-type.js';
import { encodeKeyBatch } from '../bucket/key-encoding.js';
import { decodeDataFile } from '../format/data-file-reader.js';
import type { ParquetSource } from '../format/parquet-io.js';
import { rankBelow } from '../optimize/replaced-position.js';
import type { ColumnMetadata } from '../table/table-metadata.js';

/**
 * The key hashes of base-file row groups, sorted, shared by every key check of the process.
 *
 * An INSERT's primary-key check (and the lookup changelog's search for a key's row) goes
 * to the base row groups whose hash range holds each new key, and used to decode their key
 * columns every time: about 32k rows a group, several groups a multi-row INSERT, while a
 * new key is almost never there. A group's hashes, decoded once, rule a key out by binary
 * search; only a hash that is present sends the check to the rows. Data files are
 * immutable (a rewrite writes a new path), so an entry is never stale; they are bounded by
 * bytes (4 per row) and evicted least recently used first.
 */
export const ROW_GROUP_KEY_HASH_BYTES = 64 * 1024 * 1024;

/** Insertion order is recency: a hit moves its entry to the end. */
const entries = new Map<string, Uint32Array>();
const inFlight = new Map<string, Promise<Uint32Array>>();
let decodes = 0;
let cachedBytes = 0;

/** The sorted key hashes of row group `group` of a base file; decoded (its key columns only) on a miss. */
export async function rowGroupKeyHashes(
  open: () => Promise<ParquetSource>, path: string, keyCols: readonly ColumnMetadata[], keyNames: readonly string[], keyTypes: readonly SqlType[], group: number,
): Promise<Uint32Array> {
  const key = `${path}\u0000${group}\u0000${JSON.stringify(keyCols.map((c) => [c.fieldId, c.type]))}`;
  const hit = entries.get(key);
  if (hit !== undefined) {
    entries.delete(key);
    entries.set(key, hit);
    return hit;
  }
  // Concurrent checks that miss the same group (every writer right after a fold wrote a new
  // base file) share one decode: sixteen writers decoded and hashed it sixteen times.
  let decoding = inFlight.get(key);
  if (decoding === undefined) {
    decoding = decodeHashes(open, path, keyCols, keyNames, keyTypes, group);
    decodes++;
    inFlight.set(key, decoding);
    try {
      remember(key, await decoding);
    } finally {
      inFlight.delete(key);
    }
  }
  return decoding;
}

async function decodeHashes(
  open: () => Promise<ParquetSource>, path: string, keyCols: readonly ColumnMetadata[], keyNames: readonly string[], keyTypes: readonly SqlType[], group: number,
): Promise<Uint32Array> {
  const parts = (await decodeDataFile(await open(), path, keyCols, [], [group])).map((b) => encodeKeyBatch(b, keyNames, keyTypes).hashes);
  const hashes = new Uint32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { hashes.set(p, at); at += p.length; }
  hashes.sort();
  return hashes;
}

function remember(key: string, hashes: Uint32Array): void {
  if (hashes.byteLength > ROW_GROUP_KEY_HASH_BYTES) return;
  for (const [k, e] of entries) {
    if (cachedBytes + hashes.byteLength <= ROW_GROUP_KEY_HASH_BYTES) break;
    entries.delete(k);
    cachedBytes -= e.byteLength;
  }
  const old = entries.get(key);
  if (old !== undefined) cachedBytes -= old.byteLength;
  entries.set(key, hashes);
  cachedBytes += hashes.byteLength;
}

/** Whether any of `hashes` is in `sorted` (ascending). */
export function holdsAnyHash(sorted: Uint32Array, hashes: ArrayLike<number>): boolean {
  for (let i = 0; i < hashes.length; i++) {
    const h = hashes[i]! >>> 0;
    const at = rankBelow(sorted, h);
    if (at < sorted.length && sorted[at] === h) return true;
  }
  return false;
}

/** Entries and bytes held now, and row groups decoded since the process started (for tests and diagnosis). */
export function rowGroupKeyHashStats(): { readonly entries: number; readonly bytes: number; readonly decodes: number } {
  return { entries: entries.size, bytes: cachedBytes, decodes };
}
