/** The first retry after a failure waits this long; each further failure doubles it. */
export const FIRST_BACK_OFF_MS = 1000;
/** No table waits longer than this between attempts, however often it failed. */
export const MAX_BACK_OFF_MS = 10 * 60_000;

/** How long to wait before the next attempt after `consecutiveFailures` failures in a row (0 → none). */
export function backOffMs(consecutiveFailures: number): number {
  if (consecutiveFailures <= 0) return 0;
  // Capped before exponentiating so a long failure streak never overflows.
  const doublings = Math.min(consecutiveFailures - 1, 30);
  return Math.min(FIRST_BACK_OFF_MS * 2 ** doublings, MAX_BACK_OFF_MS);
}
