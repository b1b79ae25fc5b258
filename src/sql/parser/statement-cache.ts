/** A bounded least-recently-used map (Map keeps insertion order; a hit re-inserts). */
export class StatementCache<V> {
  readonly #limit: number;
  readonly #entries = new Map<string, V>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  get(key: string): V | undefined {
    const v = this.#entries.get(key);
    if (v !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, v);
    }
    return v;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#limit) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
