import type { FileReplacement } from '../catalog/catalog.js';

/**
 * Where row `position` of a replaced file lies in the compaction's output file, or
 * undefined when the compaction dropped it (it was already deleted when the file was
 * read). The output holds the file's kept rows in order from outputOffset, so a kept row
 * moves down by the dropped positions before it.
 */
export function replacedPosition(r: Pick<FileReplacement, 'outputOffset' | 'dropped'>, position: number): number | undefined {
  const below = rankBelow(r.dropped, position);
  if (below < r.dropped.length && r.dropped[below] === position) return undefined;
  return r.outputOffset + position - below;
}

/** How many of the ascending `sorted` are below `position`. */
export function rankBelow(sorted: Uint32Array, position: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
