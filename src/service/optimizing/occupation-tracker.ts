/** Amoro's window for occupation and quotas: the last hour. */
export const OCCUPATION_WINDOW_MICROS = 3_600_000_000n;

interface Interval { readonly startMicros: bigint; endMicros: bigint | undefined }

/**
 * Thread time each table's optimize processes used, for quotas. A table's occupation is
 * its optimize thread-time within the last hour over the group's thread-time in that
 * hour (threads × 1 h), as Amoro defines it; a running process counts up to now. Each
 * process holds one group thread for its duration, so wall time is thread time.
 */
export class OccupationTracker {
  readonly #intervals = new Map<number, Interval[]>();

  /** A process that started (returns the function that ends it). */
  begin(tableId: number, startMicros: bigint): (endMicros: bigint) => void {
    const iv: Interval = { startMicros, endMicros: undefined };
    this.#list(tableId).push(iv);
    return (end) => { iv.endMicros = end; };
  }

  /** A finished process, e.g. one read back from the history at start-up. */
  add(tableId: number, startMicros: bigint, endMicros: bigint): void {
    this.#list(tableId).push({ startMicros, endMicros });
  }

  /** Thread-microseconds the table used in [now − 1 h, now]. */
  usedMicros(tableId: number, nowMicros: bigint): bigint {
    const from = nowMicros - OCCUPATION_WINDOW_MICROS;
    const list = this.#intervals.get(tableId);
    if (list === undefined) return 0n;
    // Forget what left the window, so memory stays bounded for a server that runs for months.
    const kept = list.filter((iv) => iv.endMicros === undefined || iv.endMicros > from);
    if (kept.length !== list.length) this.#intervals.set(tableId, kept);
    let used = 0n;
    for (const iv of kept) {
      const start = iv.startMicros > from ? iv.startMicros : from;
      const end = iv.endMicros ?? nowMicros;
      if (end > start) used += end - start;
    }
    return used;
  }

  /** The table's share of a group of `threads` threads over the last hour (0 when the group has none). */
  occupation(tableId: number, threads: number, nowMicros: bigint): number {
    if (threads <= 0) return 0;
    return Number(this.usedMicros(tableId, nowMicros)) / (threads * Number(OCCUPATION_WINDOW_MICROS));
  }

  #list(tableId: number): Interval[] {
    let l = this.#intervals.get(tableId);
    if (l === undefined) this.#intervals.set(tableId, l = []);
    return l;
  }
}
