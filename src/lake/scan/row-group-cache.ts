import type { Data, RecordBatch } from 'apache-arrow';

/**
 * Decoded base-file row groups shared by every point read of the process (and the
 * lookup changelog's search for before-images, txn/cached-base-rows.ts; whole change
 * files for small scans and for table_changes, table/read-changes.ts), bounded by
 * the bytes of their Arrow buffers and evicted least recently used first.
 *
 * A point read decodes one row group of one base file (32k rows of a hash-ordered
 * file); the same row group serves every later key that hashes into it. Entries are
 * keyed by the file's path, the row group and the columns and form decoded: data files
 * are immutable and a rewrite (optimize, tiering) writes a new path, and a schema change
 * changes the columns asked for, so an entry is never stale. It is only ever a cost to
 * keep one.
 */
export interface RowGroupCache {
  get(key: string): readonly RecordBatch[] | undefined;
  /** Keeps `batches` unless they alone exceed the bound; evicts the least recently used entries to fit. */
  put(key: string, batches: readonly RecordBatch[]): void;
  stats(): RowGroupCacheStats;
  clear(): void;
}

export interface RowGroupCacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly maxBytes: number;
  readonly hits: number;
  readonly misses: number;
  readonly evictions: number;
}

/** The process-wide default: `FLOE_ROW_GROUP_CACHE_BYTES`, else 256 MiB (0 turns it off). */
export const DEFAULT_ROW_GROUP_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * A decoded change file larger than this is not kept by the scans that read change files
 * whole: a bulk load's changes would push out the point reads' row groups.
 */
export const MAX_CACHED_CHANGE_FILE_BYTES = 8 * 1024 * 1024;

export function createRowGroupCache(maxBytes: number): RowGroupCache {
  return new LruRowGroupCache(maxBytes);
}

let shared: RowGroupCache | undefined;

export function sharedRowGroupCache(): RowGroupCache {
  if (shared === undefined) {
    const text = process.env['FLOE_ROW_GROUP_CACHE_BYTES'];
    const n = text === undefined || text === '' ? DEFAULT_ROW_GROUP_CACHE_BYTES : Number(text);
    shared = createRowGroupCache(Number.isFinite(n) && n >= 0 ? n : DEFAULT_ROW_GROUP_CACHE_BYTES);
  }
  return shared;
}

/** Bytes a batch's buffers hold (each buffer counted once, dictionaries included). */
export function batchBytes(batch: RecordBatch): number {
  const seen = new Set<ArrayBufferLike>();
  let total = 0;
  const visit = (d: Data): void => {
    for (const b of [d.values, d.valueOffsets, d.nullBitmap, d.typeIds] as (ArrayBufferView | undefined)[]) {
      if (b === undefined || b === null || seen.has(b.buffer)) continue;
      seen.add(b.buffer);
      total += b.byteLength;
    }
    for (const c of d.children) visit(c);
    if (d.dictionary) for (const c of d.dictionary.data) visit(c);
  };
  for (const c of batch.data.children) visit(c);
  return total;
}

class LruRowGroupCache implements RowGroupCache {
  readonly #maxBytes: number;
  /** Insertion order is recency: a hit moves its entry to the end. */
  readonly #entries = new Map<string, { batches: readonly RecordBatch[]; bytes: number }>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;
  #evictions = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get(key: string): readonly RecordBatch[] | undefined {
    const e = this.#entries.get(key);
    if (e === undefined) { this.#misses++; return undefined; }
    this.#hits++;
    this.#entries.delete(key);
    this.#entries.set(key, e);
    return e.batches;
  }

  put(key: string, batches: readonly RecordBatch[]): void {
    const bytes = batches.reduce((n, b) => n + batchBytes(b), 0);
    if (bytes > this.#maxBytes) return;
    const old = this.#entries.get(key);
    if (old !== undefined) { this.#entries.delete(key); this.#bytes -= old.bytes; }
    for (const [k, e] of this.#entries) {
      if (this.#bytes + bytes <= this.#maxBytes) break;
      this.#entries.delete(k);
      this.#bytes -= e.bytes;
      this.#evictions++;
    }
    this.#entries.set(key, { batches, bytes });
    this.#bytes += bytes;
  }

  stats(): RowGroupCacheStats {
    return { entries: this.#entries.size, bytes: this.#bytes, maxBytes: this.#maxBytes, hits: this.#hits, misses: this.#misses, evictions: this.#evictions };
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}
