/**
 * Group numbers of int32 keys in an open-addressing table over typed arrays
 * (linear probing, grown at half full): a JS Map of a million number keys costs
 * a hash-table node per key and a pointer chase per lookup, this costs two array
 * reads. Used for single-column GROUP BY on int2/int4/date (and integral values
 * of other direct keys).
 */
export class Int32GroupIndex {
  #keys = new Int32Array(1024);
  #groups = new Int32Array(1024).fill(-1);
  #mask = 1023;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The group of `key`, or -1. */
  get(key: number): number {
    const keys = this.#keys;
    const groups = this.#groups;
    const mask = this.#mask;
    let i = Math.imul(key, 0x9e3779b1) & mask;
    while (true) {
      const g = groups[i]!;
      if (g < 0 || keys[i] === key) return g;
      i = (i + 1) & mask;
    }
  }

  /** Records `key` → `group`; the key must be absent. */
  add(key: number, group: number): void {
    if ((this.#size + 1) * 2 > this.#groups.length) this.#grow();
    this.#place(key, group);
    this.#size++;
  }

  #place(key: number, group: number): void {
    const mask = this.#mask;
    let i = Math.imul(key, 0x9e3779b1) & mask;
    while (this.#groups[i]! >= 0) i = (i + 1) & mask;
    this.#keys[i] = key;
    this.#groups[i] = group;
  }

  #grow(): void {
    const keys = this.#keys;
    const groups = this.#groups;
    const cap = groups.length * 2;
    this.#keys = new Int32Array(cap);
    this.#groups = new Int32Array(cap).fill(-1);
    this.#mask = cap - 1;
    for (let i = 0; i < groups.length; i++) if (groups[i]! >= 0) this.#place(keys[i]!, groups[i]!);
  }
}
