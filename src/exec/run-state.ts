import type { ExecContext } from './exec-context.js';
import type { EvalContext } from './expr/eval-context.js';
import { MemoryTracker } from './memory-tracker.js';
import type { KeyLookupSlot } from './operators/key-lookup.js';
import type { RuntimeFilterSlot } from './operators/runtime-filter.js';
import type { LakeScanPlan, MaterializedCte, WorkTable } from './plan/physical-plan.js';
import type { ColumnarBatch } from './arrow/columnar-batch.js';

/**
 * Everything one execution of a plan owns. Operators are stateless plan
 * wrappers; whatever changes while running lives here or in the operator's
 * per-run locals, so the same operator tree can run twice (correlated subplans,
 * cursors re-opened) or on another thread.
 */
export interface RunState {
  readonly ctx: ExecContext;
  readonly evalCtx: EvalContext;
  readonly params: readonly unknown[];
  readonly signal: AbortSignal | undefined;
  readonly memory: MemoryTracker;
  /** Outer rows for correlated references: outer[outer.length - depth]. */
  readonly outer: readonly (readonly unknown[])[];
  /** Results of uncorrelated subplans, computed once per run. */
  readonly subplanCache: Map<unknown, unknown>;
  /** Rows of the materialized WITH queries, computed once per run by their first reader. */
  readonly ctes: Map<MaterializedCte, Promise<readonly ColumnarBatch[]>>;
  /** Each running recursive union's current work table (the previous iteration's new rows). */
  readonly workTables: Map<WorkTable, readonly ColumnarBatch[]>;
  /** When this run last let the event loop in (cancel requests, other sessions). */
  readonly lastYield: { at: number };
  /**
   * Runtime join filters for the scans of this run's subtree, by scan node: a
   * hash join hands its probe input a run with its slots added (filled once it
   * has built), so only scans under that probe side see them.
   */
  readonly runtimeFilters?: ReadonlyMap<LakeScanPlan, readonly RuntimeFilterSlot[]>;
  /** Key lookups for the scans of this run's subtree, handed down the same way (key-lookup.ts). */
  readonly keyLookups?: ReadonlyMap<LakeScanPlan, KeyLookupSlot>;
}

export function createRunState(ctx: ExecContext): RunState {
  const now = BigInt(Date.now()) * 1000n;
  return {
    ctx,
    evalCtx: {
      settings: ctx.settings ?? new Map(),
      user: ctx.user ?? 'floe',
      database: ctx.database ?? 'floe',
      searchPath: ctx.searchPath ?? ['public'],
      warehouse: ctx.warehouse,
      virtualTables: ctx.virtualTables,
      transactionStartMicros: ctx.transactionStartMicros ?? now,
      statementStartMicros: now,
      ...(ctx.setSetting === undefined ? {} : { setSetting: ctx.setSetting }),
      ...(ctx.sequences === undefined ? {} : { sequences: ctx.sequences }),
      ...(ctx.server === undefined ? {} : { server: ctx.server }),
    },
    params: ctx.params ?? [],
    signal: ctx.signal,
    memory: new MemoryTracker(ctx.memoryLimitBytes ?? 1024 * 1024 * 1024),
    outer: [],
    subplanCache: new Map(),
    ctes: new Map(),
    workTables: new Map(),
    lastYield: { at: performance.now() },
  };
}

/** A run for a correlated subplan: same query, one more outer row. */
export function withOuterRow(run: RunState, row: readonly unknown[]): RunState {
  return { ...run, outer: [...run.outer, row] };
}
