/**
 * Wall-clock spans for finding where a request waits (issue 24: a commit's milliseconds
 * that are not CPU). Off unless `FLOE_TRACE_SPANS=1`: then each `endSpan` records its
 * duration under a name, and the process prints p50/p99/mean per name to stderr on
 * SIGUSR2 and at exit. A disabled span costs one boolean test.
 */
const enabled = process.env.FLOE_TRACE_SPANS === '1';
/** For spans whose name costs something to build. */
export const spansEnabled = enabled;
const samples = new Map<string, number[]>();
const MAX_SAMPLES = 100_000;

/** Start of a span: pass it to endSpan (0 when tracing is off). */
export function startSpan(): number {
  return enabled ? performance.now() : 0;
}

/** Records the time since `started` under `name`. */
export function endSpan(name: string, started: number): void {
  if (!enabled) return;
  let s = samples.get(name);
  if (s === undefined) samples.set(name, s = []);
  if (s.length < MAX_SAMPLES) s.push(performance.now() - started);
}

/** The spans recorded so far, one line per name: count, p50, p99, mean (ms). */
export function spanReport(): string {
  const lines: string[] = [];
  for (const [name, s] of [...samples].sort(([a], [b]) => a.localeCompare(b))) {
    const sorted = [...s].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
    const mean = s.reduce((a, b) => a + b, 0) / s.length;
    lines.push(`${name.padEnd(40)} n=${String(s.length).padStart(6)} p50=${at(0.5).toFixed(3)} p99=${at(0.99).toFixed(3)} mean=${mean.toFixed(3)} ms`);
  }
  return lines.join('\n');
}

if (enabled) {
  process.on('SIGUSR2', () => {
    process.stderr.write(`spans:\n${spanReport()}\n`);
    samples.clear();
  });
  process.on('exit', () => process.stderr.write(`spans:\n${spanReport()}\n`));
}
