import { executeRewriteTask } from '../../lake/index.js';
import type { NodeRewriteResult, NodeRewriteTask } from '../../lake/index.js';

/** Runs one rewrite (a keyed node, or a group of append-table files) on an optimizer worker thread (piscina calls it by name). */
export function rewriteNode(task: NodeRewriteTask): Promise<NodeRewriteResult> {
  return executeRewriteTask(task);
}
