import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../common/sql-type.js';
import type { BucketNode } from '../bucket/bucket-node.js';
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

/** Row numbers 0..total-1 ordered by rev, ties by row number: a stable two-pass 16-bit radix sort (linear, no comparator calls). */
export function sortedOrder(rev: Uint32Array, total: number): Uint32Array {
  let from = new Uint32Array(total);
  for (let i = 0; i < total; i++) from[i] = i;
  let to = new Uint32Array(total);
  const count = new Int32Array(65537);
  for (const shift of [0, 16]) {
    count.fill(0);
    for (let i = 0; i < total; i++) count[((rev[i]! >>> shift) & 0xffff) + 1]!++;
    for (let k = 1; k <= 65536; k++) count[k]! += count[k - 1]!;
    for (let i = 0; i < total; i++) {
      const row = from[i]!;
      to[count[(rev[row]! >>> shift) & 0xffff]!++] = row;
    }
    const t = from; from = to; to = t;
  }
  return from;
}

/**
 * The rows of the batches in reversed-hash order, as batches whose concatenation the
 * Parquet writer cuts into row groups of `rowGroupRows`; plus each row group's
 * [min, max] reversed hash for the catalog.
 */
export function sortByReversedHash(
  batches: readonly RecordBatch[], keyNames: readonly string[], keyTypes: readonly SqlType[], rowGroupRows = BASE_ROW_GROUP_ROWS,
): { batches: RecordBatch[]; ranges: [number, number][] } {
  const rows = hashedRows(batches, keyNames, keyTypes);
  return gatherGroups(batches, rows, sortedOrder(rows.rev, rows.rev.length), rowGroupRows);
}

/**
 * sortByReversedHash of the rows a node split sends to each child: `first` takes the
 * rows whose hash lies in it, the other child the rest. One hashing and one sort serve
 * both files, with no intermediate copy of the split halves.
 */
export function sortByReversedHashSplit(
  batches: readonly RecordBatch[], keyNames: readonly string[], keyTypes: readonly SqlType[], first: BucketNode, rowGroupRows = BASE_ROW_GROUP_ROWS,
): [{ batches: RecordBatch[]; ranges: [number, number][] }, { batches: RecordBatch[]; ranges: [number, number][] }] {
  const rows = hashedRows(batches, keyNames, keyTypes);
  const total = rows.rev.length;
  const order = sortedOrder(rows.rev, total);
  let inFirst = 0;
  for (let j = 0; j < total; j++) if (((rows.hash[order[j]!]! & first.mask) >>> 0) === first.index) inFirst++;
  const a = new Uint32Array(inFirst);
  const b = new Uint32Array(total - inFirst);
  let ia = 0;
  let ib = 0;
  for (let j = 0; j < total; j++) {
    const row = order[j]!;
    if (((rows.hash[row]! & first.mask) >>> 0) === first.index) a[ia++] = row;
    else b[ib++] = row;
  }
  return [gatherGroups(batches, rows, a, rowGroupRows), gatherGroups(batches, rows, b, rowGroupRows)];
}

interface HashedRows {
  /** Key hash of each row, batches back to back. */
  readonly hash: Uint32Array;
  readonly rev: Uint32Array;
  /** Source batch of each row. */
  readonly src: Uint32Array;
  /** First row of each batch. */
  readonly starts: readonly number[];
}

function hashedRows(batches: readonly RecordBatch[], keyNames: readonly string[], keyTypes: readonly SqlType[]): HashedRows {
  const total = batches.reduce((n, b) => n + b.numRows, 0);
  const hash = new Uint32Array(total);
  const rev = new Uint32Array(total);
  const src = new Uint32Array(total);
  const starts: number[] = [];
  let at = 0;
  batches.forEach((b, bi) => {
    starts.push(at);
    const h = hashKeyBatch(b, keyNames, keyTypes);
    for (let i = 0; i < h.length; i++) { hash[at] = h[i]!; rev[at] = reverseBits32(h[i]!); src[at] = bi; at++; }
  });
  return { hash, rev, src, starts };
}

/** The rows `order` (reversed-hash order) as batches cut into row groups, with each group's [min, max] reversed hash. */
function gatherGroups(batches: readonly RecordBatch[], rows: HashedRows, order: Uint32Array, rowGroupRows: number): { batches: RecordBatch[]; ranges: [number, number][] } {
  const { rev, src, starts } = rows;
  const total = order.length;
  const out: RecordBatch[] = [];
  const ranges: [number, number][] = [];
  const counts = new Int32Array(batches.length);
  for (let g = 0; g < total; g += rowGroupRows) {
    const end = Math.min(total, g + rowGroupRows);
    ranges.push([rev[order[g]!]!, rev[order[end - 1]!]!]);
    // Within a row group the order does not matter: gather per source batch, in row
    // order, so the gather copies runs of neighbouring rows and reads memory forwards.
    counts.fill(0);
    for (let j = g; j < end; j++) counts[src[order[j]!]!]!++;
    const lists = batches.map((_, bi) => new Int32Array(counts[bi]!));
    counts.fill(0);
    for (let j = g; j < end; j++) {
      const row = order[j]!;
      const bi = src[row]!;
      lists[bi]![counts[bi]!++] = row - starts[bi]!;
    }
    for (let bi = 0; bi < batches.length; bi++) {
      const list = lists[bi]!;
      if (list.length === 0) continue;
      list.sort();
      out.push(takeRows(batches[bi]!, list));
    }
  }
  return { batches: out, ranges };
}
