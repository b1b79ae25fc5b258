import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';
import type { CompiledAggregation } from './compile-aggregation.js';
import { CompositeKeyGroups } from './composite-key-groups.js';
import { GrandTotalKeys } from './grand-total-keys.js';
import { GroupingSetKeys } from './grouping-set-keys.js';
import { SingleKeyGroups } from './single-key-groups.js';
import { TextKeyGroups } from './text-key-groups.js';

/** One key column of a batch, in the form its route reads it. */
export type KeyColumn =
  | { readonly kind: 'values'; readonly values: readonly unknown[] }
  /** An int4 column read from its NULL-free Arrow buffer: no value is boxed. */
  | { readonly kind: 'int32'; readonly ints: Int32Array }
  /** A text column read as bytes: each row's id in the route's TextKeyIds; no row is decoded. */
  | { readonly kind: 'textIds'; readonly ids: Int32Array }
  /** A partial aggregate's key column whose keys are all numbers, cloned from a worker as one buffer. */
  | { readonly kind: 'float64'; readonly floats: Float64Array };

/** The key columns a partial aggregate carries between threads (PartialAggregate.keys). */
export type PartialKeyColumn = Extract<KeyColumn, { readonly kind: 'values' | 'float64' }>;

/** The groups of some rows, and the bytes the groups new among them hold. */
export interface InternedGroups {
  readonly groups: Int32Array;
  readonly added: number;
}

/**
 * A hash aggregate's groups by key: rows in, dense group numbers out (0, 1, 2,
 * … in the order rows first reach them), and each group's key values. One
 * implementation per way of keying, picked once per table by chooseGroupKeys.
 */
export interface GroupKeys {
  readonly size: number;
  /** A batch's key columns in the forms this route interns. */
  read(b: ColumnarBatch, run: RunState): Promise<KeyColumn[]>;
  /** The group of each of `n` rows for grouping set `s`, numbering new groups next. */
  intern(keys: readonly KeyColumn[], n: number, s: number): InternedGroups;
  /** Per hashed key, its value in each group. */
  keyValues(): unknown[][];
  /** Per group, the grouping set it belongs to (grouping sets only). */
  readonly groupSets: readonly number[] | undefined;
  /** A partial's key columns are about to be interned: a chance to size an index for them. */
  expect(keys: readonly PartialKeyColumn[]): void;
  /** Done with the groups: large indexes hand their memory on for reuse. */
  release(): void;
}

/** The GroupKeys for a compiled aggregation; `expectedRows` (about how many input rows will come) sizes int key indexes. */
export function chooseGroupKeys(c: CompiledAggregation, expectedRows: number): GroupKeys {
  if (c.spec.groupingSets !== undefined) return new GroupingSetKeys(c);
  switch (c.keyExprs.length) {
    case 0: return new GrandTotalKeys();
    case 1: return c.keyTextColumns[0]! >= 0 ? new TextKeyGroups(c, expectedRows) : new SingleKeyGroups(c, expectedRows);
    default: return new CompositeKeyGroups(c);
  }
}
