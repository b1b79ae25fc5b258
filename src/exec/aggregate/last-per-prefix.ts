/**
 * Per prefix code, the last id that followed it and what that pair gave. When a
 * key is determined by the keys before it (c_custkey and six more customer
 * columns), every lookup after a prefix's first is one array read instead of a
 * probe of a table far larger than the cache.
 */
export class LastPerPrefix {
  ids = new Int32Array(0);
  results = new Int32Array(0);

  /** The result remembered for (prefix, id), or -1. */
  get(prefix: number, id: number): number {
    return prefix < this.ids.length && this.ids[prefix] === id ? this.results[prefix]! : -1;
  }

  set(prefix: number, id: number, result: number): void {
    if (prefix >= 1 << 30) return;
    if (prefix >= this.ids.length) {
      const size = Math.max(prefix + 1, this.ids.length * 2, 64);
      const ids = new Int32Array(size).fill(-1);
      ids.set(this.ids);
      const results = new Int32Array(size);
      results.set(this.results);
      this.ids = ids;
      this.results = results;
    }
    this.ids[prefix] = id;
    this.results[prefix] = result;
  }
}
