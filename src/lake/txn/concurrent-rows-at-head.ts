import type { Catalog, FileRecord } from '../catalog/catalog.js';
import { rankBelow } from '../optimize/replaced-position.js';

/** Chains longer than this are not followed (each link is a compaction since the transaction began). */
const MAX_CHAIN = 64;

/**
 * Whether a row at the head (file id, position) is one of the rows of `files` (append-table
 * data files committed concurrently), wherever compactions have moved them since. A
 * compaction puts a file's rows in one output, in order, as a contiguous block less the
 * rows it dropped; so a file's rows are a position range in whatever file holds them now,
 * and any live row inside that range is one of them. Replacements on other branches are
 * followed too: their outputs are not visible at this head, so no row there matches.
 */
export function concurrentRowsAtHead(catalog: Catalog, tableId: number, files: readonly FileRecord[]): (fileId: number, position: number) => boolean {
  const ranges = new Map<number, [number, number][]>();
  const add = (fileId: number, lo: number, hi: number, depth: number): void => {
    if (lo >= hi) return;
    let l = ranges.get(fileId);
    if (l === undefined) ranges.set(fileId, l = []);
    l.push([lo, hi]);
    if (depth >= MAX_CHAIN) return;
    for (const r of catalog.fileReplacements(tableId, [fileId])) {
      if (r.outputFileId === 0) continue;
      add(r.outputFileId, r.outputOffset + lo - rankBelow(r.dropped, lo), r.outputOffset + hi - rankBelow(r.dropped, hi), depth + 1);
    }
  };
  for (const f of files) add(f.fileId, 0, f.rowCount, 0);
  return (fileId, position) => (ranges.get(fileId) ?? []).some(([lo, hi]) => position >= lo && position < hi);
}
