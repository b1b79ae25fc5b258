import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';

/**
 * A node of the auto-bucketing tree: the keys whose hash & mask === index, with
 * mask = 2^k − 1 (k = depth). The root (mask 0) holds every key. All arithmetic is
 * unsigned because masks reach 2^31 − 1 and hashes use all 32 bits.
 */
export interface BucketNode {
  readonly mask: number;
  readonly index: number;
}

const MAX_MASK = 0x7fffffff;

export function rootNode(): BucketNode {
  return { mask: 0, index: 0 };
}

export function nodeContains(node: BucketNode, hash: number): boolean {
  return ((hash & node.mask) >>> 0) === node.index;
}

/** The rows whose hash is in `node` (with `inside` false: outside it), ascending. */
export function rowsByNode(hashes: Uint32Array, node: BucketNode, inside: boolean): Int32Array {
  const out = new Int32Array(hashes.length);
  let k = 0;
  for (let r = 0; r < hashes.length; r++) if ((((hashes[r]! & node.mask) >>> 0) === node.index) === inside) out[k++] = r;
  return out.subarray(0, k);
}

export function childrenOf(node: BucketNode): [BucketNode, BucketNode] {
  if (node.mask >= MAX_MASK) {
    throw new FloeError(SqlState.programLimitExceeded, `bucket node ${nodeKey(node)} cannot be split further`);
  }
  const mask = (node.mask * 2 + 1) >>> 0;
  return [{ mask, index: node.index }, { mask, index: (node.index + node.mask + 1) >>> 0 }];
}

/** The parent, or undefined for the root. */
export function parentOf(node: BucketNode): BucketNode | undefined {
  if (node.mask === 0) return undefined;
  const mask = node.mask >>> 1;
  return { mask, index: (node.index & mask) >>> 0 };
}

/** True when every key of b also belongs to a (a is b or one of its ancestors). */
export function isAncestorOrSelf(a: BucketNode, b: BucketNode): boolean {
  return a.mask <= b.mask && ((b.index & a.mask) >>> 0) === a.index;
}

export function nodeKey(node: BucketNode): string {
  return `${node.mask}:${node.index}`;
}

export function parseNodeKey(s: string): BucketNode {
  const m = /^(\d+):(\d+)$/.exec(s);
  if (m !== null) {
    const mask = Number(m[1]);
    const index = Number(m[2]);
    if (mask <= MAX_MASK && ((mask + 1) & mask) === 0 && index <= mask) return { mask, index };
  }
  throw new FloeError(SqlState.invalidParameterValue, `invalid bucket node key "${s}"`, {
    hint: 'A node key is "mask:index" with mask = 2^k − 1 and index ≤ mask.',
  });
}

export function depthOf(node: BucketNode): number {
  return 32 - Math.clz32(node.mask);
}
