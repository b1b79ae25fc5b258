import { workerData } from 'piscina';
import { lowerThreadPriority } from '../../common/thread-priority.js';
import type { NodeRewriteResult, NodeRewriteTask } from '../../lake/index.js';
import type { BackgroundThreadData } from '../background-thread.js';

const { niceness } = workerData as BackgroundThreadData;
if (niceness > 0) lowerThreadPriority(niceness);
// Loaded after the priority is lowered: loading the lake and parquet-wasm is most of a second of CPU.
const lake = import('../../lake/index.js');

/**
 * Rewrites one tiering group's change files as one tiered file, on the tiering thread
 * (piscina calls it by name). Without a task it only waits for the lake to load: the
 * pool's first call, which tells it the thread is ready.
 */
export async function rewriteChangeGroup(task: Extract<NodeRewriteTask, { kind: 'change-group' }> | undefined): Promise<NodeRewriteResult | undefined> {
  const { executeRewriteTask, rewriteResultOf } = await lake;
  return task === undefined ? undefined : rewriteResultOf('change-group', await executeRewriteTask(task));
}
