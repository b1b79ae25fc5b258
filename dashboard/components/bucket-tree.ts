import { html } from 'htm/preact';
import { bytes, count } from '../format.js';

/** One node of t$buckets as the table API sends it. */
export interface BucketNode {
  readonly partition: string;
  readonly node: string;
  readonly mask: number;
  readonly index: number;
  readonly isFrontier: boolean;
  readonly baseFiles: number;
  readonly baseRows: number;
  readonly baseBytes: number;
  readonly pendingChangeFiles: number;
  readonly pendingChangeRows: number;
}

interface Placed {
  readonly node: BucketNode;
  readonly depth: number;
  x: number;
  readonly children: Placed[];
}

const NODE_W = 104;
const NODE_H = 50;
const GAP_X = 8;
const GAP_Y = 26;
/** A wide tree shrinks to fit the page down to this scale, then scrolls: below it the labels are unreadable. */
const MIN_SCALE = 0.6;

/** DESIGN.md's tree: a node (mask, index) is a child of (mask >> 1, index & (mask >> 1)); the root is (0, 0). */
function parentKey(mask: number, index: number): string | undefined {
  if (mask === 0) return undefined;
  const m = mask >>> 1;
  return `${m}:${index & m}`;
}

/** The partition's nodes as a tree, with ancestors the listing left out (they hold nothing) filled in. */
function buildTree(nodes: readonly BucketNode[]): Placed | undefined {
  const byKey = new Map<string, Placed>();
  const depthOf = (mask: number) => Math.round(Math.log2(mask + 1));
  const ensure = (mask: number, index: number, partition: string): Placed => {
    const key = `${mask}:${index}`;
    let p = byKey.get(key);
    if (p === undefined) {
      const empty: BucketNode = { partition, node: `${index}/${mask}`, mask, index, isFrontier: false, baseFiles: 0, baseRows: 0, baseBytes: 0, pendingChangeFiles: 0, pendingChangeRows: 0 };
      p = { node: empty, depth: depthOf(mask), x: 0, children: [] };
      byKey.set(key, p);
      const parent = parentKey(mask, index);
      if (parent !== undefined) {
        const [pm, pi] = parent.split(':').map(Number) as [number, number];
        ensure(pm, pi, partition).children.push(p);
      }
    }
    return p;
  };
  for (const n of nodes) {
    const p = ensure(n.mask, n.index, n.partition);
    (p as { node: BucketNode }).node = n;
  }
  return byKey.get('0:0');
}

/** Leaves left to right in index order; a parent centred over its children. Returns the next free column. */
function layout(p: Placed, column: number): number {
  if (p.children.length === 0) {
    p.x = column;
    return column + 1;
  }
  p.children.sort((a, b) => a.node.index - b.node.index);
  let next = column;
  for (const c of p.children) next = layout(c, next);
  p.x = (p.children[0]!.x + p.children[p.children.length - 1]!.x) / 2;
  return next;
}

function flatten(p: Placed): Placed[] {
  return [p, ...p.children.flatMap(flatten)];
}

/** One partition's bucket tree as an SVG: each node's base size and rows, and its pending changes. */
function PartitionTree({ partition, nodes }: { partition: string; nodes: readonly BucketNode[] }) {
  const root = buildTree(nodes);
  if (root === undefined) return null;
  const columns = layout(root, 0);
  const all = flatten(root);
  const depth = Math.max(...all.map((p) => p.depth));
  const width = columns * (NODE_W + GAP_X);
  const height = (depth + 1) * (NODE_H + GAP_Y);
  const cx = (p: Placed) => p.x * (NODE_W + GAP_X) + NODE_W / 2 + GAP_X / 2;
  const cy = (p: Placed) => p.depth * (NODE_H + GAP_Y) + 4;
  return html`<div class="tree-part">
    ${partition === '' || partition === '[]' ? null : html`<h4>partition ${partition}</h4>`}
    <svg class="bucket-tree" width="100%" viewBox="0 0 ${width} ${height}" style=${{ minWidth: `${Math.round(width * MIN_SCALE)}px`, maxWidth: `${width}px` }} role="img" aria-label="bucket tree">
      ${all.flatMap((p) => p.children.map((c) => html`<line class="edge" x1=${cx(p)} y1=${cy(p) + NODE_H} x2=${cx(c)} y2=${cy(c)} />`))}
      ${all.map((p) => html`<g class="bucket-node ${p.node.isFrontier ? 'frontier' : 'inner'} ${p.node.pendingChangeFiles > 0 ? 'pending' : ''}" data-node=${p.node.node}>
        <title>node ${p.node.node}${p.node.isFrontier ? ' (frontier)' : ''}: ${count(p.node.baseFiles)} base files, ${count(p.node.baseRows)} rows, ${bytes(p.node.baseBytes)}; pending ${count(p.node.pendingChangeFiles)} change files, ${count(p.node.pendingChangeRows)} rows</title>
        <rect x=${cx(p) - NODE_W / 2} y=${cy(p)} width=${NODE_W} height=${NODE_H} rx="6" />
        <text x=${cx(p)} y=${cy(p) + 15} class="node-id">${p.node.node}</text>
        <text x=${cx(p)} y=${cy(p) + 30}>${bytes(p.node.baseBytes)} · ${count(p.node.baseRows)} rows</text>
        <text x=${cx(p)} y=${cy(p) + 44} class="changes">${p.node.pendingChangeFiles > 0 ? `+${count(p.node.pendingChangeRows)} rows pending` : 'no pending changes'}</text>
      </g>`)}
    </svg>
  </div>`;
}

/** The bucket tree of every partition (t$buckets), drawn as trees. */
export function BucketTree({ nodes }: { nodes: readonly BucketNode[] }) {
  if (nodes.length === 0) return html`<p class="muted">No bucket nodes: the table has no data yet, or is an append table.</p>`;
  const partitions = [...new Set(nodes.map((n) => n.partition))];
  return html`<div class="trees">${partitions.map((part) => html`<${PartitionTree} partition=${part} nodes=${nodes.filter((n) => n.partition === part)} />`)}</div>`;
}
