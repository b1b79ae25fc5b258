import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { valuesColumn } from '../arrow/column-source.js';
import type { ColumnSource } from '../arrow/column-source.js';
import type { ScaledVector } from '../arrow/scaled-vector.js';
import type { AggregateImpl } from '../functions/function-registry.js';
import type { GroupStates, PartialStates } from './group-states.js';

/**
 * The adapter from a row-at-a-time aggregate (init/step/combine/final) to
 * GroupStates: one state object per group, stepped by the aggregate's own
 * batch step where it has one, else row by row.
 */
export class RowStates implements GroupStates {
  readonly #impl: AggregateImpl;
  readonly #states: unknown[] = [];
  readonly stepsScaled: boolean;

  constructor(impl: AggregateImpl) {
    this.#impl = impl;
    this.stepsScaled = impl.batchStepScaled !== undefined;
  }

  resize(n: number): void {
    const states = this.#states;
    while (states.length < n) states.push(this.#impl.init());
  }

  step(groups: Int32Array, cols: readonly (readonly unknown[])[], sel: Int32Array | undefined, count: number): number {
    const impl = this.#impl;
    const states = this.#states;
    if (impl.batchStep) {
      impl.batchStep(states, groups, cols, sel, count);
      return 0;
    }
    stepRows(impl, states, groups, cols, sel, count);
    return 0;
  }

  stepScaled(groups: Int32Array, arg: ScaledVector, sel: Int32Array | undefined, count: number): void {
    this.#impl.batchStepScaled!(this.#states, groups, arg, sel, count);
  }

  /** The state objects themselves (structured-cloned on their way to the main thread). */
  export(): PartialStates {
    return this.#states;
  }

  merge(p: PartialStates, groups: Int32Array, n: number): void {
    if (!Array.isArray(p)) throw new FloeError(SqlState.internalError, 'a typed partial where object states were expected');
    const impl = this.#impl;
    const states = this.#states;
    const from = p as readonly unknown[];
    for (let i = 0; i < n; i++) {
      const g = groups[i]!;
      states[g] = impl.combine(states[g], from[i]);
    }
  }

  finish(n: number): ColumnSource {
    return valuesColumn(finishStates(this.#impl, this.#states, n));
  }
}

/** Steps states[groups[row]] with one row's arguments at a time, for aggregates without a batch step. */
export function stepRows(
  impl: AggregateImpl, states: unknown[], groups: Int32Array, cols: readonly (readonly unknown[])[], sel: Int32Array | undefined, count: number,
): void {
  const args = new Array<unknown>(cols.length);
  for (let k = 0; k < count; k++) {
    const i = sel ? sel[k]! : k;
    for (let j = 0; j < cols.length; j++) args[j] = cols[j]![i];
    const g = groups[i]!;
    states[g] = impl.step(states[g], args);
  }
}

/** The final values of groups [0, n), NULL as null. */
export function finishStates(impl: AggregateImpl, states: readonly unknown[], n: number): unknown[] {
  const col = new Array<unknown>(n);
  for (let g = 0; g < n; g++) {
    const v = impl.final(states[g]);
    col[g] = v === undefined ? null : v;
  }
  return col;
}
