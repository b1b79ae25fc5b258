import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import { IntHashTable } from '../operators/joins/int-hash-table.js';
import type { RunState } from '../run-state.js';
import type { CompiledAggregation } from './compile-aggregation.js';
import type { GroupKeys, InternedGroups, KeyColumn } from './group-keys.js';
import { KeyDictionary } from './key-dictionary.js';
import { DIRECT_KEY_KINDS, GROUP_OVERHEAD, normalKey } from './key-normal-form.js';
import { grownTranslation, KeyReader } from './key-reader.js';
import { LastPerPrefix } from './last-per-prefix.js';

/** Prefix codes and ids below this index the last level directly (a 256 KiB table). */
const SMALL_IDS = 256;
/** An id below this and a prefix code below PACKED_CODES pack into one exact double: code * ID_SPAN + id. */
const ID_SPAN = 2097152;
const PACKED_CODES = 2147483648;

/** One inner level of the combination: (prefix code, column id) → code, numbers typed, the rare text keys in a Map. */
interface CompositeLevel {
  readonly nums: IntHashTable;
  readonly texts: Map<string, number>;
  size: number;
  /** The (id → code) pair each prefix code met last, checked before the table. */
  readonly last: LastPerPrefix;
}

/**
 * Several GROUP BY keys, no grouping sets: each key column maps its values to
 * dense ids (KeyDictionary; text keys through their byte-level ids), and the
 * ids combine level by level through typed tables keyed by `prefix * 2^21 + id`
 * — numbers, not composite strings. An id past 2^21 (or a prefix past 2^31)
 * keys its level by "prefix,id" in a Map instead. Before a table, each level
 * tries the pair its prefix met last (LastPerPrefix), and the last level a
 * direct table when both are below SMALL_IDS.
 */
export class CompositeKeyGroups implements GroupKeys {
  readonly #c: CompiledAggregation;
  readonly #reader: KeyReader;
  readonly #directParts: boolean[];
  readonly #dicts: KeyDictionary[];
  readonly #levels: CompositeLevel[];
  /** The last level: packed (code, id) → group, and the rare "code,id" texts. */
  readonly #packedIndex = new IntHashTable(1024);
  readonly #textIndex = new Map<string, number>();
  /** The last level's cache: (prefix code, id) → group. */
  readonly #lastGroups = new LastPerPrefix();
  /** The last level's groups for prefix codes and ids both below SMALL_IDS, by code * SMALL_IDS + id (-1: not seen). */
  #smallGroups: Int32Array | undefined;
  /** Per text key read as bytes, byte-level id → dictionary id (-1 until met). */
  readonly #translated: Int32Array[];
  /** Per key, each group's key value. */
  readonly #keys: unknown[][];
  #size = 0;
  readonly groupSets = undefined;

  constructor(c: CompiledAggregation) {
    const nk = c.keyExprs.length;
    this.#c = c;
    this.#reader = new KeyReader(c, { byteKeys: true });
    this.#directParts = c.keyTypes.map((t) => DIRECT_KEY_KINDS.has(t.kind));
    this.#dicts = c.keyExprs.map(() => new KeyDictionary());
    this.#levels = Array.from({ length: nk - 1 }, () => ({ nums: new IntHashTable(1024), texts: new Map<string, number>(), size: 0, last: new LastPerPrefix() }));
    this.#translated = c.keyExprs.map(() => new Int32Array(0));
    this.#keys = c.keyExprs.map(() => []);
  }

  get size(): number {
    return this.#size;
  }

  read(b: ColumnarBatch, run: RunState): Promise<KeyColumn[]> {
    return this.#reader.read(b, run);
  }

  intern(keyCols: readonly KeyColumn[], n: number): InternedGroups {
    const nk = keyCols.length;
    const groups = new Int32Array(n);
    let added = 0;
    // Pass 1, column by column: values to dense ids (a run of equal values looks up once).
    const ids: Int32Array[] = [];
    for (let k = 0; k < nk; k++) {
      const { ids: out, added: bytes } = this.#columnIds(keyCols[k]!, k, n);
      ids.push(out);
      added += bytes;
    }
    // Pass 2, row by row: combine the ids level by level into a group.
    const levels = this.#levels;
    const index = this.#textIndex;
    const packedIndex = this.#packedIndex;
    const lastGroups = this.#lastGroups;
    const smallGroups = (this.#smallGroups ??= new Int32Array(SMALL_IDS * SMALL_IDS).fill(-1));
    for (let i = 0; i < n; i++) {
      let code = ids[0]![i]!;
      for (let k = 1; k < nk - 1; k++) {
        // Inner levels: typed tables on the packed number (a Map on doubles costs ~400 ns a lookup).
        const id = ids[k]![i]!;
        const level = levels[k - 1]!;
        const known = level.last.get(code, id);
        if (known >= 0) { code = known; continue; }
        let next: number | undefined;
        if (id < ID_SPAN && code < PACKED_CODES) {
          const packed = code * ID_SPAN + id;
          next = level.nums.get(packed);
          if (next === undefined) { next = level.size++; level.nums.push(packed, next); added += 48; }
        } else {
          const packed = `${code},${id}`;
          next = level.texts.get(packed);
          if (next === undefined) { next = level.size++; level.texts.set(packed, next); added += 48; }
        }
        level.last.set(code, id, next);
        code = next;
      }
      const id = ids[nk - 1]![i]!;
      // Few distinct prefixes and values (3 return flags × 2 line statuses): one array read.
      const small = (code | id) < SMALL_IDS;
      if (small) { const g = smallGroups[code * SMALL_IDS + id]!; if (g >= 0) { groups[i] = g; continue; } }
      const known = lastGroups.get(code, id);
      if (known >= 0) { groups[i] = known; if (small) smallGroups[code * SMALL_IDS + id] = known; continue; }
      let g: number | undefined;
      if (id < ID_SPAN && code < PACKED_CODES) {
        // A typed table, not the Map: a Map keyed by doubles boxes each new key.
        const packed = code * ID_SPAN + id;
        g = packedIndex.get(packed);
        if (g === undefined) { g = this.#newGroup(keyCols, i); packedIndex.push(packed, g); added += GROUP_OVERHEAD; }
      } else {
        const packed = `${code},${id}`;
        g = index.get(packed);
        if (g === undefined) { g = this.#newGroup(keyCols, i); index.set(packed, g); added += GROUP_OVERHEAD; }
      }
      lastGroups.set(code, id, g);
      if (small) smallGroups[code * SMALL_IDS + id] = g;
      groups[i] = g;
    }
    return { groups, added };
  }

  /** Key k's dictionary id of each row, and the bytes its new dictionary entries hold. */
  #columnIds(col: KeyColumn, k: number, n: number): { ids: Int32Array; added: number } {
    const dict = this.#dicts[k]!;
    const t = this.#c.keyTypes[k]!;
    const direct = this.#directParts[k]!;
    const out = new Int32Array(n);
    let added = 0;
    switch (col.kind) {
      case 'textIds': {
        // A text key read as bytes: its ids translate to dictionary ids once per distinct value.
        const local = col.ids;
        const texts = this.#reader.texts[k]!;
        const tr = (this.#translated[k] = grownTranslation(this.#translated[k]!, texts.size));
        const values = texts.values;
        for (let i = 0; i < n; i++) {
          const l = local[i]!;
          let id = tr[l]!;
          if (id < 0) {
            const v = values[l];
            const key = v === null || v === undefined ? null : direct ? v : normalKey(v, t);
            const before = dict.size;
            id = dict.idOf(key);
            if (dict.size > before) added += 48 + (typeof key === 'string' ? key.length * 2 : 0);
            tr[l] = id;
          }
          out[i] = id;
        }
        return { ids: out, added };
      }
      case 'int32': {
        // An int4 key read from its buffer (NULL-free): no value is boxed or normalized.
        const ints = col.ints;
        const before = dict.size;
        for (let i = 0; i < n; i++) out[i] = dict.idOfInt(ints[i]!);
        return { ids: out, added: 48 * (dict.size - before) };
      }
      case 'values': case 'float64': {
        const values: ArrayLike<unknown> = col.kind === 'values' ? col.values : col.floats;
        let lastValue: unknown;
        let lastId = -1;
        for (let i = 0; i < n; i++) {
          const v = values[i];
          if (lastId >= 0 && v === lastValue) { out[i] = lastId; continue; }
          const key = v === null || v === undefined ? null : direct ? v : normalKey(v, t);
          const size = dict.size;
          const id = dict.idOf(key);
          if (dict.size > size) added += 48 + (typeof key === 'string' ? key.length * 2 : 0);
          out[i] = id;
          lastValue = v;
          lastId = id;
        }
        return { ids: out, added };
      }
    }
  }

  /** Numbers a new group, keeping row `row`'s key values. */
  #newGroup(keyCols: readonly KeyColumn[], row: number): number {
    const keys = this.#keys;
    for (let k = 0; k < keys.length; k++) keys[k]!.push(this.#reader.valueAt(keyCols[k]!, k, row));
    return this.#size++;
  }

  keyValues(): unknown[][] {
    return this.#keys;
  }

  expect(): void {}

  release(): void {
    for (const d of this.#dicts) d.release();
  }
}
