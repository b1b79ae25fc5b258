import type { BucketNode } from '../bucket/bucket-node.js';
import { rootNode } from '../bucket/bucket-node.js';
import type { FileRecord } from '../catalog/catalog.js';
import { deletionVectorsByTarget } from './deletion-vectors.js';

/** One frontier node of a partition's bucket tree, with its base files (markers included). */
export interface FrontierNode {
  readonly node: BucketNode;
  /**
   * Every change below this seq on the node's line is already folded into its base: the
   * least, over its base files, of the seq each was written at or that its deletion vector
   * was (a delta fold leaves a large base file in place and marks the rows it supersedes).
   */
  readonly baseSeq: bigint;
  readonly baseFiles: FileRecord[];
  /** Deleted positions of those base files that have a deletion vector, by file id (delta folds). */
  readonly deleted?: ReadonlyMap<number, Uint32Array>;
}

/**
 * The frontier of each partition: the nodes holding base files (or empty-node markers).
 * A partition never optimized has the root as its only frontier node. The optimizer
 * always replaces a node by itself or by both children, so the frontier is a cover.
 */
export function frontierByPartition(files: readonly FileRecord[]): Map<string, FrontierNode[]> {
  const byPart = new Map<string, Map<string, { node: BucketNode; baseSeq: bigint; baseFiles: FileRecord[]; deleted: Map<number, Uint32Array> }>>();
  const partitions = new Set<string>();
  const dvOf = deletionVectorsByTarget(files);
  // Indexed: a commit runs this over every visible file, and for-of's iterator results were 13 KB a commit of garbage.
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    partitions.add(f.partitionKey);
    if (f.store !== 'base') continue;
    let nodes = byPart.get(f.partitionKey);
    if (nodes === undefined) byPart.set(f.partitionKey, nodes = new Map());
    const k = `${f.nodeMask}:${f.nodeIndex}`;
    let n = nodes.get(k);
    const dv = dvOf.get(f.fileId);
    const seq = dv !== undefined && dv.seq > f.seq ? dv.seq : f.seq;
    if (n === undefined) nodes.set(k, n = { node: { mask: f.nodeMask, index: f.nodeIndex }, baseSeq: seq, baseFiles: [], deleted: new Map() });
    n.baseFiles.push(f);
    if (dv?.dvPositions !== undefined && dv.dvPositions.length > 0) n.deleted.set(f.fileId, dv.dvPositions);
    if (seq < n.baseSeq) n.baseSeq = seq;
  }
  const out = new Map<string, FrontierNode[]>();
  for (const p of partitions) {
    const nodes = byPart.get(p);
    out.set(p, nodes === undefined ? [{ node: rootNode(), baseSeq: 0n, baseFiles: [] }] : [...nodes.values()]);
  }
  return out;
}

/** The frontier node of a partition that holds a hash. */
export function frontierNodeFor(frontier: readonly FrontierNode[] | undefined, hash: number): BucketNode {
  if (frontier === undefined || frontier.length === 0) return rootNode();
  for (const f of frontier) {
    if (((hash & f.node.mask) >>> 0) === f.node.index) return f.node;
  }
  return rootNode();
}
