import pg from 'pg';
import type { MvBenchView } from './mv-views.js';

/*
 * What bench:mv reads while the TPC-C stream runs: each view's lag and refreshes from
 * floe_materialized_views (every ~250 ms), and the dashboard queries through the views and
 * on the base tables. Every sample carries the phase it started in (the bench sets it:
 * 'baseline', 'P1', 'P2', …, 'full').
 */

export interface LagSample {
  readonly phase: string;
  readonly view: string;
  /** Undefined when the view reports no lag (not populated, or a base table unknown). */
  readonly lagMs: number | undefined;
}

/** A refresh seen as a new last_refresh_at of a view. */
export interface RefreshSample {
  readonly phase: string;
  readonly view: string;
  readonly at: string;
  readonly mode: string;
  readonly durationMs: number;
  readonly rowsChanged: number;
}

export interface DashboardSample {
  readonly phase: string;
  readonly view: string;
  /** 'view': floe.mv_rewrite on (the default); 'base': off, the same text on the base tables. */
  readonly via: 'view' | 'base';
  readonly ms: number;
  readonly error?: string;
}

/** An EXPLAIN of a dashboard query on the rewriting connection: did the view answer it? */
export interface RewriteCheck {
  readonly phase: string;
  readonly view: string;
  readonly fromView: boolean;
}

export interface MvReaderOptions {
  readonly url: string;
  readonly views: readonly MvBenchView[];
  /** Between two lag samples. */
  readonly lagEveryMs: number;
  /** Between two starts of a query through the views (round-robin over the views); 0: no such reader. */
  readonly viewQueryEveryMs: number;
  /** Between two starts of a query on the base tables (round-robin); a slower query delays the next, never queues. */
  readonly baseQueryEveryMs: number;
  /** Every Nth query through a view is preceded by an EXPLAIN (not timed) checking that the view answers it. */
  readonly explainEvery: number;
  readonly log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Starts the readers; `phase` labels what follows, `stop` ends them. Each reader holds one
 * connection for the whole run, as a dashboard's pool would (the bench measures the query,
 * not connection set-up).
 */
export class MvReaders {
  readonly lags: LagSample[] = [];
  readonly refreshes: RefreshSample[] = [];
  readonly dashboard: DashboardSample[] = [];
  readonly checks: RewriteCheck[] = [];
  readonly errors = new Map<string, number>();
  #phase = 'setup';
  #stopped = false;
  #baseStopped = false;
  #base: Promise<void> | undefined;
  #withViews = false;
  readonly #running: Promise<void>[] = [];
  readonly #clients: pg.Client[] = [];
  readonly #opts: MvReaderOptions;

  constructor(opts: MvReaderOptions) {
    this.#opts = opts;
  }

  set phase(p: string) {
    this.#phase = p;
  }

  get phase(): string {
    return this.#phase;
  }

  /** The base-table reader alone (before the views exist). */
  async startBase(): Promise<void> {
    const base = await this.#connect();
    await base.query('SET floe.mv_rewrite = off');
    this.#base = this.#queryLoop(base, 'base', this.#opts.baseQueryEveryMs);
    this.#running.push(this.#base);
  }

  /** Ends the base-table reader (its query in flight finishes first); the others go on. */
  async stopBase(): Promise<void> {
    this.#baseStopped = true;
    await this.#base;
  }

  /** The lag sampler and the reader through the views (the views must exist). */
  async startViews(): Promise<void> {
    this.#withViews = true;
    this.#running.push(this.#lagLoop(await this.#connect()));
    if (this.#opts.viewQueryEveryMs > 0) this.#running.push(this.#queryLoop(await this.#connect(), 'view', this.#opts.viewQueryEveryMs));
  }

  get withViews(): boolean {
    return this.#withViews;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#running);
    await Promise.all(this.#clients.map((c) => c.end().catch(() => undefined)));
  }

  #noteError(msg: string): void {
    const key = msg.slice(0, 160);
    if (!this.errors.has(key)) this.#opts.log?.(`  reader error: ${key}`);
    this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
  }

  async #connect(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: this.#opts.url });
    await c.connect();
    this.#clients.push(c);
    return c;
  }

  async #lagLoop(c: pg.Client): Promise<void> {
    const names = new Set(this.#opts.views.map((v) => v.name));
    const lastSeen = new Map<string, string>();
    let first = true;
    while (!this.#stopped) {
      const due = performance.now() + this.#opts.lagEveryMs;
      try {
        const res = await c.query<{ name: string; lag_ms: string | null; at: string | null; mode: string | null; duration_ms: string | null; rows_changed: string | null }>(
          `SELECT name, extract(epoch FROM lag) * 1000 AS lag_ms, last_refresh_at::text AS at, last_refresh_mode AS mode,
             extract(epoch FROM last_refresh_duration) * 1000 AS duration_ms, rows_changed
           FROM floe_materialized_views`);
        const phase = this.#phase;
        for (const r of res.rows) {
          if (!names.has(r.name)) continue;
          this.lags.push({ phase, view: r.name, lagMs: r.lag_ms === null ? undefined : Number(r.lag_ms) });
          // The first sample sees the population (CREATE): only later refreshes count.
          if (r.at !== null && lastSeen.get(r.name) !== r.at && !first) {
            this.refreshes.push({ phase, view: r.name, at: r.at, mode: r.mode ?? '?', durationMs: Number(r.duration_ms ?? 0), rowsChanged: Number(r.rows_changed ?? 0) });
          }
          if (r.at !== null) lastSeen.set(r.name, r.at);
        }
        first = false;
      } catch (e) {
        this.#noteError(`lag: ${(e as Error).message}`);
      }
      await sleep(Math.max(0, due - performance.now()));
    }
  }

  async #queryLoop(c: pg.Client, via: 'view' | 'base', everyMs: number): Promise<void> {
    const views = this.#opts.views;
    let due = performance.now();
    const stopped = () => this.#stopped || (via === 'base' && this.#baseStopped);
    for (let i = 0; !stopped(); i++) {
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (stopped()) return;
      // A query slower than the pace delays the next one; it does not make a backlog.
      due = Math.max(due + everyMs, performance.now());
      const view = views[i % views.length]!;
      const phase = this.#phase;
      if (via === 'view' && Math.floor(i / views.length) % this.#opts.explainEvery === 0) {
        try {
          const plan = (await c.query({ text: `EXPLAIN ${view.dashboard}`, rowMode: 'array' })).rows.map((r: unknown[]) => String(r[0])).join('\n');
          this.checks.push({ phase, view: view.name, fromView: plan.includes(`Lake Scan on public.${view.name}`) });
        } catch (e) {
          this.#noteError(`EXPLAIN ${view.name}: ${(e as Error).message}`);
        }
      }
      const t0 = performance.now();
      try {
        await c.query({ text: view.dashboard, rowMode: 'array' });
        this.dashboard.push({ phase, view: view.name, via, ms: performance.now() - t0 });
      } catch (e) {
        this.dashboard.push({ phase, view: view.name, via, ms: performance.now() - t0, error: (e as Error).message });
        this.#noteError(`${via} ${view.name}: ${(e as Error).message}`);
      }
    }
  }
}
