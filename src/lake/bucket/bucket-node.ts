/** A node of the auto-bucketing tree: keys whose hash & mask === index. mask = 2^k − 1. */
export interface BucketNode {
  readonly mask: number;
  readonly index: number;
}

export function rootNode(): BucketNode { throw new Error('not implemented'); }
export function nodeContains(node: BucketNode, hash: number): boolean { void node; void hash; throw new Error('not implemented'); }
export function childrenOf(node: BucketNode): [BucketNode, BucketNode] { void node; throw new Error('not implemented'); }
export function parentOf(node: BucketNode): BucketNode | undefined { void node; throw new Error('not implemented'); }
export function isAncestorOrSelf(a: BucketNode, b: BucketNode): boolean { void a; void b; throw new Error('not implemented'); }
export function nodeKey(node: BucketNode): string { void node; throw new Error('not implemented'); }
export function parseNodeKey(s: string): BucketNode { void s; throw new Error('not implemented'); }
export function depthOf(node: BucketNode): number { void node; throw new Error('not implemented'); }
