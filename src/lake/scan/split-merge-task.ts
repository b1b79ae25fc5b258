import type { BucketNode } from '../bucket/bucket-node.js';
import type { FileRecord } from '../catalog/catalog.js';
import { reverseBits32 } from '../optimize/hash-order.js';

/** At most this many pieces per node: the pool is sized to the cores, and this machine class has 2. */
const SPLIT_MAX_PIECES = 4;
/** Fewest row groups of the node's largest base file per piece (dispatch and decoder start-up are not free). */
const SPLIT_MIN_ROW_GROUPS = 2;

/**
 * The key-hash pieces a node's merge-on-read task is cut into, as nodes below it: 2 or 4 of
 * them when its base files are hash-ordered and big enough, else undefined (one task).
 *
 * A node with pending changes was one task, so its merge ran on one worker while the same
 * node optimized was split by row groups over all of them. Keys never meet across hash
 * ranges, so a piece merges on its own: it reads the base row groups whose recorded
 * reversed-hash range meets its own (a hash-ordered file's groups are contiguous in it)
 * and keeps the rows of its hashes, and every change file filtered to them.
 */
export function mergePieces(node: BucketNode, base: readonly FileRecord[]): BucketNode[] | undefined {
  if (base.length === 0 || base.some((f) => f.rowGroups === undefined)) return undefined;
  const groups = Math.max(...base.map((f) => f.rowGroups!.length));
  const wanted = Math.min(SPLIT_MAX_PIECES, Math.floor(groups / SPLIT_MIN_ROW_GROUPS));
  let depth = 0;
  while (2 ** (depth + 1) <= wanted) depth++;
  const bits = Math.log2(node.mask + 1);
  if (depth === 0 || bits + depth > 31) return undefined;
  const mask = (node.mask + 1) * 2 ** depth - 1;
  return Array.from({ length: 2 ** depth }, (_, j) => ({ mask, index: node.index + j * (node.mask + 1) }));
}

/** The row groups of a hash-ordered base file whose reversed-hash range meets the node's hashes. */
export function rowGroupsMeeting(f: FileRecord, node: BucketNode): number[] {
  const bits = Math.log2(node.mask + 1);
  const lo = reverseBits32(node.index);
  const hi = lo + 2 ** (32 - bits) - 1;
  const out: number[] = [];
  f.rowGroups!.forEach(([a, b], g) => { if (a <= hi && b >= lo) out.push(g); });
  return out;
}
