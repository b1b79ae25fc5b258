import { isAncestorOrSelf } from '../bucket/bucket-node.js';
import type { BucketNode } from '../bucket/bucket-node.js';
import type { FileRecord, NewFileRecord } from '../catalog/catalog.js';
import type { KeyedNodeRewriteResult } from './keyed-node-rewrite-task.js';
import type { OptimizePlan } from './plan-optimize.js';

/** The file changes of an optimize commit, and what they count. */
export interface OptimizeCommitFiles {
  readonly addFiles: readonly NewFileRecord[];
  readonly removeFileIds: readonly number[];
  /** Every file the rewrites read or the commit removes: only another optimizer can remove them first. */
  readonly requireVisible: readonly number[];
  readonly changeFilesFolded: number;
  /** Data files removed (markers excluded), their bytes and rows. */
  readonly filesIn: number;
  readonly bytesIn: number;
  readonly rowsIn: number;
}

/**
 * What a run's commit adds and removes. A job's base files go; its change files at its
 * part's node or below are folded and go. An ancestor's change file also belongs to other
 * nodes, so it goes only once every frontier node under it (after this commit) has a base
 * seq above it; the bases that make that true must still be visible at the commit.
 */
export function optimizeCommitFiles(
  plan: OptimizePlan, results: readonly KeyedNodeRewriteResult[], files: readonly FileRecord[], watermark: bigint,
  deletionVectors: ReadonlyMap<number, FileRecord> = new Map(),
): OptimizeCommitFiles {
  const removed = new Set<number>();
  const requireVisible = new Set<number>();
  let folded = 0;
  const newFrontier = new Map<string, { node: BucketNode; baseSeq: bigint }[]>();
  for (const [pk, nodes] of plan.frontiers) newFrontier.set(pk, nodes.map((n) => ({ node: n.node, baseSeq: n.baseSeq })));
  plan.jobs.forEach((job, i) => {
    // A delta job keeps its large base files; each gets a new deletion vector (the result's).
    const keptFiles = new Set(job.kept?.map((f) => f.fileId));
    for (const part of job.parts) {
      for (const f of part.frontier.baseFiles) {
        requireVisible.add(f.fileId);
        if (!keptFiles.has(f.fileId)) removed.add(f.fileId);
        // replaced by the new one, or gone with its file
        const dv = deletionVectors.get(f.fileId);
        if (dv !== undefined) { removed.add(dv.fileId); requireVisible.add(dv.fileId); }
      }
      for (const f of part.changes) {
        requireVisible.add(f.fileId);
        if (f.nodeMask >= part.frontier.node.mask && !removed.has(f.fileId)) { removed.add(f.fileId); folded++; }
      }
    }
    const nodes = newFrontier.get(job.partitionKey)!;
    const replaced = job.parts.map((p) => p.frontier.node);
    const kept = nodes.filter((n) => !replaced.some((r) => r.mask === n.node.mask && r.index === n.node.index));
    // A delta job's node stays, folded up to W by its new file and deletion vectors.
    const outputs = job.kept !== undefined ? [job.node] : uniqueNodes(results[i]!.files.map((f) => ({ mask: f.nodeMask, index: f.nodeIndex })));
    newFrontier.set(job.partitionKey, [...kept, ...outputs.map((node) => ({ node, baseSeq: watermark }))]);
  });
  for (const f of files) {
    if (f.store !== 'change' || removed.has(f.fileId)) continue;
    const fnode = { mask: f.nodeMask, index: f.nodeIndex };
    const under = (newFrontier.get(f.partitionKey) ?? []).filter((n) => isAncestorOrSelf(fnode, n.node));
    if (under.length > 0 && under.every((n) => n.baseSeq > f.seq)) {
      removed.add(f.fileId);
      requireVisible.add(f.fileId);
      folded++;
      for (const fn of plan.frontiers.get(f.partitionKey) ?? []) {
        if (isAncestorOrSelf(fnode, fn.node)) for (const b of fn.baseFiles) if (!removed.has(b.fileId)) requireVisible.add(b.fileId);
      }
    }
  }
  const gone = files.filter((f) => removed.has(f.fileId) && f.path !== '');
  return {
    addFiles: results.flatMap((r) => [...r.files, ...(r.deletionVectors ?? [])]), removeFileIds: [...removed], requireVisible: [...requireVisible], changeFilesFolded: folded,
    filesIn: gone.length, bytesIn: gone.reduce((n, f) => n + f.sizeBytes, 0), rowsIn: gone.reduce((n, f) => n + f.rowCount, 0),
  };
}

function uniqueNodes(nodes: readonly BucketNode[]): BucketNode[] {
  const out: BucketNode[] = [];
  for (const n of nodes) if (!out.some((o) => o.mask === n.mask && o.index === n.index)) out.push(n);
  return out;
}
