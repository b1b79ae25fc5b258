import { readdirSync, readFileSync } from 'node:fs';

/** Each thread of this process with its nice value (/proc/self/task/<tid>/stat, field 19). */
export function threadNiceness(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      out.set(tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}
