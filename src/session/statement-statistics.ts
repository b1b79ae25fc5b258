import type { StatementStatisticsRow } from '../exec/index.js';
import { normalizedStatement } from '../sql/index.js';

/** Entries kept, as pg_stat_statements.max's default. */
export const DEFAULT_STATEMENT_STATISTICS_MAX = 5000;

/** Longest query text an entry keeps (the queryid still covers the whole text): 5000 entries must not hold gigabytes. */
export const MAX_STATISTICS_QUERY_CHARS = 8 * 1024;

/** Share of the least-called entries dropped when the table is full (pg_stat_statements drops 5% at once, so eviction is rare). */
const EVICT_FRACTION = 0.05;

/** One finished statement, as the session reports it. */
export interface FinishedStatement {
  readonly user: string;
  readonly database: string;
  /** The statement's own text (one statement of a query string), constants and all. */
  readonly text: string;
  readonly ms: number;
  /** Rows returned or changed. */
  readonly rows: number;
}

interface Entry {
  readonly user: string;
  readonly database: string;
  readonly queryId: bigint;
  readonly query: string;
  calls: number;
  totalMs: number;
  minMs: number;
  maxMs: number;
  /** Running sum of squared deviations (Welford), for the standard deviation pg_stat_statements reports. */
  sumSquares: number;
  rows: number;
}

/**
 * The server's pg_stat_statements: calls, execution time and rows per user and normalized
 * statement (constants as $n), shared by every session of the gateway and shown by the
 * floe_stat_statements view. Bounded: past `max` entries the least-called 5% are dropped,
 * as pg_stat_statements drops its least-used.
 */
export class StatementStatistics {
  readonly #max: number;
  readonly #entries = new Map<string, Entry>();

  constructor(max = DEFAULT_STATEMENT_STATISTICS_MAX) {
    this.#max = max;
  }

  record(s: FinishedStatement): void {
    const { query, queryId } = normalizedStatement(s.text);
    const key = `${s.user}\0${s.database}\0${queryId}`;
    let e = this.#entries.get(key);
    if (e === undefined) {
      if (this.#entries.size >= this.#max) this.#evict();
      const kept = query.length <= MAX_STATISTICS_QUERY_CHARS ? query : `${query.slice(0, MAX_STATISTICS_QUERY_CHARS)}…`;
      e = { user: s.user, database: s.database, queryId, query: kept, calls: 0, totalMs: 0, minMs: s.ms, maxMs: s.ms, sumSquares: 0, rows: 0 };
      this.#entries.set(key, e);
    }
    const meanBefore = e.calls === 0 ? 0 : e.totalMs / e.calls;
    e.calls++;
    e.totalMs += s.ms;
    e.sumSquares += (s.ms - meanBefore) * (s.ms - e.totalMs / e.calls);
    e.minMs = Math.min(e.minMs, s.ms);
    e.maxMs = Math.max(e.maxMs, s.ms);
    e.rows += s.rows;
  }

  rows(): StatementStatisticsRow[] {
    return [...this.#entries.values()].map((e) => ({
      user: e.user, database: e.database, queryId: e.queryId, query: e.query, calls: e.calls, totalExecTime: e.totalMs,
      minExecTime: e.minMs, maxExecTime: e.maxMs, meanExecTime: e.totalMs / e.calls,
      stddevExecTime: Math.sqrt(Math.max(0, e.sumSquares) / e.calls), rows: e.rows,
    }));
  }

  reset(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }

  #evict(): void {
    const byCalls = [...this.#entries].sort(([, a], [, b]) => a.calls - b.calls);
    const n = Math.max(1, Math.floor(this.#max * EVICT_FRACTION));
    for (const [key] of byCalls.slice(0, n)) this.#entries.delete(key);
  }
}

/** For sessions made without a server's statistics (tests, embedded use): one per process. */
export const processStatementStatistics = new StatementStatistics();
