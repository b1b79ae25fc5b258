import { IntHashTable } from '../operators/joins/int-hash-table.js';

/** A direct range may span this many slots whatever the key count (256 KiB of Int32). */
const DIRECT_MIN_SPAN = 1 << 16;
/** …and this many slots per key (held or expected): sparser keys go to the hash table. */
const DIRECT_SLOTS_PER_KEY = 16;
/** A direct range never spans more than this (128 MiB). */
const DIRECT_MAX_SPAN = 1 << 25;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
/** Released direct arrays at least this long are kept for the thread's next index. */
const SPARE_MIN = 1 << 20;
const SPARE_KEEP_MS = 10_000;

/**
 * One released direct array per thread, zeroed, for the next index that fits
 * in it: a pool worker's next scan task reuses the pages instead of faulting
 * in a fresh array of the same size (dropped after a while unused).
 */
let spare: Int32Array | undefined;
let spareTimer: ReturnType<typeof setTimeout> | undefined;

function keepSpare(a: Int32Array): void {
  if (spare !== undefined && spare.length >= a.length) return;
  spare = a;
  if (spareTimer !== undefined) clearTimeout(spareTimer);
  spareTimer = setTimeout(() => { spare = undefined; spareTimer = undefined; }, SPARE_KEEP_MS);
  spareTimer.unref?.();
}

/**
 * Group numbers of int32 keys (int2/int4/date GROUP BY values). While the keys
 * span a range not much wider than their count — serial ids, order keys, dates
 * — the group of key k sits at `slots[k - lo]`: one array read where a hash
 * table costs several scattered ones. Keys spread wider live in the hash join's
 * typed open-addressing table, and move back to the array when enough keys
 * have come to make their range dense after all.
 */
export class IntGroupIndex {
  #lo = 0;
  /** group + 1 at slots[k - lo]; 0 = no group. Undefined while keys live in #hash. */
  #slots: Int32Array | undefined = new Int32Array(0);
  #hash: IntHashTable | undefined;
  #size = 0;
  #min = INT32_MAX;
  #max = INT32_MIN;
  /** Hash mode: the key count at which the range is checked again. */
  #recheck = 0;
  readonly #expected: number;

  /** `expectedKeys`: how many keys the caller expects (say, its input's rows), so a range is judged by the keys to come too. */
  constructor(expectedKeys = 0) {
    this.#expected = expectedKeys;
  }

  get size(): number {
    return this.#size;
  }

  /** The group of int32 key `k`, or -1. */
  get(k: number): number {
    const slots = this.#slots;
    if (slots !== undefined) {
      const j = k - this.#lo;
      return j >= 0 && j < slots.length ? slots[j]! - 1 : -1;
    }
    return this.#hash!.get(k) ?? -1;
  }

  /** Records group `g` for int32 key `k` (not in the index yet). */
  add(k: number, g: number): void {
    this.#size++;
    if (k < this.#min) this.#min = k;
    if (k > this.#max) this.#max = k;
    const slots = this.#slots;
    if (slots !== undefined) {
      const j = k - this.#lo;
      if (j >= 0 && j < slots.length) { slots[j] = g + 1; return; }
      if (this.#max - this.#min + 1 <= this.#limit(0)) {
        this.#cover(this.#min, this.#max);
        this.#slots![k - this.#lo] = g + 1;
        return;
      }
      this.#toHash();
    }
    this.#hash!.push(k, g);
    if (this.#size >= this.#recheck) {
      this.#recheck = this.#size * 2;
      if (this.#max - this.#min + 1 <= this.#limit(0)) this.#cover(this.#min, this.#max);
    }
  }

  /** Done with the index: a large direct array goes back (zeroed) for the thread's next index. */
  release(): void {
    const slots = this.#slots;
    this.#slots = undefined;
    this.#hash = undefined;
    if (slots === undefined || slots.length < SPARE_MIN) return;
    if (this.#size > 0) slots.fill(0, Math.max(0, this.#min - this.#lo), Math.min(slots.length, this.#max - this.#lo + 1));
    keepSpare(slots);
  }

  /** Up to `keys` new keys within [lo, hi] are coming (a partial to merge): make the range direct now if they keep it dense. */
  expect(lo: number, hi: number, keys: number): void {
    const min = Math.min(lo, this.#min);
    const max = Math.max(hi, this.#max);
    if (this.#slots !== undefined && min >= this.#lo && max < this.#lo + this.#slots.length) return;
    if (max - min + 1 <= this.#limit(keys)) this.#cover(min, max, keys);
  }

  #limit(extra: number): number {
    return Math.min(DIRECT_MAX_SPAN, Math.max(DIRECT_MIN_SPAN, DIRECT_SLOTS_PER_KEY * Math.max(this.#size + extra, this.#expected)));
  }

  /** Makes the direct range cover [lo, hi] (with room to grow towards where it grew), from the array or the hash table. */
  #cover(lo: number, hi: number, extra = 0): void {
    const old = this.#slots;
    const oldLo = this.#lo;
    const need = hi - lo + 1;
    const first = old === undefined || old.length === 0;
    // Room for the keys' range to double (within the limit); a first array starts at the expected
    // key count (untouched pages of a large array cost nothing until used).
    const limit = this.#limit(extra);
    let span = Math.max(need, Math.min(limit, Math.max(1024, 2 * need, first ? this.#expected : 0)));
    const reuse = spare !== undefined && spare.length >= span && spare.length <= Math.max(span, limit) ? spare : undefined;
    if (reuse !== undefined) span = reuse.length;
    // Keys usually climb: the spare room goes above, unless the range grew downwards. Non-negative
    // keys (ids) that fit from zero start there, rather than dipping below the first key seen a
    // little at a time.
    let newLo = !first && lo < oldLo ? hi - span + 1 : lo;
    if (lo >= 0 && (newLo < 0 || hi < span)) newLo = 0;
    newLo = Math.max(INT32_MIN, Math.min(newLo, INT32_MAX - span + 1, lo));
    const length = Math.min(span, INT32_MAX - newLo + 1);
    let slots: Int32Array;
    if (reuse !== undefined && reuse.length === length) { slots = reuse; spare = undefined; } else slots = new Int32Array(length);
    if (old !== undefined) {
      // Every key lies in [#min, #max] ⊆ [lo, hi]: the old array's spare room outside it is empty.
      const from = Math.max(this.#min, oldLo);
      const to = Math.min(this.#max, oldLo + old.length - 1);
      if (from <= to) slots.set(old.subarray(from - oldLo, to - oldLo + 1), from - newLo);
    }
    else {
      // One pass over the table's slots: iterating keys() and looking each up cost an iterator
      // result and a probe per key (28k keys, every run).
      this.#hash!.forEachEntry((k, g) => { slots[k - newLo] = g + 1; });
      this.#hash = undefined;
    }
    this.#slots = slots;
    this.#lo = newLo;
  }

  #toHash(): void {
    const old = this.#slots!;
    const oldLo = this.#lo;
    const hash = new IntHashTable(this.#size * 2);
    for (let j = 0; j < old.length; j++) if (old[j] !== 0) hash.push(oldLo + j, old[j]! - 1);
    this.#hash = hash;
    this.#slots = undefined;
    this.#recheck = this.#size * 2;
  }
}
