/*
 * Which materialized views to refresh now, and how: a pure function of what the refresher
 * knows, so its rules are tested with a fake clock.
 *
 * A view with a declared freshness is due once its lag, plus what its refresh is expected to
 * take, reaches half the freshness: the refresh then lands with the lag well inside the
 * bound. Incremental refresh is used unless a full one has been measured cheaper (a view
 * whose changes touch most of its rows); the first incremental refresh measured is followed
 * by a full one, to measure that, unless the view's recorded last refresh already measured one
 * (CREATE MATERIALIZED VIEW populates the view in full); an incremental one is tried again now
 * and then, as its estimate decays, since the mix of changes moves.
 */

/** The share of the freshness a view may lag before a refresh starts. */
export const REFRESH_AT_SHARE = 0.5;

export interface ViewRefreshState {
  readonly tableId: number;
  /** The declared freshness. */
  readonly freshnessMs: number;
  /** The rows' lag now; undefined when unknown (not populated, a base table gone): never due. */
  readonly lagMs: number | undefined;
  /** Whether the view's query can be maintained incrementally. */
  readonly incremental: boolean;
  /** Measured cost of each mode (moving averages), when measured. */
  readonly incrementalMs: number | undefined;
  readonly fullMs: number | undefined;
  /** No attempt before this (a failed refresh backs off), in microseconds. */
  readonly notBeforeMicros: bigint | undefined;
}

export interface DueRefresh {
  readonly tableId: number;
  readonly mode: 'auto' | 'full';
}

/** The views due now, the most urgent (lag against freshness) first. */
export function dueRefreshes(views: readonly ViewRefreshState[], nowMicros: bigint): DueRefresh[] {
  return views
    .filter((v) => v.lagMs !== undefined && (v.notBeforeMicros === undefined || v.notBeforeMicros <= nowMicros))
    .filter((v) => v.lagMs! > 0 && v.lagMs! + expectedMs(v) >= v.freshnessMs * REFRESH_AT_SHARE)
    .sort((a, b) => b.lagMs! / b.freshnessMs - a.lagMs! / a.freshnessMs)
    .map((v) => ({ tableId: v.tableId, mode: chosenMode(v) }));
}

function chosenMode(v: ViewRefreshState): 'auto' | 'full' {
  if (!v.incremental) return 'full';
  // Until a full refresh has been measured, one is run to measure it: its cost is learnt only by paying it.
  if (v.incrementalMs !== undefined && v.fullMs === undefined) return 'full';
  return v.incrementalMs !== undefined && v.fullMs !== undefined && v.incrementalMs > v.fullMs ? 'full' : 'auto';
}

function expectedMs(v: ViewRefreshState): number {
  return chosenMode(v) === 'full' ? v.fullMs ?? v.incrementalMs ?? 0 : v.incrementalMs ?? 0;
}

/** What a refresher that has not yet refreshed a view knows of its costs: the view's recorded last refresh. */
export function costsFromLastRefresh(last: { readonly mode: string; readonly durationMs: number } | undefined): { incrementalMs: number | undefined; fullMs: number | undefined } {
  return {
    incrementalMs: last?.mode === 'incremental' ? last.durationMs : undefined,
    fullMs: last?.mode === 'full' ? last.durationMs : undefined,
  };
}

/** A moving average of a refresh's cost: recent refreshes weigh most. */
export function movingAverage(previous: number | undefined, sample: number): number {
  return previous === undefined ? sample : previous * 0.7 + sample * 0.3;
}
