import type { SqlType } from '../../common/sql-type.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';
import type { CompiledAggregation } from './compile-aggregation.js';
import type { GroupKeys, InternedGroups, KeyColumn, PartialKeyColumn } from './group-keys.js';
import { IntGroupIndex } from './int-group-index.js';
import { KeyReader, keyValues } from './key-reader.js';
import { groupBytes, normalKey, NULL_PART } from './key-normal-form.js';

/**
 * One GROUP BY key (no grouping sets). A direct key (one whose JS values are
 * equal exactly when SQL groups them) is its own Map key, and its int32 values
 * go to an IntGroupIndex instead (a direct array while they are dense); other
 * keys are normalized first (bpchar's blanks, numeric's zeros). A run of equal
 * keys, as sorted or clustered input brings, is looked up once.
 */
export class SingleKeyGroups implements GroupKeys {
  readonly #reader: KeyReader;
  readonly #type: SqlType;
  readonly #direct: boolean;
  /** Normalized (or direct, not int32) key → group. */
  readonly #index = new Map<unknown, number>();
  /** Direct int32 keys; the two indexes never hold the same key. */
  readonly #ints: IntGroupIndex;
  /** Each group's key value. */
  readonly #keys: unknown[] = [];
  #size = 0;
  readonly groupSets = undefined;

  constructor(c: CompiledAggregation, expectedRows: number, reader = new KeyReader(c, { byteKeys: false })) {
    this.#reader = reader;
    this.#type = c.keyTypes[0]!;
    this.#direct = c.directKey;
    this.#ints = new IntGroupIndex(expectedRows);
  }

  get size(): number {
    return this.#size;
  }

  read(b: ColumnarBatch, run: RunState): Promise<KeyColumn[]> {
    return this.#reader.read(b, run);
  }

  intern(keys: readonly KeyColumn[], n: number): InternedGroups {
    const col = keys[0]!;
    if (col.kind === 'int32') return this.#internInts(col.ints, n);
    if (col.kind === 'float64') return this.#internDirectOrNormalized(col.floats, n);
    return this.#internDirectOrNormalized(keyValues(col), n);
  }

  #internDirectOrNormalized(col: ArrayLike<unknown>, n: number): InternedGroups {
    return this.#direct ? this.#internDirect(col, n) : this.#internNormalized(col, n);
  }

  /** The group of `key` (normalized, or direct and not int32), numbering it next with key value `value` when new. */
  groupOf(key: unknown, value: unknown): number {
    const found = this.#index.get(key);
    if (found !== undefined) return found;
    const g = this.#size++;
    this.#index.set(key, g);
    this.#keys.push(value);
    return g;
  }

  #internInts(col: Int32Array, n: number): InternedGroups {
    const groups = new Int32Array(n);
    const ints = this.#ints;
    const keys = this.#keys;
    let newInts = 0;
    let lastKey = 0;
    let lastGroup = -1;
    for (let i = 0; i < n; i++) {
      const v = col[i]!;
      let g: number;
      if (v === lastKey && lastGroup >= 0) g = lastGroup;
      else {
        g = ints.get(v);
        if (g < 0) { g = this.#size++; ints.add(v, g); keys.push(v); newInts++; }
      }
      groups[i] = g;
      lastKey = v;
      lastGroup = g;
    }
    return { groups, added: newInts * groupBytes(0) };
  }

  #internDirect(col: ArrayLike<unknown>, n: number): InternedGroups {
    const groups = new Int32Array(n);
    const ints = this.#ints;
    const keys = this.#keys;
    let added = 0;
    let newInts = 0;
    let lastKey: unknown = undefined;
    let lastGroup = -1;
    for (let i = 0; i < n; i++) {
      const v = col[i];
      let g: number;
      if (v === lastKey && lastGroup >= 0) g = lastGroup;
      else if (typeof v === 'number' && (v | 0) === v) {
        g = ints.get(v);
        if (g < 0) { g = this.#size++; ints.add(v, g); keys.push(v); newInts++; }
      } else {
        const before = this.#size;
        g = this.groupOf(v, v);
        if (this.#size > before) added += groupBytes(v);
      }
      groups[i] = g;
      lastKey = v;
      lastGroup = g;
    }
    return { groups, added: added + newInts * groupBytes(0) };
  }

  #internNormalized(col: ArrayLike<unknown>, n: number): InternedGroups {
    const groups = new Int32Array(n);
    const t = this.#type;
    let added = 0;
    let lastKey: unknown = undefined;
    let lastGroup = -1;
    for (let i = 0; i < n; i++) {
      const v = col[i];
      const key = v === null ? NULL_PART : normalKey(v, t);
      if (key === lastKey && lastGroup >= 0) { groups[i] = lastGroup; continue; }
      const before = this.#size;
      const g = this.groupOf(key, v);
      if (this.#size > before) added += groupBytes(key);
      groups[i] = g;
      lastKey = key;
      lastGroup = g;
    }
    return { groups, added };
  }

  keyValues(): unknown[][] {
    return [this.#keys];
  }

  /** A partial's int32 keys: their range, told to the int index before they arrive. */
  expect(keys: readonly PartialKeyColumn[]): void {
    const key = keys[0];
    if (!this.#direct || key?.kind !== 'float64') return;
    const col = key.floats;
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < col.length; i++) {
      const k = col[i]!;
      if ((k | 0) !== k) return;
      if (k < lo) lo = k;
      if (k > hi) hi = k;
    }
    if (col.length > 0) this.#ints.expect(lo, hi, col.length);
  }

  release(): void {
    this.#ints.release();
  }
}
