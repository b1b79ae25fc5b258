import { SEQ_COLUMN } from './scan-types.js';
import type { ScanTask } from './scan-types.js';

/**
 * Whether no base row of the task can beat a change: a base file's rows all have `_seq`
 * below its file seq (a fold writes the low watermark there, and its rows are the changes
 * below it), so when every change file's seq is at or above every base file's, each change
 * is newer than each base row. A tiered change file's rows carry seqs of their own, and a
 * scan projecting `_seq` needs the base rows' values: those read `_seq` as before.
 */
export function baseOlderThanChanges(task: ScanTask): boolean {
  if (task.projection.includes(SEQ_COLUMN)) return false;
  let newestBase = -1n;
  for (const f of task.baseFiles) if (f.seq > newestBase) newestBase = f.seq;
  return task.changeFiles.every((f) => f.tiered !== true && f.seq >= newestBase);
}
