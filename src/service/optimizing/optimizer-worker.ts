import * as lake from '../../lake/index.js';
import type { NodeRewriteResult, NodeRewriteTask } from '../../lake/index.js';

type NodeRewriter = (task: NodeRewriteTask) => Promise<NodeRewriteResult>;

/** Runs one node rewrite on an optimizer worker thread (piscina calls it by name). */
export async function rewriteNode(task: NodeRewriteTask): Promise<NodeRewriteResult> {
  // Looked up by name: the lake's worker-safe rewrite is built alongside the service (issue 23).
  const rewrite = (lake as unknown as Record<string, unknown>).executeNodeRewrite as NodeRewriter | undefined;
  if (typeof rewrite !== 'function') throw new Error('this build of the lake has no executeNodeRewrite');
  return rewrite(task);
}
