import { readFileSync } from 'node:fs';

/** CPU seconds (user + system, every thread) a Linux process has used; undefined without /proc. */
function cpuSeconds(pid: number): number | undefined {
  try {
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * Waits until the process has used less than `busyShare` of one core over `windowMs`, or
 * until `maxMs`: a `floe serve` that answers is still busy for seconds after it listens
 * (each scan worker thread loads the module graph), and a commit measured then measures
 * that. Returns the milliseconds waited and whether it went quiet.
 */
export async function waitForQuietProcess(
  pid: number, opts: { readonly windowMs?: number; readonly busyShare?: number; readonly maxMs?: number } = {},
): Promise<{ readonly ms: number; readonly quiet: boolean }> {
  const windowMs = opts.windowMs ?? 2000;
  const busyShare = opts.busyShare ?? 0.05;
  const maxMs = opts.maxMs ?? 120_000;
  const started = performance.now();
  let before = cpuSeconds(pid);
  if (before === undefined) return { ms: 0, quiet: false };
  while (performance.now() - started < maxMs) {
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, windowMs));
    const after = cpuSeconds(pid);
    if (after === undefined) break;
    const share = (after - before) / ((performance.now() - t0) / 1000);
    before = after;
    if (share < busyShare) return { ms: performance.now() - started, quiet: true };
  }
  return { ms: performance.now() - started, quiet: false };
}
