import type { RecordBatch } from 'apache-arrow';
import type { ScanTaskCounters } from '../../lake/index.js';
import type { Expr } from '../expr/expr.js';
import type { RuntimeFilter } from '../operators/runtime-filter.js';
import type { ColumnarPartial } from '../functions/function-registry.js';
import type { PartialKeyColumn } from '../aggregate/group-keys.js';
import type { HashAggregatePlan, OutputColumn } from '../plan/physical-plan.js';

/** A Filter or Project node above the scan that runs in the worker, bottom-up. */
export type ScanPipelineStep =
  | { readonly kind: 'filter'; readonly predicate: Expr }
  | { readonly kind: 'project'; readonly exprs: readonly Expr[] };

/**
 * Work a worker does on a task's batches before sending them back: decode the
 * projected columns and keep only rows where `residual` is true. Only plain
 * expressions ship (no subqueries or outer references); the batches that come
 * back then carry exactly `columns`. With `aggregate` (for ScanPool.aggregate),
 * the rows also pass through `pipeline` and feed a partial hash aggregate.
 */
export interface ScanFragment {
  readonly columns: readonly OutputColumn[];
  readonly projection: readonly string[];
  readonly residual?: Expr;
  readonly params: readonly unknown[];
  readonly settings: readonly (readonly [string, string])[];
  readonly transactionStartMicros: bigint;
  /** The session's identity for current_user, current_database(), current_schema() in shipped expressions. */
  readonly user?: string;
  readonly database?: string;
  readonly searchPath?: readonly string[];
  readonly pipeline?: readonly ScanPipelineStep[];
  /** The query's memory limit, which a worker's partial aggregate table is charged against (53200 past it). */
  readonly memoryLimitBytes?: number;
  readonly aggregate?: Pick<HashAggregatePlan, 'groupBy' | 'aggregates'>;
  /**
   * With `aggregate`, for ScanPool.aggregateRange: the aggregate's output columns. The
   * worker's groups are final (its tasks hold every row of their keys), so it finishes
   * them and returns these columns.
   */
  readonly finish?: readonly OutputColumn[];
  /** With `finish`: the groups to keep (HashAggregatePlan.having, over the `finish` columns). */
  readonly having?: Expr;
  /**
   * Runtime join filters (operators/runtime-filter.ts): set filters on scan
   * columns, applied to each decoded batch before the residual. A worker reports
   * the rows they removed in its result (batches: schema metadata
   * RUNTIME_FILTER_REMOVED_KEY; aggregates: `runtimeFilterRowsRemoved`).
   */
  readonly runtimeFilters?: readonly RuntimeFilter[];
}

/**
 * A partial hash aggregate, structured-cloneable: per key column the key of
 * each group (one Float64Array when every key is a number), per aggregate the
 * states of the groups — typed columns for aggregates that keep them
 * (ColumnarAggregate.export), else one state object per group (merged with `combine`).
 */
export interface PartialAggregate {
  readonly numGroups: number;
  readonly keys: readonly PartialKeyColumn[];
  readonly states: readonly (readonly unknown[] | ColumnarPartial)[];
}

/** What a worker sends back for one task's partial aggregate. */
export interface PartialAggregateResult {
  readonly partial: PartialAggregate;
  /** Rows the task read from storage (after merge-on-read), for EXPLAIN ANALYZE. */
  readonly rowsScanned: number;
  /** Rows left after the residual filter, then after each pipeline step; batches likewise. */
  readonly rowsOut: readonly number[];
  readonly batchesOut: readonly number[];
  /** Row groups the task decoded and skipped by footer statistics. */
  readonly counters: ScanTaskCounters;
  /** Rows the fragment's runtime filters removed. */
  readonly runtimeFilterRowsRemoved?: number;
}

/** What a worker sends back for one key range's aggregate (ScanPool.aggregateRange). */
export interface KeyRangeAggregateResult extends Omit<PartialAggregateResult, 'partial'> {
  /** The range's finished groups that pass the fragment's `having`: its `finish` columns, packed by batch-transfer.ts (no batch when there are none). */
  readonly packed: Uint8Array;
  /** Groups the range finished, before `having`. */
  readonly groups: number;
}

/** Bytes in front of a worker's packed batches (batch-transfer.ts): the task's counters (scan-counters-header.ts), five float64s. */
export const COUNTERS_BYTES = 40;

/** A pool of warm worker threads that run lake scan tasks (src/exec/pool/scan-worker.ts). */
export interface ScanPool {
  /** Runs one task on a worker; batches arrive as transferred buffers (filtered by `fragment` when given). */
  run(task: unknown, signal?: AbortSignal, fragment?: ScanFragment, counters?: ScanTaskCounters): AsyncIterable<RecordBatch>;
  /**
   * Runs one task on a worker and aggregates its rows there (`fragment.aggregate`
   * required). Optional: without it, hash aggregates take their input as batches.
   */
  aggregate?(task: unknown, signal: AbortSignal | undefined, fragment: ScanFragment): Promise<PartialAggregateResult>;
  /**
   * Runs tasks one after another on one worker, aggregating their rows into one table
   * whose groups it finishes (`fragment.aggregate` and `fragment.finish` required):
   * the tasks carry a key range's filters, so no other worker sees those groups.
   */
  aggregateRange?(tasks: readonly unknown[], signal: AbortSignal | undefined, fragment: ScanFragment): Promise<KeyRangeAggregateResult>;
  readonly size: number;
  /** Tasks waiting for a free worker (the pool's queue depth, for metrics); absent when the pool does not know. */
  readonly queueSize?: number;
  close(): Promise<void>;
}
