/**
 * The table list's JSON, in a file that imports nothing: the dashboard's browser code
 * imports these types too, and cannot load the lake's (they need Node's).
 */

/** Files, bytes and live rows (deletion vectors subtracted) of one store. */
export interface StoreTotals {
  readonly files: number;
  readonly bytes: number;
  readonly rows: number;
}

/** One table as the table list and the per-table metrics show it; `Status` is the lake's OptimizingStatus. */
export interface TableSummaryShape<Status extends string = string> {
  readonly schema: string;
  readonly table: string;
  readonly keyed: boolean;
  /**
   * Rows in the table's files. Exact for an append table; for a keyed table, changes not
   * folded yet may repeat keys of the base store, so it is an upper bound until optimized.
   */
  readonly rows: number;
  readonly bytes: number;
  readonly stores: { readonly change: StoreTotals; readonly base: StoreTotals };
  /** How long the oldest change not folded into the base store has waited (floe_optimizing's optimizing_lag). */
  readonly freshnessLagSeconds: number;
  /** 0–100, higher is healthier (floe_optimizing's health_score); null when the service has no row for it. */
  readonly healthScore: number | null;
  readonly optimizingStatus: Status | null;
  readonly optimizingEnabled: boolean | null;
  readonly group: string | null;
}
