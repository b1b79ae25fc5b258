import { workerData } from 'piscina';
import { lowerThreadPriority } from '../../common/thread-priority.js';
import type { BackgroundThreadData } from '../background-thread.js';
import type { ChangeGroupRewriter } from './tiering-pool.js';

const { niceness } = workerData as BackgroundThreadData;
if (niceness > 0) lowerThreadPriority(niceness);
// Loaded after the priority is lowered: loading the lake and parquet-wasm is most of a second of CPU.
const lake = import('../../lake/index.js');

/** Rewrites one tiering group's change files as one tiered file, on the tiering thread (piscina calls it by name). */
export const rewriteChangeGroup: ChangeGroupRewriter = async (task) => {
  const { executeRewriteTask, rewriteResultOf } = await lake;
  return rewriteResultOf('change-group', await executeRewriteTask(task));
};
