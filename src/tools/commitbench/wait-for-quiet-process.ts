import { processCpuSeconds } from './process-cpu.js';

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
  let before = processCpuSeconds(pid);
  if (before === undefined) return { ms: 0, quiet: false };
  while (performance.now() - started < maxMs) {
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, windowMs));
    const after = processCpuSeconds(pid);
    if (after === undefined) break;
    const share = (after - before) / ((performance.now() - t0) / 1000);
    before = after;
    if (share < busyShare) return { ms: performance.now() - started, quiet: true };
  }
  return { ms: performance.now() - started, quiet: false };
}
