/** What a hash join asks of its key → first-build-row index (a Map satisfies it). */
export interface JoinKeyIndex {
  get(key: unknown): number | undefined;
  readonly size: number;
  keys(): IterableIterator<unknown>;
  /** The keys, all numbers, in one array (-0 as 0): the typed tables have it, a Map does not. */
  intKeys?(): Float64Array;
}

const EMPTY = -1;
const TWO_32 = 4294967296;

/** Mixes an integer-valued double (|k| < 2^53) into 32 bits: both halves count, so packed pairs spread. */
function hashNumber(k: number): number {
  const lo = k | 0;
  // k - lo is an exact multiple of 2^32 for integers below 2^53.
  const hi = ((k - lo) / TWO_32) | 0;
  let h = Math.imul(lo, 0x9e3779b1) ^ Math.imul(hi, 0x85ebca77);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h;
}

/**
 * An open-addressing (linear probing) table from number keys to the first row
 * holding each key, in typed arrays: no per-key allocation and no boxing, so
 * building over millions of int join keys costs a fraction of a Map.
 * Only number keys are stored; any other key is simply never found.
 */
export class IntHashTable implements JoinKeyIndex {
  #keys: Float64Array;
  #rows: Int32Array;
  #mask: number;
  size = 0;

  constructor(expectedKeys: number) {
    let cap = 16;
    while (cap < expectedKeys * 2) cap *= 2;
    this.#keys = new Float64Array(cap);
    this.#rows = new Int32Array(cap).fill(EMPTY);
    this.#mask = cap - 1;
  }

  get(key: unknown): number | undefined {
    if (typeof key !== 'number') return undefined;
    const keys = this.#keys;
    const rows = this.#rows;
    const mask = this.#mask;
    for (let s = hashNumber(key) & mask; ; s = (s + 1) & mask) {
      const r = rows[s]!;
      if (r === EMPTY) return undefined;
      if (keys[s] === key) return r;
    }
  }

  /** Whether `key` is in the table (a number only: the runtime filter's membership test). */
  has(key: number): boolean {
    const keys = this.#keys;
    const rows = this.#rows;
    const mask = this.#mask;
    for (let s = hashNumber(key) & mask; ; s = (s + 1) & mask) {
      if (rows[s] === EMPTY) return false;
      if (keys[s] === key) return true;
    }
  }

  /**
   * Makes `row` the first row of `key`, returning the row it displaces (the
   * previous first row, or -1 for a new key).
   */
  push(key: number, row: number): number {
    if ((this.size + 1) * 2 > this.#rows.length) this.#grow();
    const keys = this.#keys;
    const rows = this.#rows;
    const mask = this.#mask;
    for (let s = hashNumber(key) & mask; ; s = (s + 1) & mask) {
      const r = rows[s]!;
      if (r === EMPTY) {
        keys[s] = key;
        rows[s] = row;
        this.size++;
        return -1;
      }
      if (keys[s] === key) {
        rows[s] = row;
        return r;
      }
    }
  }

  *keys(): IterableIterator<unknown> {
    const keys = this.#keys;
    const rows = this.#rows;
    for (let s = 0; s < rows.length; s++) if (rows[s] !== EMPTY) yield keys[s];
  }

  /** Calls `fn` with each key and its row, in table order (no iterator result per key, see intKeys). */
  forEachEntry(fn: (key: number, row: number) => void): void {
    const keys = this.#keys;
    const rows = this.#rows;
    for (let s = 0; s < rows.length; s++) if (rows[s] !== EMPTY) fn(keys[s]!, rows[s]!);
  }

  // Without a generator's iterator result per key: a build of 147k keys cost 8 MB of garbage a run.
  intKeys(): Float64Array {
    const keys = this.#keys;
    const rows = this.#rows;
    const out = new Float64Array(this.size);
    let n = 0;
    for (let s = 0; s < rows.length; s++) if (rows[s] !== EMPTY) out[n++] = keys[s]! + 0;
    return out;
  }

  #grow(): void {
    const oldKeys = this.#keys;
    const oldRows = this.#rows;
    const cap = oldRows.length * 2;
    const keys = new Float64Array(cap);
    const rows = new Int32Array(cap).fill(EMPTY);
    const mask = cap - 1;
    for (let o = 0; o < oldRows.length; o++) {
      const r = oldRows[o]!;
      if (r === EMPTY) continue;
      const k = oldKeys[o]!;
      let s = hashNumber(k) & mask;
      while (rows[s] !== EMPTY) s = (s + 1) & mask;
      keys[s] = k;
      rows[s] = r;
    }
    this.#keys = keys;
    this.#rows = rows;
    this.#mask = mask;
  }
}

/** Tables start sized for at most this many distinct keys and grow past it (many rows often share keys). */
const INITIAL_KEYS_CAP = 1 << 21;

/**
 * A direct range may span this many slots whatever the key count, and this many
 * per key: denser int keys (order keys, serial ids) index an array instead of a
 * hash table, one read where a probe costs several scattered ones.
 */
const DIRECT_MIN_SPAN = 1 << 16;
const DIRECT_SLOTS_PER_KEY = 4;
const DIRECT_MAX_SPAN = 1 << 25;

/** Join key → first build row for int32 keys in [lo, lo + span): row + 1 at slots[key - lo], 0 for none. */
export class DirectIntIndex implements JoinKeyIndex {
  readonly #lo: number;
  readonly #slots: Int32Array;
  size = 0;

  constructor(lo: number, span: number) {
    this.#lo = lo;
    this.#slots = new Int32Array(span);
  }

  get(key: unknown): number | undefined {
    if (typeof key !== 'number') return undefined;
    // A key outside the range, or not an integer, reads undefined (no slot): no row.
    const r = this.#slots[key - this.#lo];
    return r ? r - 1 : undefined;
  }

  /** As IntHashTable.push: makes `row` the first row of int32 `key` in range, returning the row it displaces or -1. */
  push(key: number, row: number): number {
    const j = key - this.#lo;
    const prev = this.#slots[j]! - 1;
    if (prev < 0) this.size++;
    this.#slots[j] = row + 1;
    return prev;
  }

  *keys(): IterableIterator<unknown> {
    const slots = this.#slots;
    for (let j = 0; j < slots.length; j++) if (slots[j] !== 0) yield this.#lo + j;
  }

  intKeys(): Float64Array {
    const slots = this.#slots;
    const out = new Float64Array(this.size);
    let n = 0;
    for (let j = 0; j < slots.length; j++) if (slots[j] !== 0) out[n++] = this.#lo + j;
    return out;
  }
}

/**
 * Head/next row chains over join keys that are all numbers (or undefined: a
 * NULL key `=` rejects), or undefined when some key is not a number (a string
 * for a bigint past 2^53, a composite text key, NULL_KEY, NaN…) and a Map must do.
 * Int32 keys within a range at most a few times their count go to a DirectIntIndex.
 */
export function intKeyChains(keys: ArrayLike<unknown>, next: Int32Array): { head: IntHashTable | DirectIntIndex; hasNullKey: boolean } | undefined {
  let n = 0;
  let ints = true;
  let lo = Infinity;
  let hi = -Infinity;
  for (let j = 0; j < keys.length; j++) {
    const k = keys[j];
    if (k === undefined) continue;
    // NaN never equals itself here, but float keys join NaN = NaN: a Map does that.
    if (typeof k !== 'number' || k !== k) return undefined;
    n++;
    if ((k | 0) !== k) ints = false;
    else { if (k < lo) lo = k; if (k > hi) hi = k; }
  }
  const span = hi - lo + 1;
  const direct = ints && n > 0 && span <= Math.min(DIRECT_MAX_SPAN, Math.max(DIRECT_MIN_SPAN, DIRECT_SLOTS_PER_KEY * n));
  const head = direct ? new DirectIntIndex(lo, span) : new IntHashTable(Math.min(n, INITIAL_KEYS_CAP));
  let hasNullKey = false;
  // Backwards, so each chain runs in row order.
  for (let j = keys.length - 1; j >= 0; j--) {
    const k = keys[j];
    if (k === undefined) { hasNullKey = true; continue; }
    next[j] = head.push(k as number, j);
  }
  return { head, hasNullKey };
}
