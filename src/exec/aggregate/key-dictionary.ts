import { IntGroupIndex } from './int-group-index.js';

/**
 * Dense ids (0, 1, 2, …) for the values of one column of a composite GROUP BY
 * key. Int32 numbers go through an IntGroupIndex — a direct array while they
 * are dense, as customer keys and dates are — and anything else (already
 * normalized keys) through a Map. Both share one numbering, so a value gets the
 * same id whether it comes from an Int32Array or as a decoded value.
 */
export class KeyDictionary {
  readonly #ints = new IntGroupIndex();
  readonly #others = new Map<unknown, number>();
  size = 0;

  /** The id of an int32 value, numbering it next when new. */
  idOfInt(v: number): number {
    let id = this.#ints.get(v);
    if (id < 0) { id = this.size++; this.#ints.add(v, id); }
    return id;
  }

  /** The id of a normalized key value (null for NULL), numbering it next when new. */
  idOf(key: unknown): number {
    if (typeof key === 'number' && (key | 0) === key) return this.idOfInt(key);
    let id = this.#others.get(key);
    if (id === undefined) { id = this.size++; this.#others.set(key, id); }
    return id;
  }

  /** Done with it: a large direct array goes back for the thread's next index. */
  release(): void {
    this.#ints.release();
  }
}
