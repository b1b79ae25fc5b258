import { IntHashTable } from './int-hash-table.js';

/** A direct range may span this many slots whatever the group count (4 MiB of Int32). */
const DIRECT_MIN_SPAN = 1 << 20;
/** …and this many slots per group beyond that: sparser keys go to the hash table. */
const DIRECT_SLOTS_PER_GROUP = 8;
/** A direct range never spans more than this (256 MiB). */
const DIRECT_MAX_SPAN = 1 << 26;

/**
 * Group numbers of int32 keys (int2/int4/date GROUP BY values). While the keys
 * seen span a range not much wider than their count — serial ids, order keys,
 * dates — the group of key k sits at `slots[k - lo]`: one array read, in key
 * order when the input is clustered, where hashing scatters every lookup over a
 * table several times the size. Keys that spread wider move the index, once,
 * to the hash join's typed open-addressing table.
 */
export class IntGroupIndex {
  #lo = 0;
  /** group + 1 at slots[k - lo]; 0 = no group. Undefined once keys moved to #hash. */
  #slots: Int32Array | undefined = new Int32Array(0);
  #hash: IntHashTable | undefined;
  #size = 0;

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
    if (this.#slots !== undefined) {
      const j = k - this.#lo;
      if (j >= 0 && j < this.#slots.length) { this.#slots[j] = g + 1; return; }
      if (this.#widen(k)) { this.#slots![k - this.#lo] = g + 1; return; }
    }
    this.#hash!.push(k, g);
  }

  /** Makes the direct range cover `k` when it stays dense enough; else moves every key to the hash table. */
  #widen(k: number): boolean {
    const old = this.#slots!;
    const oldLo = this.#lo;
    const empty = this.#size === 1;
    const lo = empty ? k : Math.min(oldLo, k);
    const hi = empty ? k : Math.max(oldLo + old.length - 1, k);
    const need = hi - lo + 1;
    const limit = Math.min(DIRECT_MAX_SPAN, Math.max(DIRECT_MIN_SPAN, this.#size * DIRECT_SLOTS_PER_GROUP));
    if (need <= limit) {
      // Room to grow on the side that grew (keys usually climb), within the limit.
      let span = Math.max(need, Math.min(limit, empty ? 1024 : old.length * 2));
      const newLo = k < oldLo && !empty ? Math.max(hi - span + 1, -2147483648) : lo;
      span = Math.min(span, 2147483647 - newLo + 1);
      const slots = new Int32Array(span);
      if (!empty) slots.set(old, oldLo - newLo);
      this.#slots = slots;
      this.#lo = newLo;
      return true;
    }
    const hash = new IntHashTable(this.#size * 2);
    for (let j = 0; j < old.length; j++) if (old[j] !== 0) hash.push(oldLo + j, old[j]! - 1);
    this.#hash = hash;
    this.#slots = undefined;
    return false;
  }
}
