import type { Catalog, FileRecord } from '../catalog/catalog.js';
import { replacedPosition } from '../optimize/replaced-position.js';
import { deletionVectorsByTarget } from '../table/deletion-vectors.js';
import { stagedFileIndex } from './staged-file-id.js';

/** A transaction's deleted positions per file, as they apply at the branch head. */
export interface DeletesAtHead {
  /** Target file id (visible at the head, staged, or a file no compaction explains) → positions. */
  readonly deletes: Map<number, Set<number>>;
  /**
   * Rows deleted here that a commit after the transaction's snapshot already deleted: at
   * the head, in the target's deletion vector, or dropped by a compaction on the way there
   * (a compaction drops only rows deleted before it read the file). The transaction read
   * every row it deletes as live, so either means a concurrent delete of the same row.
   */
  readonly deletedSince: number;
}

/** Chains longer than this are not followed (each link is a compaction that ran while the transaction was open). */
const MAX_CHAIN = 64;

/**
 * Moves row ids read at an older snapshot onto the files that hold those rows at the
 * head: a compaction that committed since may have rewritten the file they name, and
 * recorded where its rows went (FileReplacement). A position the compaction dropped was
 * deleted before it read the file, so deleting it again is a no-op here, counted in
 * deletedSince for the read-modify-write check (40001), row by row: a compaction puts
 * many files' rows in one, and a file-level check would then fail writers that never
 * touched the same row.
 */
export function deletesAtHead(
  catalog: Catalog, tableId: number, atHead: readonly FileRecord[], read: ReadonlyMap<number, ReadonlySet<number>>,
): DeletesAtHead {
  const deletes = new Map<number, Set<number>>();
  let deletedSince = 0;
  if (read.size === 0) return { deletes, deletedSince };
  const visible = new Set<number>(atHead.map((f) => f.fileId));
  const dvs = deletionVectorsByTarget(atHead);
  // A vector becomes a Set only when this transaction's deletes land on its file.
  const goneSets = new Map<number, ReadonlySet<number>>();
  const goneIn = (fileId: number): ReadonlySet<number> | undefined => {
    let gone = goneSets.get(fileId);
    if (gone === undefined) {
      const positions = dvs.get(fileId)?.dvPositions;
      if (positions === undefined) return undefined;
      goneSets.set(fileId, gone = new Set(positions));
    }
    return gone;
  };
  const add = (fileId: number, positions: Iterable<number>): void => {
    let s = deletes.get(fileId);
    if (s === undefined) deletes.set(fileId, s = new Set());
    for (const p of positions) s.add(p);
  };
  const landed = (fileId: number, positions: Iterable<number>): void => {
    const gone = goneIn(fileId);
    for (const p of positions) if (gone?.has(p) === true) deletedSince++;
    add(fileId, positions);
  };
  for (const [fileId, positions] of read) {
    if (stagedFileIndex(fileId) !== undefined) { add(fileId, positions); continue; }
    if (visible.has(fileId)) { landed(fileId, positions); continue; }
    const moved = follow(catalog, tableId, visible, fileId, [...positions], 0);
    // No compaction explains the file: the commit reports the row ids as no longer valid.
    if (moved === undefined) { add(fileId, positions); continue; }
    deletedSince += positions.size - moved.positions.length;
    if (moved.fileId !== 0 && moved.positions.length > 0) landed(moved.fileId, moved.positions);
  }
  return { deletes, deletedSince };
}

interface Moved { readonly fileId: number; readonly positions: number[] }

/** The replacement chain from `fileId` to a file visible at the head (or to "every row dropped"), if one exists. */
function follow(catalog: Catalog, tableId: number, visible: ReadonlySet<number>, fileId: number, positions: number[], depth: number): Moved | undefined {
  if (visible.has(fileId)) return { fileId, positions };
  if (depth >= MAX_CHAIN) return undefined;
  let allDropped: Moved | undefined;
  // A file rewritten on two branches has two replacements: the one whose output is (or
  // leads to) a file visible at this head is this branch's.
  for (const r of catalog.fileReplacements(tableId, [fileId])) {
    const out: number[] = [];
    for (const p of positions) {
      const q = replacedPosition(r, p);
      if (q !== undefined) out.push(q);
    }
    if (r.outputFileId === 0) { allDropped ??= { fileId: 0, positions: [] }; continue; }
    const next = follow(catalog, tableId, visible, r.outputFileId, out, depth + 1);
    if (next !== undefined) return next;
  }
  return allDropped;
}
