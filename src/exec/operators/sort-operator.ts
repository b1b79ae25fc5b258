import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { OutputColumn, SortPlan } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';
import type { Operator } from './operator.js';
import { BATCH_ROWS, breathe, emitValues, estimateBytes, inputBatches, meteredOperator, recordMetric } from './operator-support.js';
import { compileSortKeys } from './sort-keys.js';
import type { CompiledSortKeys } from './sort-keys.js';
import { SpillDirectory, SpillWriter, readSpillFile } from './spill-file.js';

/** Input rows held in memory, with what they were charged against the query's memory limit. */
interface Buffered {
  readonly columns: unknown[][];
  numRows: number;
  bytes: number;
}

/**
 * ORDER BY. Rows are held in memory while they fit the query's memory limit and
 * sorted once there (row indexes, stable). When the next batch would not fit,
 * the rows held so far are sorted and written to a spill file as one run; at
 * the end the runs are merged (a heap over one batch per run). Ties keep input
 * order throughout: within a run by the stable sort, across runs by run order.
 */
export function createSortOperator(plan: SortPlan, input: Operator): Operator {
  const keys = compileSortKeys(plan.keys);
  // A spilled run carries its key columns too, so merging never re-evaluates a key expression.
  const runColumns: OutputColumn[] = [
    ...input.columns,
    ...plan.keys.map((k, i) => ({ name: `sort_key_${i}`, type: k.expr.type })),
  ];
  const width = input.columns.length;
  return meteredOperator(plan, (run) => sortedBatches(plan, input, keys, runColumns, width, run));
}

/** The input's rows in key order, spilling sorted runs when they do not fit. */
async function* sortedBatches(plan: SortPlan, input: Operator, keys: CompiledSortKeys, runColumns: readonly OutputColumn[], width: number, run: RunState): AsyncGenerator<ColumnarBatch> {
  const spill = new SpillDirectory();
  const runs: string[] = [];
  let held: Buffered = { columns: input.columns.map(() => []), numRows: 0, bytes: 0 };
  try {
    for await (const b of inputBatches(input, run)) {
      const bytes = estimateBytes(b);
      if (!run.memory.fits(bytes) && held.numRows > 0) {
        runs.push(await writeRun(held, keys, spill, runColumns, run));
        run.memory.release(held.bytes);
        held = { columns: input.columns.map(() => []), numRows: 0, bytes: 0 };
      }
      // Still no room with nothing held: other operators of the query hold the memory (53200).
      run.memory.reserve(bytes, 'sort');
      append(held, b, bytes);
    }
    if (runs.length === 0) {
      const { columns, order } = await sortHeld(held, keys, run);
      yield* emitValues(columns.slice(0, width).map((c) => order.map((i) => c[i])), held.numRows);
      return;
    }
    if (held.numRows > 0) runs.push(await writeRun(held, keys, spill, runColumns, run));
    run.memory.release(held.bytes);
    held = { columns: [], numRows: 0, bytes: 0 };
    recordMetric(plan, run, 'Sort Method', `external merge (${runs.length} runs)`);
    yield* mergeRuns(runs, runColumns, width, keys, plan.columns, run);
  } finally {
    run.memory.release(held.bytes);
    spill.remove();
  }
}

function append(held: Buffered, b: ColumnarBatch, bytes: number): void {
  for (let c = 0; c < held.columns.length; c++) {
    const src = b.columns[c]!;
    const dst = held.columns[c]!;
    for (let i = 0; i < b.numRows; i++) dst.push(src[i]);
  }
  held.numRows += b.numRows;
  held.bytes += bytes;
}

/** The held rows' columns followed by their key columns, and the sorted row order. */
async function sortHeld(held: Buffered, keys: CompiledSortKeys, run: RunState): Promise<{ columns: unknown[][]; order: number[] }> {
  const keyCols = await keys.evaluate({ numRows: held.numRows, columns: held.columns }, run);
  const order = keys.order(keyCols, held.numRows);
  return { columns: [...held.columns, ...keyCols], order };
}

async function writeRun(held: Buffered, keys: CompiledSortKeys, spill: SpillDirectory, runColumns: readonly OutputColumn[], run: RunState): Promise<string> {
  const { columns, order } = await sortHeld(held, keys, run);
  const path = spill.newFile('sort-run');
  const writer = await SpillWriter.create(path, runColumns);
  try {
    for (let start = 0; start < order.length; start += BATCH_ROWS) {
      const slice = order.slice(start, start + BATCH_ROWS);
      await writer.write(columns.map((c) => slice.map((i) => c[i])), slice.length);
      await breathe(run);
    }
  } finally {
    await writer.close();
  }
  return path;
}

/** One run being merged: its current batch and the next row of it. */
interface RunCursor {
  readonly source: AsyncGenerator<ColumnarBatch>;
  readonly index: number;
  batch: ColumnarBatch;
  keyCols: readonly (readonly unknown[])[];
  row: number;
}

async function* mergeRuns(
  paths: readonly string[], runColumns: readonly OutputColumn[], width: number, keys: CompiledSortKeys,
  outColumns: readonly OutputColumn[], run: RunState,
): AsyncGenerator<ColumnarBatch> {
  const cursors: RunCursor[] = [];
  try {
    for (const [index, path] of paths.entries()) {
      const source = readSpillFile(path, runColumns);
      const first = await source.next();
      if (first.done) continue;
      cursors.push({ source, index, batch: first.value, keyCols: first.value.columns.slice(width), row: 0 });
    }
    const before = (a: RunCursor, b: RunCursor): boolean => {
      const c = keys.compareRows(a.keyCols, a.row, b.keyCols, b.row);
      return c < 0 || (c === 0 && a.index < b.index);
    };
    const heap = new CursorHeap(before);
    for (const c of cursors) heap.push(c);
    let out: unknown[][] = outColumns.map(() => []);
    let n = 0;
    while (heap.size > 0) {
      const top = heap.peek();
      for (let c = 0; c < width; c++) out[c]!.push(top.batch.columns[c]![top.row]);
      n++;
      top.row++;
      if (top.row === top.batch.numRows) {
        const next = await top.source.next();
        if (next.done) heap.pop();
        else {
          top.batch = next.value;
          top.keyCols = next.value.columns.slice(width);
          top.row = 0;
          heap.siftTop();
        }
      } else {
        heap.siftTop();
      }
      if (n === BATCH_ROWS) {
        yield { numRows: n, columns: out };
        out = outColumns.map(() => []);
        n = 0;
      }
    }
    if (n > 0) yield { numRows: n, columns: out };
  } finally {
    for (const c of cursors) await c.source.return(undefined);
  }
}

/** A binary min-heap of run cursors under `before`. */
class CursorHeap {
  readonly #items: RunCursor[] = [];
  readonly #before: (a: RunCursor, b: RunCursor) => boolean;

  constructor(before: (a: RunCursor, b: RunCursor) => boolean) {
    this.#before = before;
  }

  get size(): number {
    return this.#items.length;
  }

  peek(): RunCursor {
    return this.#items[0]!;
  }

  push(c: RunCursor): void {
    const items = this.#items;
    items.push(c);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): void {
    const items = this.#items;
    const last = items.pop()!;
    if (items.length === 0) return;
    items[0] = last;
    this.siftTop();
  }

  /** Restores the heap after the top cursor moved to its next row. */
  siftTop(): void {
    const items = this.#items;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < items.length && this.#before(items[l]!, items[best]!)) best = l;
      if (r < items.length && this.#before(items[r]!, items[best]!)) best = r;
      if (best === i) return;
      [items[i], items[best]] = [items[best]!, items[i]!];
      i = best;
    }
  }
}
