import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the calling thread's CPU priority to `niceness` (0–19), leaving the process's
 * other threads as they are. Linux keeps a nice value per thread, and setpriority with a
 * thread's id sets that thread's alone; the id comes from /proc/thread-self
 * ("<pid>/task/<tid>"). Returns false where that is not available (other systems), or
 * where the kernel refused; the thread then runs at its old priority.
 */
export function lowerThreadPriority(niceness: number): boolean {
  let tid: number;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
  } catch {
    return false;
  }
  if (!Number.isInteger(tid) || tid <= 0) return false;
  try {
    setPriority(tid, niceness);
    return true;
  } catch {
    return false;
  }
}
