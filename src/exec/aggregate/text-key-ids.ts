import type { Data } from 'apache-arrow';
import { isValid, nullMask } from '../../lake/index.js';
import { endWithoutTrailingBlanks } from '../arrow/utf8-blanks.js';

const EMPTY = -1;
const INITIAL_SLOTS = 256;
/** Values of at most this many bytes also key the direct-mapped cache: with the length, a code below 2^26. */
const SHORT_BYTES = 3;
/** The cache has 2^(32 - SHORT_SHIFT) entries. */
const SHORT_SHIFT = 22;

/**
 * Dense ids (0, 1, 2, …) for the distinct values of one text key column, read
 * from the Arrow UTF-8 bytes: a row is hashed and compared as bytes, and only a
 * value seen for the first time is decoded. Decoding every row of a GROUP BY key
 * and hashing the JS string cost more than the rest of the grouping on two
 * one-letter flag columns (6M rows, 4 distinct pairs).
 *
 * `trimBlanks` serves bpchar, whose trailing blanks do not count: they are left
 * out of the hash and the comparison, so 'a' and 'a  ' get one id. Otherwise
 * equal bytes are equal values (text and varchar compare as their bytes for
 * grouping). NULL gets an id of its own, whose value is null.
 */
export class TextKeyIds {
  /** Per id, the value of its first row (decoded once). */
  readonly values: (string | null)[] = [];
  readonly #trimBlanks: boolean;
  /** Open addressing over ids; EMPTY marks a free slot. */
  #slots = new Int32Array(INITIAL_SLOTS).fill(EMPTY);
  /** Per id: hash, and its bytes as [start, end) of the arena. */
  #hashes = new Int32Array(64);
  #starts = new Int32Array(64);
  #ends = new Int32Array(64);
  #arena = new Uint8Array(4096);
  #arenaUsed = 0;
  #nullId = -1;
  /** Direct-mapped cache of short values: exact code (-1 when empty) and id per entry. */
  readonly #shortCodes = new Int32Array(1 << (32 - SHORT_SHIFT)).fill(-1);
  readonly #shortIds = new Int32Array(1 << (32 - SHORT_SHIFT));
  /** Ids of the empty value (slot 0) and of one-byte values (slot 1 + byte); -1 until seen. */
  readonly #singleByte = new Int32Array(257).fill(-1);

  constructor({ trimBlanks }: { trimBlanks: boolean }) {
    this.#trimBlanks = trimBlanks;
  }

  get size(): number {
    return this.values.length;
  }

  /** The id of rows `rows` of `data` (all rows when undefined), a Utf8 Arrow column. */
  idsOf(data: Data, rows: Int32Array | undefined): Int32Array {
    const n = rows === undefined ? data.length : rows.length;
    const out = new Int32Array(n);
    const offsets = data.valueOffsets as Int32Array;
    const bytes = data.values as Uint8Array;
    const mask = nullMask(data);
    const at = data.offset;
    const trim = this.#trimBlanks;
    const codes = this.#shortCodes;
    const shortIds = this.#shortIds;
    const single = this.#singleByte;
    for (let k = 0; k < n; k++) {
      const i = rows === undefined ? k : rows[k]!;
      if (mask !== undefined && !isValid(mask, at, i)) { out[k] = this.#nullId >= 0 ? this.#nullId : this.#addNull(); continue; }
      const s = offsets[i]!;
      const raw = offsets[i + 1]!;
      const e = trim && raw > s && bytes[raw - 1] === 32 ? endWithoutTrailingBlanks(bytes, s, raw) : raw;
      const len = e - s;
      if (len <= 1) {
        // Flags (l_returnflag, l_linestatus): the empty value and each byte have a slot of their own.
        const code = len === 0 ? 0 : 1 + bytes[s]!;
        let id = single[code]!;
        if (id < 0) { id = this.#find(bytes, s, e, raw); single[code] = id; }
        out[k] = id;
        continue;
      }
      if (len > SHORT_BYTES) { out[k] = this.#find(bytes, s, e, raw); continue; }
      // Flags and short codes (a one-letter flag; a shipping mode's first bytes do not fit): up to
      // 3 bytes and the length make an exact code, looked up in a small direct-mapped cache.
      let code = len;
      for (let j = s; j < e; j++) code = code * 256 + bytes[j]!;
      const slot = Math.imul(code, 0x9e3779b1) >>> SHORT_SHIFT;
      if (codes[slot] === code) { out[k] = shortIds[slot]!; continue; }
      const id = this.#find(bytes, s, e, raw);
      codes[slot] = code;
      shortIds[slot] = id;
      out[k] = id;
    }
    return out;
  }

  /** The id of bytes[s, e), adding it when new; `rawEnd` bounds the row's value as stored (with any blanks). */
  #find(bytes: Uint8Array, s: number, e: number, rawEnd: number): number {
    let h = 0x811c9dc5 ^ (e - s);
    for (let j = s; j < e; j++) h = Math.imul(h ^ bytes[j]!, 0x01000193);
    h ^= h >>> 15;
    const slots = this.#slots;
    const mask = slots.length - 1;
    const arena = this.#arena;
    const len = e - s;
    for (let p = h & mask; ; p = (p + 1) & mask) {
      const id = slots[p]!;
      if (id === EMPTY) return this.#add(p, h, bytes, s, e, rawEnd);
      if (this.#hashes[id] !== h) continue;
      const a = this.#starts[id]!;
      if (this.#ends[id]! - a !== len) continue;
      let same = true;
      for (let j = 0; j < len; j++) if (arena[a + j] !== bytes[s + j]) { same = false; break; }
      if (same) return id;
    }
  }

  #add(slot: number, h: number, bytes: Uint8Array, s: number, e: number, rawEnd: number): number {
    const id = this.values.length;
    this.values.push(Buffer.from(bytes.buffer, bytes.byteOffset + s, rawEnd - s).toString('utf8'));
    const len = e - s;
    if (this.#arenaUsed + len > this.#arena.length) {
      const grown = new Uint8Array(Math.max(this.#arena.length * 2, this.#arenaUsed + len));
      grown.set(this.#arena.subarray(0, this.#arenaUsed));
      this.#arena = grown;
    }
    this.#arena.set(bytes.subarray(s, e), this.#arenaUsed);
    this.#ensureIds(id + 1);
    this.#hashes[id] = h;
    this.#starts[id] = this.#arenaUsed;
    this.#ends[id] = this.#arenaUsed + len;
    this.#arenaUsed += len;
    this.#slots[slot] = id;
    // At most half full, so probes stay short.
    if (this.values.length * 2 > this.#slots.length) this.#rehash();
    return id;
  }

  #addNull(): number {
    const id = this.values.length;
    this.values.push(null);
    this.#ensureIds(id + 1);
    this.#nullId = id;
    return id;
  }

  #ensureIds(n: number): void {
    if (n <= this.#hashes.length) return;
    const size = Math.max(n, this.#hashes.length * 2);
    const grow = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => { const b = new Int32Array(size); b.set(a); return b; };
    this.#hashes = grow(this.#hashes);
    this.#starts = grow(this.#starts);
    this.#ends = grow(this.#ends);
  }

  #rehash(): void {
    const slots = new Int32Array(this.#slots.length * 2).fill(EMPTY);
    const mask = slots.length - 1;
    for (let id = 0; id < this.values.length; id++) {
      if (id === this.#nullId) continue;
      let p = this.#hashes[id]! & mask;
      while (slots[p] !== EMPTY) p = (p + 1) & mask;
      slots[p] = id;
    }
    this.#slots = slots;
  }
}
