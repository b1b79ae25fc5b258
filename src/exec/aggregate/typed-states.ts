import type { SqlType } from '../../common/sql-type.js';
import { ArrowColumn, valuesColumn } from '../arrow/column-source.js';
import type { ColumnSource } from '../arrow/column-source.js';
import type { ScaledVector } from '../arrow/scaled-vector.js';
import type { ColumnarAggregate, ColumnarPartial } from '../functions/function-registry.js';
import type { GroupStates, PartialStates } from './group-states.js';

/** An aggregate whose states live in its own typed columns (ColumnarAggregate): counts, sums and the like without an object per group. */
export class TypedStates implements GroupStates {
  readonly #columns: ColumnarAggregate;
  readonly #type: SqlType;
  readonly stepsScaled: boolean;

  constructor(columns: ColumnarAggregate, type: SqlType) {
    this.#columns = columns;
    this.#type = type;
    this.stepsScaled = columns.batchStepScaled !== undefined;
  }

  resize(n: number): void {
    this.#columns.resize(n);
  }

  step(groups: Int32Array, args: readonly (readonly unknown[])[], sel: Int32Array | undefined, count: number): number {
    this.#columns.batchStep(groups, args, sel, count);
    return 0;
  }

  stepScaled(groups: Int32Array, arg: ScaledVector, sel: Int32Array | undefined, count: number): void {
    this.#columns.batchStepScaled!(groups, arg, sel, count);
  }

  export(n: number): PartialStates {
    return this.#columns.export(n);
  }

  merge(p: PartialStates, groups: Int32Array): void {
    this.#columns.merge(p as ColumnarPartial, groups);
  }

  /** As Arrow data when the columns can say their values so (ColumnarAggregate.finishArrow). */
  finish(n: number): ColumnSource {
    const data = this.#columns.finishArrow?.(n);
    return data ? new ArrowColumn(data, this.#type) : valuesColumn(this.#columns.finish(n));
  }
}
