import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { columnSource } from '../arrow/columnar-batch.js';
import { selectColumn, valuesColumn } from '../arrow/column-source.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { ColumnSource } from '../arrow/column-source.js';
import type { ScaledVector } from '../arrow/scaled-vector.js';
import type { PartialAggregate } from '../pool/scan-pool.js';
import type { RunState } from '../run-state.js';
import { selection, validSelection } from './aggregate-selection.js';
import type { AggregateSelection } from './aggregate-selection.js';
import type { CompiledAggregation } from './compile-aggregation.js';
import { DependentKeyColumn } from './dependent-key-column.js';
import { chooseGroupKeys } from './group-keys.js';
import type { GroupKeys, KeyColumn, PartialKeyColumn } from './group-keys.js';
import { chooseGroupStates } from './group-states.js';
import type { GroupStates } from './group-states.js';

/** One aggregate's inputs from a batch: its argument columns (then ORDER BY values), or its one argument scaled, and the rows it steps. */
interface AggregateInput extends AggregateSelection {
  readonly cols: readonly (readonly unknown[])[];
  readonly scaled: ScaledVector | undefined;
}

/**
 * A hash aggregate's groups and states: GroupKeys numbers the groups densely,
 * and each aggregate's GroupStates keeps its states by group number, so an
 * aggregate updates a whole batch in one call. Both are chosen once, here.
 * Used by the operator on the main thread and by scan workers for partial
 * aggregates.
 */
export class AggregateTable {
  readonly #c: CompiledAggregation;
  readonly #groups: GroupKeys;
  /** Per dependent key, its value in each group. */
  readonly #dependent: DependentKeyColumn[];
  /** Per aggregate, the states of every group. */
  readonly #states: GroupStates[];

  /** `expectedRows`: about how many input rows will come (a scan task's), to size key indexes. */
  constructor(c: CompiledAggregation, { expectedRows = 0 }: { expectedRows?: number } = {}) {
    this.#c = c;
    this.#groups = chooseGroupKeys(c, expectedRows);
    this.#dependent = c.dependentKeys.map(() => new DependentKeyColumn());
    this.#states = c.aggs.map(chooseGroupStates);
  }

  get size(): number {
    return this.#groups.size;
  }

  /** Steps the states with one input batch; returns the bytes newly held (charged to `run.memory`). */
  async sink(b: ColumnarBatch, run: RunState): Promise<number> {
    const c = this.#c;
    const n = b.numRows;
    const keys = await this.#groups.read(b, run);
    const inputs: AggregateInput[] = [];
    for (let a = 0; a < c.aggs.length; a++) inputs.push(await this.#input(a, b, run));
    let added = 0;
    for (let s = 0; s < c.sets.length; s++) {
      const before = this.size;
      const groups = this.#groups.intern(keys, n, s);
      added += groups.added;
      const rows = this.#firstRowsOfNew(groups.groups, before);
      if (rows !== undefined) {
        for (let j = 0; j < c.dependentKeys.length; j++) {
          const d = c.dependentKeys[j]!;
          added += this.#dependent[j]!.append(selectColumn(d.column >= 0 ? columnSource(b, d.column) : valuesColumn(await d.expr.evaluate(b, run)), rows));
        }
      }
      const size = this.size;
      for (let a = 0; a < c.aggs.length; a++) {
        const { cols, scaled, sel, count } = inputs[a]!;
        if (count === 0) continue;
        const states = this.#states[a]!;
        states.resize(size);
        if (scaled) states.stepScaled(groups.groups, scaled, sel, count);
        else added += states.step(groups.groups, cols, sel, count);
      }
    }
    run.memory.reserve(added, 'hash aggregate');
    return added;
  }

  /** Aggregate a's arguments for batch b; a numeric argument with an exact scaled form skips numeric text altogether. */
  async #input(a: number, b: ColumnarBatch, run: RunState): Promise<AggregateInput> {
    const ag = this.#c.aggs[a]!;
    const scaled = this.#states[a]!.stepsScaled && ag.args.length === 1 ? ag.args[0]!.evaluateScaled?.(b) : undefined;
    const cols: unknown[][] = [];
    if (!scaled) for (const e of ag.args) cols.push(await e.evaluate(b, run));
    const f = ag.filter ? await ag.filter.evaluate(b, run) : undefined;
    const { sel, count } = scaled ? validSelection(b.numRows, f, scaled.valid) : selection(b.numRows, f, ag.strict ? cols : []);
    for (const e of ag.orderExprs) cols.push(await e.evaluate(b, run));
    return { cols, scaled, sel, count };
  }

  /** The first row of each group new since `before`, when there are such groups and dependent keys to read there. */
  #firstRowsOfNew(groups: Int32Array, before: number): Int32Array | undefined {
    if (this.size === before || this.#dependent.length === 0) return undefined;
    return firstRows(groups, before, this.size - before);
  }

  /** The key columns in GROUP BY order, hashed and dependent keys where the query wrote them. */
  #keyColumns(): ColumnSource[] {
    return this.#inGroupByOrder(this.#groups.keyValues().map(valuesColumn), (d) => d.column());
  }

  /** #keyColumns, every one decoded. */
  #keyValues(): (readonly unknown[])[] {
    return this.#inGroupByOrder<readonly unknown[]>(this.#groups.keyValues(), (d) => d.values());
  }

  #inGroupByOrder<T>(hashed: T[], dependent: (d: DependentKeyColumn) => T): T[] {
    const c = this.#c;
    if (c.dependentKeys.length === 0) return hashed;
    const out = new Array<T>(c.spec.groupBy.length);
    c.hashedKeys.forEach((k, j) => { out[k] = hashed[j]!; });
    c.dependentKeys.forEach((d, j) => { out[d.index] = dependent(this.#dependent[j]!); });
    return out;
  }

  /**
   * This table's groups as structured-cloneable data (aggregates without
   * DISTINCT/ORDER BY only): key columns of numbers go as Float64Arrays, and
   * typed aggregates as their columns, so cloning them is a copy of buffers
   * rather than of a value or an object per group.
   */
  partial(): PartialAggregate {
    if (this.#c.aggs.some((ag) => ag.buffered)) throw new FloeError(SqlState.internalError, 'partial DISTINCT/ORDER BY aggregates cannot be exported');
    const n = this.size;
    return {
      numGroups: n,
      keys: this.#keyValues().map(partialKeyColumn),
      // Groups no row of an aggregate reached may lie past its states so far.
      states: this.#states.map((states) => { states.resize(n); return states.export(n); }),
    };
  }

  /** Merges another table's partial (same spec, no grouping sets) with the aggregates' combine; returns the bytes newly held. */
  merge(p: PartialAggregate): number {
    if (p.numGroups === 0) return 0;
    const c = this.#c;
    const keys = c.hashedKeys.map((k) => p.keys[k]!);
    this.#groups.expect(keys);
    const before = this.size;
    const { groups, added: groupBytes } = this.#groups.intern(keys, p.numGroups, 0);
    let added = groupBytes;
    const rows = this.#firstRowsOfNew(groups, before);
    if (rows !== undefined) c.dependentKeys.forEach((d, j) => { added += this.#dependent[j]!.append(selectColumn(valuesColumn(partialKeyValues(p.keys[d.index]!)), rows)); });
    for (let a = 0; a < c.aggs.length; a++) {
      const states = this.#states[a]!;
      states.resize(this.size);
      states.merge(p.states[a]!, groups, p.numGroups);
    }
    return added;
  }

  /** Done with the table (after partial() or finish()): its key index hands its memory on for reuse. */
  release(): void {
    this.#groups.release();
  }

  /** Adds the grand-total groups (sets without keys) so they yield a row even on empty input. */
  ensureEmptySets(): void {
    const c = this.#c;
    const none: KeyColumn[] = c.keyExprs.map((): KeyColumn => ({ kind: 'values', values: [null] }));
    for (let s = 0; s < c.sets.length; s++) if (c.sets[s]!.length === 0) this.#groups.intern(none, 1, s);
  }

  /**
   * The output columns (keys, aggregates, grouping id) of every group, in group
   * order; a typed aggregate's column may come as Arrow data (ColumnarAggregate.finishArrow).
   */
  finish(withGroupingId: boolean): { columns: ColumnSource[]; numRows: number } {
    const c = this.#c;
    const n = this.size;
    const out: ColumnSource[] = [...this.#keyColumns()];
    for (const states of this.#states) {
      states.resize(n);
      out.push(states.finish(n));
    }
    if (withGroupingId) {
      const nk = c.keyExprs.length;
      out.push(valuesColumn(this.#groups.groupSets!.map((s) => {
        const set = c.sets[s]!;
        let id = 0;
        for (let k = 0; k < nk; k++) if (!set.includes(k)) id |= 1 << (nk - 1 - k);
        return id;
      })));
    }
    return { columns: out, numRows: n };
  }
}

/**
 * The first row of each group numbered from `before` to `before + count - 1`.
 * Groups are numbered as rows first reach them, so each one's first row is
 * where its number first appears.
 */
function firstRows(groups: Int32Array, before: number, count: number): Int32Array {
  const rows = new Int32Array(count);
  let next = before;
  for (let i = 0; i < groups.length && next < before + count; i++) if (groups[i] === next) rows[next++ - before] = i;
  if (next !== before + count) throw new FloeError(SqlState.internalError, 'hash aggregate groups were not numbered in row order');
  return rows;
}

/** A key column for a partial: one Float64Array when every key in it is a number (cloned as one buffer), else its values. */
function partialKeyColumn(keys: readonly unknown[]): PartialKeyColumn {
  for (let i = 0; i < keys.length; i++) if (typeof keys[i] !== 'number') return { kind: 'values', values: keys };
  return { kind: 'float64', floats: Float64Array.from(keys as number[]) };
}

/** A partial's key column as values (a dependent key's: few partials carry one). */
function partialKeyValues(col: PartialKeyColumn): readonly unknown[] {
  return col.kind === 'values' ? col.values : Array.from(col.floats);
}
