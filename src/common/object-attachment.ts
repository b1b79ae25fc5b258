/**
 * A value kept on an object for as long as the object lives, for objects made and dropped by
 * the thousand a second (a statement's batches and column arrays). A WeakMap would say the same,
 * but V8's scavenger treats a WeakMap entry's key weakly and its value strongly: when the map
 * is old and the key young, the value and all it reaches are copied, then promoted, even when
 * the key is already garbage, and die only at the next full collection (a point read made two
 * such entries). A property on the object dies with it in the young generation.
 *
 * The property is a non-enumerable symbol, so copies, JSON and deep-equality checks do not see
 * it; keys must be extensible (never frozen).
 */
export class ObjectAttachment<K extends object, V> {
  readonly #key: symbol;

  constructor(name: string) {
    this.#key = Symbol(name);
  }

  get(owner: K): V | undefined {
    return (owner as Record<symbol, V | undefined>)[this.#key];
  }

  set(owner: K, value: V): void {
    Object.defineProperty(owner, this.#key, { value, writable: true, configurable: true });
  }
}
