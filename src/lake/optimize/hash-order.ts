import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import { hashKeyBatch } from '../bucket/key-hash.js';
import { takeRows } from '../scan/take-rows.js';

/** Row-group size of base files: small enough that a point read decodes little. */
export const BASE_ROW_GROUP_ROWS = 32768;

/** Bit-reversed 32-bit hash: in this order every bucket node (low hash bits) is contiguous. */
export function reverseBits32(h: number): number {
  let x = h >>> 0;
  x = ((x >>> 1) & 0x55555555) | ((x & 0x55555555) << 1);
  x = ((x >>> 2) & 0x33333333) | ((x & 0x33333333) << 2);
  x = ((x >>> 4) & 0x0f0f0f0f) | ((x & 0x0f0f0f0f) << 4);
  x = ((x >>> 8) & 0x00ff00ff) | ((x & 0x00ff00ff) << 8);
  return ((x >>> 16) | (x << 16)) >>> 0;
}

/**
 * The rows of the batches in reversed-hash order, as batches whose concatenation the
 * Parquet writer cuts into row groups of `rowGroupRows`; plus each row group's
 * [min, max] reversed hash for the catalog.
 */
export function sortByReversedHash(
  batches: readonly RecordBatch[], keyNames: readonly string[], keyTypes: readonly SqlType[], rowGroupRows = BASE_ROW_GROUP_ROWS,
): { batches: RecordBatch[]; ranges: [number, number][] } {
  const total = batches.reduce((n, b) => n + b.numRows, 0);
  const rev = new Uint32Array(total);
  const src = new Uint32Array(total);
  const starts: number[] = [];
  let at = 0;
  batches.forEach((b, bi) => {
    starts.push(at);
    const h = hashKeyBatch(b, keyNames, keyTypes);
    for (let i = 0; i < h.length; i++) { rev[at] = reverseBits32(h[i]!); src[at] = bi; at++; }
  });
  const order = new Uint32Array(total);
  for (let i = 0; i < total; i++) order[i] = i;
  order.sort((a, b) => rev[a]! - rev[b]!);
  const out: RecordBatch[] = [];
  const ranges: [number, number][] = [];
  for (let g = 0; g < total; g += rowGroupRows) {
    const end = Math.min(total, g + rowGroupRows);
    ranges.push([rev[order[g]!]!, rev[order[end - 1]!]!]);
    // Within a row group the order does not matter: gather per source batch.
    const perBatch = new Map<number, number[]>();
    for (let j = g; j < end; j++) {
      const row = order[j]!;
      const bi = src[row]!;
      let l = perBatch.get(bi);
      if (l === undefined) perBatch.set(bi, l = []);
      l.push(row - starts[bi]!);
    }
    for (const [bi, rows] of perBatch) out.push(takeRows(batches[bi]!, rows));
  }
  return { batches: out, ranges };
}
