import type { ActivityTotals } from './floe-metrics.js';

/** One interval of the rate charts: per-second rates between two samples of the totals. */
export interface RatePoint {
  /** The interval's end, ms since the epoch. */
  readonly at: number;
  readonly seconds: number;
  readonly commitsPerSecond: number;
  readonly ingestRowsPerSecond: number;
  readonly queriesPerSecond: number;
  readonly errorsPerSecond: number;
}

interface Sample {
  readonly at: number;
  readonly totals: ActivityTotals;
}

export interface RateSamplerOptions {
  readonly totals: () => ActivityTotals;
  readonly intervalMs: number;
  /** How far back samples are kept. */
  readonly windowMs: number;
  readonly now?: () => number;
}

/**
 * Samples the process's running totals at a fixed interval and keeps a window of them,
 * so the dashboard can chart the last hour's rates without a Prometheus beside it.
 */
export class RateSampler {
  readonly #opts: RateSamplerOptions;
  readonly #now: () => number;
  #samples: Sample[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(opts: RateSamplerOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
  }

  start(): void {
    this.sample();
    this.#timer = setInterval(() => this.sample(), this.#opts.intervalMs);
    // A sampler never keeps the process alive on its own.
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  sample(): void {
    const at = this.#now();
    this.#samples.push({ at, totals: this.#opts.totals() });
    const oldest = at - this.#opts.windowMs;
    // One sample older than the window stays: it starts the window's first interval.
    while (this.#samples.length > 2 && this.#samples[1]!.at <= oldest) this.#samples.shift();
  }

  /** Rates between consecutive samples, oldest first, then the interval from the last sample to now. */
  rates(): RatePoint[] {
    const points = [...this.#samples, { at: this.#now(), totals: this.#opts.totals() }];
    const out: RatePoint[] = [];
    for (let i = 1; i < points.length; i++) {
      const a = points[i - 1]!;
      const b = points[i]!;
      const seconds = (b.at - a.at) / 1000;
      if (seconds <= 0) continue;
      const rate = (k: keyof ActivityTotals) => (b.totals[k] - a.totals[k]) / seconds;
      out.push({
        at: b.at, seconds, commitsPerSecond: rate('commits'), ingestRowsPerSecond: rate('ingestRows'),
        queriesPerSecond: rate('queries'), errorsPerSecond: rate('errors'),
      });
    }
    return out;
  }
}
