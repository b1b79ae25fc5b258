import type { EncodedKeys } from './key-encoding.js';

/**
 * A set of encoded keys (key-encoding.ts) for probing other batches' keys without
 * building a value per row: open addressing on the murmur hash, resolved by encoded
 * equality. Members are row numbers of `keys`.
 */
export class KeySet {
  readonly keys: EncodedKeys;
  readonly #slots: Int32Array;
  readonly #mask: number;
  /**
   * One bit per hash value modulo 4 × the table size: about one in eight is set, and
   * most probes of keys that are not members (the usual case: new keys checked against
   * a table) stop at this cache-resident array instead of missing in the table.
   */
  readonly #filter: Int32Array;
  readonly #filterMask: number;
  /** The first member row whose key equals an earlier member's, if any. */
  readonly duplicate: number | undefined;

  /** The set of `rows` of `keys` (all rows when omitted). */
  constructor(keys: EncodedKeys, rows?: ArrayLike<number>) {
    this.keys = keys;
    const n = rows?.length ?? keys.length;
    let cap = 16;
    while (cap < n * 2) cap *= 2;
    this.#mask = cap - 1;
    this.#slots = new Int32Array(cap).fill(-1);
    this.#filterMask = cap * 4 - 1;
    this.#filter = new Int32Array((cap * 4) >>> 5);
    let duplicate: number | undefined;
    for (let j = 0; j < n; j++) {
      const r = rows === undefined ? j : rows[j]!;
      const f = keys.hashes[r]! & this.#filterMask;
      this.#filter[f >>> 5]! |= 1 << (f & 31);
      let s = keys.hashes[r]! & this.#mask;
      for (;;) {
        const m = this.#slots[s]!;
        if (m < 0) { this.#slots[s] = r; break; }
        if (keys.hashes[m] === keys.hashes[r] && sameKey(keys, m, keys, r)) { duplicate ??= r; break; }
        s = (s + 1) & this.#mask;
      }
    }
    this.duplicate = duplicate;
  }

  /** The member row holding row `r` of `other`'s key, or -1. */
  indexOf(other: EncodedKeys, r: number): number {
    const h = other.hashes[r]!;
    const f = h & this.#filterMask;
    if ((this.#filter[f >>> 5]! & (1 << (f & 31))) === 0) return -1;
    let s = h & this.#mask;
    for (;;) {
      const m = this.#slots[s]!;
      if (m < 0) return -1;
      if (this.keys.hashes[m] === h && sameKey(this.keys, m, other, r)) return m;
      s = (s + 1) & this.#mask;
    }
  }
}

export function sameKey(a: EncodedKeys, i: number, b: EncodedKeys, j: number): boolean {
  if (a.kind === 'long') return a.lo[i] === b.lo[j] && a.hi[i] === b.hi[j];
  const as = a.offsets[i]!; const ae = a.offsets[i + 1]!;
  const bs = b.offsets[j]!; const be = b.offsets[j + 1]!;
  if (ae - as !== be - bs) return false;
  for (let k = 0; k < ae - as; k++) if (a.bytes[as + k] !== b.bytes[bs + k]) return false;
  return true;
}

/** Rows of several encodings of the same key types, one after another, as one. */
export function concatKeys(parts: readonly EncodedKeys[]): EncodedKeys {
  if (parts.length === 1) return parts[0]!;
  let n = 0;
  let nbytes = 0;
  for (const p of parts) { n += p.length; nbytes += p.kind === 'bytes' ? p.offsets[p.length]! : 0; }
  const long = (parts[0]?.kind ?? 'long') === 'long';
  const hashes = new Uint32Array(n);
  const lo = new Int32Array(long ? n : 0);
  const hi = new Int32Array(long ? n : 0);
  const bytes = new Uint8Array(long ? 0 : nbytes);
  const offsets = new Int32Array(long ? 0 : n + 1);
  let g = 0;
  let pos = 0;
  for (const p of parts) {
    hashes.set(p.hashes, g);
    if (long) {
      lo.set(p.lo, g);
      hi.set(p.hi, g);
    } else {
      const len = p.offsets[p.length]!;
      bytes.set(p.bytes.subarray(p.offsets[0]!, p.offsets[0]! + len), pos);
      for (let r = 0; r < p.length; r++) offsets[g + r + 1] = pos + p.offsets[r + 1]! - p.offsets[0]!;
      pos += len;
    }
    g += p.length;
  }
  return { kind: long ? 'long' : 'bytes', length: n, hashes, lo, hi, bytes, offsets };
}

/** Rows `rows` of an encoding, as an encoding of their own. */
export function pickKeys(keys: EncodedKeys, rows: ArrayLike<number>): EncodedKeys {
  const n = rows.length;
  const hashes = new Uint32Array(n);
  for (let j = 0; j < n; j++) hashes[j] = keys.hashes[rows[j]!]!;
  if (keys.kind === 'long') {
    const lo = new Int32Array(n);
    const hi = new Int32Array(n);
    for (let j = 0; j < n; j++) { lo[j] = keys.lo[rows[j]!]!; hi[j] = keys.hi[rows[j]!]!; }
    return { ...keys, length: n, hashes, lo, hi };
  }
  const offsets = new Int32Array(n + 1);
  let size = 0;
  for (let j = 0; j < n; j++) size += keys.offsets[rows[j]! + 1]! - keys.offsets[rows[j]!]!;
  const bytes = new Uint8Array(size);
  let pos = 0;
  for (let j = 0; j < n; j++) {
    const s = keys.offsets[rows[j]!]!; const e = keys.offsets[rows[j]! + 1]!;
    bytes.set(keys.bytes.subarray(s, e), pos);
    pos += e - s;
    offsets[j + 1] = pos;
  }
  return { ...keys, length: n, hashes, bytes, offsets };
}
