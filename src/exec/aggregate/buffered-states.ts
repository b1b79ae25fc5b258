import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { valuesColumn } from '../arrow/column-source.js';
import type { ColumnSource } from '../arrow/column-source.js';
import { IntHashTable } from '../operators/joins/int-hash-table.js';
import { rowKey } from '../types/value-ops.js';
import type { CompiledAggregate } from './compile-aggregation.js';
import type { GroupStates, PartialStates } from './group-states.js';
import { finishStates } from './row-states.js';

/** A DISTINCT int2/int4 argument's (group, value) pair packs into one exact double for groups below this (2^21 · 2^32 + 2^31 < 2^53). */
const PAIR_GROUPS = 2097152;
const TWO_32 = 4294967296;

/**
 * DISTINCT and ORDER BY aggregates: DISTINCT alone steps each group's first
 * sight of an argument row and skips the rest; ORDER BY keeps each group's
 * rows (arguments, then sort values) and steps them in order at the end,
 * deduplicated if DISTINCT too. Such states never travel as partials.
 */
export class BufferedStates implements GroupStates {
  readonly #ag: CompiledAggregate;
  readonly #states: unknown[] = [];
  /** Per group, the argument keys seen (rowKey; for distinctInts the values, in groups past PAIR_GROUPS only). */
  readonly #seen: (Set<unknown> | undefined)[] = [];
  /** Per group, its rows to step in order (ORDER BY only). */
  readonly #pending: (unknown[][] | undefined)[] = [];
  /** distinctInts: the (group, value) pairs seen, packed. */
  #pairs: IntHashTable | undefined;
  readonly stepsScaled = false;

  constructor(ag: CompiledAggregate) {
    this.#ag = ag;
  }

  resize(n: number): void {
    const ag = this.#ag;
    while (this.#states.length < n) {
      this.#states.push(ag.impl.init());
      // distinctInts makes a group's Set only if it needs one (see #stepDistinctInts).
      this.#seen.push(ag.distinct && !ag.ordered && !ag.distinctInts ? new Set<unknown>() : undefined);
      this.#pending.push(ag.ordered ? [] : undefined);
    }
  }

  step(groups: Int32Array, cols: readonly (readonly unknown[])[], sel: Int32Array | undefined, count: number): number {
    const ag = this.#ag;
    if (ag.distinctInts) return this.#stepDistinctInts(groups, cols, sel, count);
    const states = this.#states;
    const nArgs = ag.args.length;
    const argCols = cols.slice(0, nArgs);
    const orderCols = cols.slice(nArgs);
    let added = 0;
    for (let k = 0; k < count; k++) {
      const i = sel ? sel[k]! : k;
      const g = groups[i]!;
      const args = argCols.map((col) => col[i]);
      const pend = this.#pending[g];
      if (pend) {
        pend.push([...args, ...orderCols.map((col) => col[i])]);
        added += 16 * (args.length + 1);
        continue;
      }
      const seen = this.#seen[g];
      if (seen) {
        const key = rowKey(args, ag.argTypes);
        if (seen.has(key)) continue;
        seen.add(key);
        added += key.length * 2 + 32;
      }
      states[g] = ag.impl.step(states[g], args);
    }
    return added;
  }

  /**
   * (group, value) pairs seen go into one typed table as group * 2^32 + value
   * (exact, unique): no Set per group (18k groups of about 7 values each) and no
   * key string; a group past PAIR_GROUPS keeps a Set. The rows first seen step
   * the states as one batch.
   */
  #stepDistinctInts(groups: Int32Array, cols: readonly (readonly unknown[])[], sel: Int32Array | undefined, count: number): number {
    const impl = this.#ag.impl;
    const states = this.#states;
    const col = cols[0]!;
    const pairs = (this.#pairs ??= new IntHashTable(1024));
    const seenOf = this.#seen;
    const fresh = new Int32Array(count);
    let m = 0;
    for (let k = 0; k < count; k++) {
      const i = sel ? sel[k]! : k;
      const g = groups[i]!;
      const v = col[i];
      if (typeof v === 'number' && g < PAIR_GROUPS) {
        if (pairs.push(g * TWO_32 + v, 0) >= 0) continue;
      } else {
        const seen = (seenOf[g] ??= new Set<unknown>());
        if (seen.has(v)) continue;
        seen.add(v);
      }
      fresh[m++] = i;
    }
    if (m === 0) return 0;
    if (impl.batchStep) impl.batchStep(states, groups, cols, fresh, m);
    else for (let k = 0; k < m; k++) { const i = fresh[k]!; const g = groups[i]!; states[g] = impl.step(states[g], [col[i]]); }
    return 32 * m;
  }

  stepScaled(): void {
    throw new FloeError(SqlState.internalError, 'DISTINCT/ORDER BY aggregates take no scaled arguments');
  }

  export(): PartialStates {
    throw new FloeError(SqlState.internalError, 'partial DISTINCT/ORDER BY aggregates cannot be exported');
  }

  merge(): void {
    throw new FloeError(SqlState.internalError, 'partial DISTINCT/ORDER BY aggregates cannot be merged');
  }

  finish(n: number): ColumnSource {
    const ag = this.#ag;
    const states = ag.ordered
      ? this.#states.map((state, g) => { const pend = this.#pending[g]; return pend ? this.#replay(state, pend) : state; })
      : this.#states;
    return valuesColumn(finishStates(ag.impl, states, n));
  }

  /** Steps an ORDER BY aggregate's buffered rows in order (deduplicated for DISTINCT). */
  #replay(state: unknown, pend: unknown[][]): unknown {
    const ag = this.#ag;
    const n = ag.args.length;
    const cols: unknown[][] = Array.from({ length: n + ag.orderExprCount }, (_, c) => pend.map((r) => r[c]));
    const idx = pend.map((_, i) => i);
    idx.sort(ag.ordered!.comparator(cols.slice(n)));
    const seen = ag.distinct ? new Set<string>() : undefined;
    for (const i of idx) {
      const args = pend[i]!.slice(0, n);
      if (seen) {
        const k = rowKey(args, ag.argTypes);
        if (seen.has(k)) continue;
        seen.add(k);
      }
      state = ag.impl.step(state, args);
    }
    return state;
  }
}
