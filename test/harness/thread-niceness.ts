import { readdirSync, readFileSync } from 'node:fs';

/** Each thread of a process (default this one) with its nice value (/proc/<pid>/task/<tid>/stat, field 19). */
export function threadNiceness(pid: number | 'self' = 'self'): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      out.set(tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}
