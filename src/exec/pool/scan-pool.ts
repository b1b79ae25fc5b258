import type { RecordBatch } from 'apache-arrow';
import type { Expr } from '../expr/expr.js';
import type { OutputColumn } from '../plan/physical-plan.js';

/** A pool of warm worker threads that run lake scan tasks (src/exec/pool/scan-worker.ts). */
/**
 * Work a worker does on a task's batches before sending them back: decode the
 * projected columns and keep only rows where `residual` is true. Only plain
 * expressions ship (no subqueries or outer references); the batches that come
 * back then carry exactly `columns`.
 */
export interface ScanFragment {
  readonly columns: readonly OutputColumn[];
  readonly projection: readonly string[];
  readonly residual: Expr;
  readonly params: readonly unknown[];
  readonly settings: readonly (readonly [string, string])[];
  readonly transactionStartMicros: bigint;
}

export interface ScanPool {
  /** Runs one task on a worker; batches arrive as transferred buffers (filtered by `fragment` when given). */
  run(task: unknown, signal?: AbortSignal, fragment?: ScanFragment): AsyncIterable<RecordBatch>;
  readonly size: number;
  close(): Promise<void>;
}
