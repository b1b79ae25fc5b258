import type { Catalog } from '../catalog/catalog.js';
import { replacedPosition } from '../optimize/replaced-position.js';
import { stagedFileIndex } from './staged-file-id.js';

/** A transaction's deleted positions per file, as they apply at the branch head. */
export interface DeletesAtHead {
  /** Target file id (visible at the head, staged, or a file no compaction explains) → positions. */
  readonly deletes: Map<number, Set<number>>;
  /** Every file the deletes went through: the ids read, the compaction outputs they moved to. */
  readonly touched: Set<number>;
}

/** Chains longer than this are not followed (each link is a compaction that ran while the transaction was open). */
const MAX_CHAIN = 64;

/**
 * Moves row ids read at an older snapshot onto the files that hold those rows at the
 * head: a compaction that committed since may have rewritten the file they name, and
 * recorded where its rows went (FileReplacement). A position the compaction dropped was
 * deleted before it read the file, so deleting it again is a no-op here; when the
 * transaction checks conflicts, the delete that got there first is a concurrent write
 * on a touched file (40001), as it was before compaction.
 */
export function deletesAtHead(
  catalog: Catalog, tableId: number, visible: ReadonlySet<number>, read: ReadonlyMap<number, ReadonlySet<number>>,
): DeletesAtHead {
  const deletes = new Map<number, Set<number>>();
  const touched = new Set<number>();
  const add = (fileId: number, positions: Iterable<number>): void => {
    let s = deletes.get(fileId);
    if (s === undefined) deletes.set(fileId, s = new Set());
    for (const p of positions) s.add(p);
  };
  for (const [fileId, positions] of read) {
    touched.add(fileId);
    if (stagedFileIndex(fileId) !== undefined || visible.has(fileId)) { add(fileId, positions); continue; }
    const moved = follow(catalog, tableId, visible, fileId, [...positions], 0);
    if (moved === undefined) { add(fileId, positions); continue; }
    for (const f of moved.via) touched.add(f);
    if (moved.fileId !== 0 && moved.positions.length > 0) add(moved.fileId, moved.positions);
  }
  return { deletes, touched };
}

interface Moved { readonly fileId: number; readonly positions: number[]; readonly via: number[] }

/** The replacement chain from `fileId` to a file visible at the head (or to "every row dropped"), if one exists. */
function follow(catalog: Catalog, tableId: number, visible: ReadonlySet<number>, fileId: number, positions: number[], depth: number): Moved | undefined {
  if (visible.has(fileId)) return { fileId, positions, via: [fileId] };
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
    if (r.outputFileId === 0) { allDropped ??= { fileId: 0, positions: [], via: [fileId] }; continue; }
    const next = follow(catalog, tableId, visible, r.outputFileId, out, depth + 1);
    if (next !== undefined) return { ...next, via: [fileId, ...next.via] };
  }
  return allDropped;
}
