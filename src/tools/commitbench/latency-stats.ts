/** p-th quantile (0..1) of samples by the nearest-rank rule; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 0.5);
}

/** Milliseconds since `t0` (a performance.now() reading). */
export function since(t0: number): number {
  return performance.now() - t0;
}
