/** What the health score looks at, from a table's metrics, settings and saved state. */
export interface HealthInputs {
  readonly readAmplification: number;
  readonly readAmplificationMax: number;
  readonly smallFiles: number;
  readonly baseFiles: number;
  readonly optimizingLagMs: number;
  readonly minorIntervalMs: number;
  readonly consecutiveFailures: number;
}

/**
 * 0–100, higher is healthier; in the spirit of Amoro's health score, which docks a table
 * for what makes its reads slow. Penalties (each capped, summed, taken from 100):
 * - read amplification: up to 40, linear in readAmplification / read-amplification.max
 *   (at the target the table has lost all 40);
 * - small files: up to 20, the share of base files that are undersized beyond the first
 *   (one small file is all a small table can be; it is not a fault);
 * - optimizing lag: up to 25, linear in lag / (2 × minor interval): a change waiting one
 *   interval costs 12.5, two intervals the full 25;
 * - failures: 5 per consecutive failed process, up to 15.
 */
export function healthScore(h: HealthInputs): number {
  const cap = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 1);
  const readAmp = 40 * cap(h.readAmplification / Math.max(1, h.readAmplificationMax));
  const small = 20 * cap(h.baseFiles === 0 ? 0 : Math.max(0, h.smallFiles - 1) / h.baseFiles);
  const lag = 25 * cap(h.optimizingLagMs / (2 * Math.max(1, h.minorIntervalMs)));
  const failures = Math.min(15, 5 * Math.max(0, h.consecutiveFailures));
  return Math.max(0, Math.min(100, Math.round(100 - readAmp - small - lag - failures)));
}
