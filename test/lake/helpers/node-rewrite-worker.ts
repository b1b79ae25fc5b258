/** A piscina worker that runs one optimizer rewrite (the self-optimizing service's pool does the same). */
import { executeRewriteTask } from '../../../src/lake/index.js';
import type { NodeRewriteResult, NodeRewriteTask } from '../../../src/lake/index.js';

export default function run(task: NodeRewriteTask): Promise<NodeRewriteResult> {
  return executeRewriteTask(task);
}
