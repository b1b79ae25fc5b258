import type { ColumnSource } from '../arrow/column-source.js';
import type { ScaledVector } from '../arrow/scaled-vector.js';
import type { PartialAggregate } from '../pool/scan-pool.js';
import { BufferedStates } from './buffered-states.js';
import type { CompiledAggregate } from './compile-aggregation.js';
import { RowStates } from './row-states.js';
import { TypedStates } from './typed-states.js';

/** One aggregate's states in a partial (PartialAggregate.states). */
export type PartialStates = PartialAggregate['states'][number];

/**
 * One aggregate's states for every group of a hash aggregate, group g at index
 * g, stepped a batch at a time. One implementation per way of holding them,
 * picked once per table by chooseGroupStates.
 */
export interface GroupStates {
  /** stepScaled takes the one numeric argument as a ScaledVector (exact scaled integers) instead of text. */
  readonly stepsScaled: boolean;
  /** Makes groups [0, n) exist; new groups start as the aggregate's `init`. */
  resize(n: number): void;
  /**
   * Steps `states[groups[row]]` for the first `count` rows of `sel` (all rows
   * without it) with `args[c][row]`: the arguments, then any ORDER BY values.
   * Returns the bytes newly held.
   */
  step(groups: Int32Array, args: readonly (readonly unknown[])[], sel: Int32Array | undefined, count: number): number;
  stepScaled(groups: Int32Array, arg: ScaledVector, sel: Int32Array | undefined, count: number): void;
  /** Groups [0, n) as structured-cloneable data. */
  export(n: number): PartialStates;
  /** Combines an exported partial's group i into group `groups[i]` for i < n. */
  merge(p: PartialStates, groups: Int32Array, n: number): void;
  /** The final values of groups [0, n), as values or Arrow data. */
  finish(n: number): ColumnSource;
}

/** An aggregate's states in its typed columns when it has them, else buffered (DISTINCT, ORDER BY) or one object per group. */
export function chooseGroupStates(ag: CompiledAggregate): GroupStates {
  if (ag.buffered) return new BufferedStates(ag);
  if (ag.columnar) return new TypedStates(ag.impl.columnar!(), ag.type);
  return new RowStates(ag.impl);
}
