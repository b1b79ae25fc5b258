import { valueOrderOf } from '../stats/value-order.js';
import type { ValueOrder } from '../stats/value-order.js';
import { aggregatorOf } from './aggregate-functions.js';
import type { Aggregator } from './aggregate-functions.js';
import type { MergeEngineSpec } from './merge-engine.js';

/** A change row's kind as the fold sees it. */
export const FoldOp = { Upsert: 0, Retract: 1, Delete: 2 } as const;
export type FoldOp = typeof FoldOp[keyof typeof FoldOp];

export interface FoldChange {
  readonly op: FoldOp;
  /** Values by column index (the merge's output columns without `_seq`). */
  readonly row: readonly unknown[];
}

/**
 * One key's rows combined by a non-deduplicate engine: `base` (the key's folded row, if
 * any) then `changes` in (seq, offset) order, each newer than the base row. Returns the
 * key's row, or undefined when the key has none (deleted, or never inserted).
 */
export type KeyFold = (base: readonly unknown[] | undefined, changes: readonly FoldChange[]) => unknown[] | undefined;

/** The fold for `engine` over columns `names` (physical names, in row order). */
export function compileFold(engine: MergeEngineSpec, names: readonly string[]): KeyFold {
  switch (engine.kind) {
    case 'first-row': return firstRow;
    case 'partial-update': return partialUpdate(engine, names);
    case 'aggregation': return aggregation(engine, names);
    default: throw new Error(`no fold for merge-engine ${engine.kind}`);
  }
}

/** The first live row wins; a delete clears the key, so the next row written is the first again. -U never comes (UPDATE is refused). */
const firstRow: KeyFold = foldWith(true, (state, c) => (state === undefined && c.op === FoldOp.Upsert ? [...c.row] : state));

/**
 * The loop every combining engine shares: changes in order, a -D clearing the key where
 * the engine removes rows on delete (otherwise it was refused at write time), every other
 * change given to `step` with the key's state (undefined: no row yet). `step` may change the state in place.
 */
function foldWith(removeOnDelete: boolean, step: (state: unknown[] | undefined, c: FoldChange) => unknown[] | undefined): KeyFold {
  return (base, changes) => {
    let state = base === undefined ? undefined : [...base];
    for (const c of changes) state = c.op === FoldOp.Delete ? (removeOnDelete ? undefined : state) : step(state, c);
    return state;
  };
}

function partialUpdate(engine: MergeEngineSpec & { kind: 'partial-update' }, names: readonly string[]): KeyFold {
  const index = new Map(names.map((n, i) => [n, i]));
  const grouped = new Set<number>();
  // A read may decode only some columns: a group counts when any of its columns is read, and then its sequence columns must be too.
  const present = (cs: readonly string[]): number[] => cs.filter((c) => index.has(c)).map((c) => index.get(c)!);
  const groups = engine.groups.filter((g) => present([...g.sequenceColumns, ...g.columns]).length > 0).map((g) => {
    const seq = present(g.sequenceColumns);
    if (seq.length !== g.sequenceColumns.length) throw new Error(`partial-update merge without the sequence columns ${g.sequenceColumns.join(', ')}`);
    const cols = present(g.columns);
    for (const i of [...seq, ...cols]) grouped.add(i);
    return { seq, cols: [...seq, ...cols], orders: g.sequenceColumns.map((c) => valueOrderOf(engine.types[c]!)!) };
  });
  const free = names.map((_, i) => i).filter((i) => !grouped.has(i));
  return foldWith(engine.removeRecordOnDelete, (state, c) => {
    // -U is an UPDATE's before-image: its +U carries the whole new row.
    if (c.op === FoldOp.Retract) return state;
    state ??= new Array<unknown>(names.length).fill(null);
    // Columns in no group (the key among them): a non-NULL value overwrites, NULL keeps the older one.
    for (const i of free) if (c.row[i] !== null) state[i] = c.row[i];
    // A group moves as a whole, NULLs included, when the row's sequence is at least the stored one.
    for (const g of groups) {
      if (g.seq.every((i) => c.row[i] === null)) continue;
      if (compareSequences(g.seq, g.orders, c.row, state) < 0) continue;
      for (const i of g.cols) state[i] = c.row[i];
    }
    return state;
  });
}

/** Compares two rows' sequence columns in order, NULL below every value. */
function compareSequences(seq: readonly number[], orders: readonly ValueOrder[], a: readonly unknown[], b: readonly unknown[]): number {
  for (let k = 0; k < seq.length; k++) {
    const x = a[seq[k]!];
    const y = b[seq[k]!];
    if (x === null || y === null) {
      if (x === y) continue;
      return x === null ? -1 : 1;
    }
    const d = orders[k]!(x, y);
    if (d !== 0) return d;
  }
  return 0;
}

function aggregation(engine: MergeEngineSpec & { kind: 'aggregation' }, names: readonly string[]): KeyFold {
  // Key columns have no function: they are equal in every row of the key.
  const aggs: (Aggregator | undefined)[] = names.map((n) => {
    const fn = engine.functions[n];
    return fn === undefined ? undefined : aggregatorOf(fn, engine.types[n]!, engine.delimiters[n]);
  });
  return foldWith(engine.removeRecordOnDelete, (state, c) => {
    if (c.op === FoldOp.Retract) {
      if (state !== undefined) for (let i = 0; i < aggs.length; i++) if (aggs[i] !== undefined) state[i] = aggs[i]!.retract(state[i], c.row[i]);
      return state;
    }
    if (state === undefined) return c.row.map((v, i) => (aggs[i] === undefined ? v : aggs[i]!.init(v)));
    for (let i = 0; i < aggs.length; i++) if (aggs[i] !== undefined) state[i] = aggs[i]!.add(state[i], c.row[i]);
    return state;
  });
}
