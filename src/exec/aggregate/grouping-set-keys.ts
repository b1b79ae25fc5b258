import type { SqlType } from '../../common/sql-type.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';
import type { CompiledAggregation } from './compile-aggregation.js';
import type { GroupKeys, InternedGroups, KeyColumn } from './group-keys.js';
import { DIRECT_KEY_KINDS, groupBytes, keyPart, NULL_PART } from './key-normal-form.js';
import { KeyReader } from './key-reader.js';

/**
 * GROUPING SETS, ROLLUP and CUBE: a row joins one group per set, keyed by a
 * string of the set's number and its keys' parts (the keys outside the set as
 * NULL). Rare enough that the one general route serves them.
 */
export class GroupingSetKeys implements GroupKeys {
  readonly #sets: readonly (readonly number[])[];
  readonly #types: readonly SqlType[];
  readonly #reader: KeyReader;
  readonly #directParts: boolean[];
  /** Per grouping set, whether each key column is in it. */
  readonly #inSet: boolean[][];
  readonly #index = new Map<string, number>();
  /** Per key, each group's key value (NULL where its set leaves the key out). */
  readonly #keys: unknown[][];
  readonly #setOf: number[] = [];

  constructor(c: CompiledAggregation) {
    this.#sets = c.sets;
    this.#types = c.keyTypes;
    this.#reader = new KeyReader(c, { byteKeys: false });
    this.#directParts = c.keyTypes.map((t) => DIRECT_KEY_KINDS.has(t.kind));
    this.#inSet = c.sets.map((set) => c.keyExprs.map((_, k) => set.includes(k)));
    this.#keys = c.keyExprs.map(() => []);
  }

  get size(): number {
    return this.#setOf.length;
  }

  get groupSets(): readonly number[] {
    return this.#setOf;
  }

  read(b: ColumnarBatch, run: RunState): Promise<KeyColumn[]> {
    return this.#reader.read(b, run);
  }

  intern(keyCols: readonly KeyColumn[], n: number, s: number): InternedGroups {
    const inSet = this.#inSet[s]!;
    const prefix = this.#sets.length > 1 ? s + '|' : '';
    const direct = this.#directParts;
    const reader = this.#reader;
    const nk = this.#keys.length;
    const groups = new Int32Array(n);
    let added = 0;
    for (let i = 0; i < n; i++) {
      let key = prefix;
      for (let k = 0; k < nk; k++) {
        const kk = inSet[k] ? keyPart(reader.valueAt(keyCols[k]!, k, i), this.#types[k]!, direct[k]!) : NULL_PART;
        key += kk.length + ':' + kk;
      }
      let g = this.#index.get(key);
      if (g === undefined) {
        g = this.#setOf.length;
        this.#setOf.push(s);
        this.#index.set(key, g);
        for (let k = 0; k < nk; k++) this.#keys[k]!.push(inSet[k] ? reader.valueAt(keyCols[k]!, k, i) : null);
        added += groupBytes(key);
      }
      groups[i] = g;
    }
    return { groups, added };
  }

  keyValues(): unknown[][] {
    return this.#keys;
  }

  expect(): void {}

  release(): void {}
}
