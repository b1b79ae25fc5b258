/**
 * Time as the self-optimizing service sees it: the current time in microseconds and
 * timers. Injected so scheduler tests drive a fake clock instead of waiting.
 */
export interface ServiceClock {
  nowMicros(): bigint;
  /** Calls `fn` once after `ms`; the returned function cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

/** The real clock; its timers never keep the process alive on their own. */
export const systemClock: ServiceClock = {
  nowMicros: () => BigInt(Date.now()) * 1000n,
  setTimer(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  },
};
