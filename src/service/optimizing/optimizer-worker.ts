import { executeNodeRewrite } from '../../lake/index.js';
import type { NodeRewriteResult, NodeRewriteTask } from '../../lake/index.js';

/** Runs one node rewrite on an optimizer worker thread (piscina calls it by name). */
export function rewriteNode(task: NodeRewriteTask): Promise<NodeRewriteResult> {
  return executeNodeRewrite(task);
}
