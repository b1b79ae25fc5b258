import { columnSource, lazyBatch } from '../../arrow/columnar-batch.js';
import type { ColumnarBatch } from '../../arrow/columnar-batch.js';
import { ArrowColumn, valuesColumn } from '../../arrow/column-source.js';
import type { ArrowForm, ColumnSource } from '../../arrow/column-source.js';
import { concatData } from '../../arrow/concat-data.js';
import type { RunState } from '../../run-state.js';
import { estimateBytes } from '../operator-support.js';

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

/**
 * One batch over several: columns no batch has decoded are concatenated as
 * Arrow data (payload stays undecoded), others are copied value by value.
 */
export function concatBatches(batches: readonly ColumnarBatch[], numRows: number, width: number): ColumnarBatch {
  if (batches.length === 1) return batches[0]!;
  const sources: ColumnSource[] = [];
  for (let c = 0; c < width; c++) {
    const srcs = batches.map((b) => columnSource(b, c));
    const arrow: ArrowForm[] = [];
    for (const p of srcs) if (p.kind !== 'values') arrow.push(p);
    if (arrow.length > 0 && arrow.length === srcs.length) {
      const data = concatData(arrow.map((p) => p.data));
      if (data) { sources.push(new ArrowColumn(data, arrow[0]!.type)); continue; }
    }
    const out: unknown[] = [];
    for (const b of batches) {
      const src = b.columns[c]!;
      for (let i = 0; i < b.numRows; i++) out.push(src[i]);
    }
    sources.push(valuesColumn(out));
  }
  return lazyBatch(numRows, sources);
}
