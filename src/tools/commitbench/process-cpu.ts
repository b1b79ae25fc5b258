import { readFileSync } from 'node:fs';

/** utime + stime, in seconds, from a Linux `stat` file; undefined without /proc. */
function statCpuSeconds(path: string): number | undefined {
  try {
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const stat = readFileSync(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system, every thread) a Linux process has used; undefined without /proc. */
export function processCpuSeconds(pid: number): number | undefined {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/**
 * CPU seconds of a Linux process's main thread alone (its thread id is its pid): a Node
 * server's event loop, where every statement's wire, planning and commit work runs.
 */
export function mainThreadCpuSeconds(pid: number): number | undefined {
  return statCpuSeconds(`/proc/${pid}/task/${pid}/stat`);
}
