import type { SqlType } from '../../common/sql-type.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';
import type { CompiledAggregation } from './compile-aggregation.js';
import type { GroupKeys, InternedGroups, KeyColumn, PartialKeyColumn } from './group-keys.js';
import { grownTranslation, KeyReader } from './key-reader.js';
import { groupBytes, normalKey, NULL_PART } from './key-normal-form.js';
import { SingleKeyGroups } from './single-key-groups.js';

/**
 * One text, varchar or bpchar column as the GROUP BY key: rows still in Arrow
 * UTF-8 are grouped by their bytes (TextKeyIds), and each byte-level id is
 * translated to its group once, through the same index as rows arriving as
 * values (merged partials, decoded columns) use, so both meet.
 */
export class TextKeyGroups implements GroupKeys {
  readonly #reader: KeyReader;
  readonly #values: SingleKeyGroups;
  readonly #type: SqlType;
  readonly #direct: boolean;
  /** Byte-level id → group (-1 until its first row is placed). */
  #translated: Int32Array = new Int32Array(0);
  readonly groupSets = undefined;

  constructor(c: CompiledAggregation, expectedRows: number) {
    this.#reader = new KeyReader(c, { byteKeys: true });
    this.#values = new SingleKeyGroups(c, expectedRows, this.#reader);
    this.#type = c.keyTypes[0]!;
    this.#direct = c.directKey;
  }

  get size(): number {
    return this.#values.size;
  }

  read(b: ColumnarBatch, run: RunState): Promise<KeyColumn[]> {
    return this.#reader.read(b, run);
  }

  intern(keys: readonly KeyColumn[], n: number): InternedGroups {
    const col = keys[0]!;
    if (col.kind !== 'textIds') return this.#values.intern(keys, n);
    // One lookup per distinct value of the key, not per row.
    const local = col.ids;
    const tr = (this.#translated = grownTranslation(this.#translated, this.#reader.texts[0]!.size));
    const values = this.#reader.texts[0]!.values;
    const groups = new Int32Array(n);
    const direct = this.#direct;
    let added = 0;
    for (let i = 0; i < n; i++) {
      const id = local[i]!;
      let g = tr[id]!;
      if (g < 0) {
        const v = values[id];
        const key = direct ? v : v === null ? NULL_PART : normalKey(v, this.#type);
        const before = this.#values.size;
        g = this.#values.groupOf(key, v);
        if (this.#values.size > before) added += groupBytes(key);
        tr[id] = g;
      }
      groups[i] = g;
    }
    return { groups, added };
  }

  keyValues(): unknown[][] {
    return this.#values.keyValues();
  }

  expect(keys: readonly PartialKeyColumn[]): void {
    this.#values.expect(keys);
  }

  release(): void {
    this.#values.release();
  }
}
