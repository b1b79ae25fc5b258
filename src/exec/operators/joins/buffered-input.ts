import { lazyBatch } from '../../arrow/columnar-batch.js';
import type { ColumnarBatch } from '../../arrow/columnar-batch.js';
import type { ColumnSource } from '../../arrow/column-source.js';
import type { RunState } from '../../run-state.js';
import { concatColumn, estimateBytes } from '../operator-support.js';

/** Batches read ahead from one join input, with the memory reserved for them. */
export interface Buffered {
  batches: ColumnarBatch[];
  rows: number;
  bytes: number;
  /** The input ended. */
  done: boolean;
}

/** Reads batches until the input ends or more than `limit` rows are buffered. */
export async function readUpTo(it: AsyncIterator<ColumnarBatch>, buf: Buffered, limit: number, run: RunState): Promise<void> {
  while (!buf.done && buf.rows <= limit) {
    const r = await it.next();
    if (r.done) { buf.done = true; break; }
    buf.batches.push(r.value);
    buf.rows += r.value.numRows;
    const est = estimateBytes(r.value);
    run.memory.reserve(est, 'hash join');
    buf.bytes += est;
  }
}

/** The buffered batches (let go as they are read), then the rest of the input. */
export async function* drainBuffered(buf: Buffered, rest: AsyncIterator<ColumnarBatch>): AsyncGenerator<ColumnarBatch> {
  for (let b = buf.batches.shift(); b !== undefined; b = buf.batches.shift()) yield b;
  if (buf.done) return;
  for (let r = await rest.next(); !r.done; r = await rest.next()) yield r.value;
}

/** One batch over several, each column concatenated by concatColumn. */
export function concatBatches(batches: readonly ColumnarBatch[], numRows: number, width: number): ColumnarBatch {
  if (batches.length === 1) return batches[0]!;
  const sources: ColumnSource[] = [];
  for (let c = 0; c < width; c++) sources.push(concatColumn(batches, c));
  return lazyBatch(numRows, sources);
}
