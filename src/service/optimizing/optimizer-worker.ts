import { workerData } from 'piscina';
import { lowerThreadPriority } from '../../common/thread-priority.js';
import { executeRewriteTask } from '../../lake/index.js';
import type { NodeRewriteResult, NodeRewriteTask } from '../../lake/index.js';
import type { OptimizerWorkerData } from './optimizer-pool.js';

const { niceness } = workerData as OptimizerWorkerData;
if (niceness > 0) lowerThreadPriority(niceness);

/** Runs one rewrite (a keyed node, or a group of append-table files) on an optimizer worker thread (piscina calls it by name). */
export function rewriteNode(task: NodeRewriteTask): Promise<NodeRewriteResult> {
  return executeRewriteTask(task);
}
