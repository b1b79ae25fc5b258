import type { FileRecord } from '../catalog/catalog.js';
import { isAncestorOrSelf } from '../bucket/bucket-node.js';
import type { BucketNode } from '../bucket/bucket-node.js';
import type { FrontierNode } from '../table/frontier.js';
import { isLogPath } from './log-locator.js';

/**
 * Which change files a group may hold: the log's (tiering), or every kind — log, Parquet and
 * tiered — (the optimizer's change compaction, compact-change-files.ts). The rules below hold
 * for both: a tiered input's rows all lie below the W it was made under and at or above its
 * line's base seqs, and its transactions wrote no other file on the line (it was grouped so).
 */
export type TieringInputs = 'log' | 'change';

/** Log files to tier into one file, and the frontier base files its swap needs unchanged. */
export interface TieringGroup {
  /** In (seq, firstOffset) order; one (partition, node). */
  readonly files: readonly FileRecord[];
  /** Base files (and empty-node markers) of the frontier nodes on the group's line, at every branch head. */
  readonly lineBaseFiles: readonly number[];
}

/**
 * Which log files live at a branch head may be tiered together (docs/design-notes.md,
 * "Tiering, as built"). Every reader and the optimizer take a change file whole or not at
 * all, by its seq against a node's base seq and the low watermark; a tiered file's seq is
 * its greatest row seq. So a tiered file must never hold rows on both sides of a line it is
 * judged by, at any snapshot that sees it, or rows older than a folded delete come back:
 * - only log files below the low watermark W (read before the head): every later fold reads
 *   a W at least as high, so it folds the tiered file whole;
 * - only log files at or above every base seq on their line, at every branch head
 *   (`frontiers`): base seqs only grow along a lineage, so no snapshot that sees the file
 *   has folded part of it. An ancestor's log file already folded into one child stays in
 *   the log until the optimizer folds it into the others. The swap requires those base
 *   files still live: a fold that moved a base seq meanwhile refuses it;
 * - a transaction's rows keep their (seq, offset) order only within one file: a log file whose
 *   transaction also wrote another change file on its line (Parquet staged mid-transaction,
 *   or another node after a split) is left in the log, for the optimizer to fold.
 */
export function tieringGroups(
  files: readonly FileRecord[], watermark: bigint, frontiers: readonly ReadonlyMap<string, readonly FrontierNode[]>[],
  inputs: TieringInputs = 'log',
): TieringGroup[] {
  const groups = new Map<string, FileRecord[]>();
  for (const f of files) {
    if (f.store !== 'change' || (inputs === 'log' && !isLogPath(f.path)) || f.seq >= watermark) continue;
    const k = `${f.partitionKey}\u0000${f.nodeMask}:${f.nodeIndex}`;
    let g = groups.get(k);
    if (g === undefined) groups.set(k, g = []);
    g.push(f);
  }
  const changes = files.filter((f) => f.store === 'change');
  const out: TieringGroup[] = [];
  for (const g of groups.values()) {
    const first = g[0]!;
    const node = { mask: first.nodeMask, index: first.nodeIndex };
    const line = frontiers.flatMap((fr) => (fr.get(first.partitionKey) ?? []).filter((fn) => onLine(fn.node, node)));
    const folded = line.reduce((m, fn) => (fn.baseSeq > m ? fn.baseSeq : m), 0n);
    const own = new Set(g.map((f) => f.fileId));
    const sharedSeqs = new Set(changes.filter((h) => !own.has(h.fileId) && h.partitionKey === first.partitionKey && onLine({ mask: h.nodeMask, index: h.nodeIndex }, node)).map((h) => h.seq));
    const run = g.filter((f) => f.seq >= folded && !sharedSeqs.has(f.seq));
    if (run.length === 0) continue;
    run.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : a.firstOffset - b.firstOffset));
    out.push({ files: run, lineBaseFiles: [...new Set(line.flatMap((fn) => fn.baseFiles.map((b) => b.fileId)))] });
  }
  return out;
}

/** Two nodes on one line of the bucket tree: one is an ancestor-or-self of the other. */
function onLine(a: BucketNode, b: BucketNode): boolean {
  return isAncestorOrSelf(a, b) || isAncestorOrSelf(b, a);
}
