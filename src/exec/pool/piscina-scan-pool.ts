import { availableParallelism } from 'node:os';
import type { RecordBatch } from 'apache-arrow';
import { Piscina } from 'piscina';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { workerModule } from '../../common/worker-module.js';
import type { ScanTaskCounters } from '../../lake/index.js';
import { abortError } from '../abort-error.js';
import { unpackBatches } from '../arrow/batch-transfer.js';
import { COUNTERS_BYTES } from './scan-pool.js';
import { readCountersHeader } from './scan-counters-header.js';
import type { KeyRangeAggregateResult, PartialAggregateResult, ScanFragment, ScanPool } from './scan-pool.js';
import type { ScanWorkerResult } from './scan-worker.js';

/**
 * The pool's 'error' events. A task cancelled just as its worker finished it (the
 * query's 57014 already sent) has piscina drop that worker, and the result the worker
 * had posted then arrives for a task the pool no longer knows: nothing waits for it,
 * so it is dropped, where the unhandled event took the process down. Any other pool
 * error is rethrown, as it was before there was a listener.
 */
export function onPoolError(e: Error): void {
  if (e.message.startsWith('Unexpected message from Worker')) return;
  throw e;
}

export interface ScanPoolOptions {
  /** Worker threads; default: the machine's cores. */
  readonly threads?: number;
}

/**
 * Scan tasks on a piscina pool: threads are started up front and kept alive
 * (idle timeout effectively infinite) so each keeps its WASM decoder warm.
 * Workers load the worker module as the main thread loads its own (workerModule).
 */
export function createScanPool(opts: ScanPoolOptions = {}): ScanPool {
  const size = Math.max(1, opts.threads ?? availableParallelism());
  const { filename, execArgv } = workerModule(import.meta.url, 'scan-worker');
  const pool = new Piscina({
    filename,
    name: 'runScanTask',
    minThreads: size,
    maxThreads: size,
    idleTimeout: 2 ** 31 - 1,
    execArgv,
  });
  pool.on('error', onPoolError);
  return {
    size,
    get queueSize() {
      return pool.queueSize;
    },
    run(task: unknown, signal?: AbortSignal, fragment?: ScanFragment, counters?: ScanTaskCounters): AsyncIterable<RecordBatch> {
      return { [Symbol.asyncIterator]: () => scanTaskBatches(pool, task, signal, fragment, counters) };
    },
    async aggregate(task: unknown, signal: AbortSignal | undefined, fragment: ScanFragment): Promise<PartialAggregateResult> {
      const result = await answerOf(pool, { task, fragment }, signal);
      if (!('partial' in result)) throw new FloeError(SqlState.internalError, 'scan worker returned no partial aggregate');
      return result;
    },
    async aggregateRange(tasks: readonly unknown[], signal: AbortSignal | undefined, fragment: ScanFragment): Promise<KeyRangeAggregateResult> {
      const result = await answerOf(pool, { tasks, fragment }, signal);
      if (!('packed' in result)) throw new FloeError(SqlState.internalError, 'scan worker returned no key range aggregate');
      return result;
    },
    async close() {
      await pool.destroy();
    },
  };
}

/** The batches a worker scans for one task, run when first asked for; a FloeError it sent is rethrown with its SQLSTATE. */
async function* scanTaskBatches(
  pool: Piscina, task: unknown, signal: AbortSignal | undefined, fragment: ScanFragment | undefined, counters: ScanTaskCounters | undefined,
): AsyncGenerator<RecordBatch> {
  let result: ScanWorkerResult;
  try {
    const input = fragment ? { task, fragment } : task;
    result = (await pool.run(input, signal ? { signal } : {})) as ScanWorkerResult;
  } catch (e) {
    if (signal?.aborted) throw abortError(signal);
    throw e;
  }
  if (result === null) return;
  if (!(result instanceof Uint8Array)) {
    if (!('error' in result)) throw new FloeError(SqlState.internalError, 'scan worker returned a partial aggregate for a batch request');
    const { sqlstate, message, detail, hint } = result.error;
    throw new FloeError(sqlstate, message, { detail, hint });
  }
  if (counters) readCountersHeader(result, counters);
  yield* unpackBatches(result, COUNTERS_BYTES);
}

/** A worker's structured answer to an aggregate request; a FloeError it sent is rethrown with its SQLSTATE. */
async function answerOf(pool: Piscina, input: unknown, signal: AbortSignal | undefined): Promise<PartialAggregateResult | KeyRangeAggregateResult> {
  let result: ScanWorkerResult;
  try {
    result = (await pool.run(input, signal ? { signal } : {})) as ScanWorkerResult;
  } catch (e) {
    if (signal?.aborted) throw abortError(signal);
    throw e;
  }
  if (result === null || result instanceof Uint8Array) throw new FloeError(SqlState.internalError, 'scan worker returned batches for an aggregate');
  if ('error' in result) {
    const { sqlstate, message, detail, hint } = result.error;
    throw new FloeError(sqlstate, message, { detail, hint });
  }
  return result;
}

let shared: ScanPool | undefined;

/** The process-wide pool, created on first use with `opts` (later calls get that pool as it is). */
export function sharedScanPool(opts: ScanPoolOptions = {}): ScanPool {
  shared ??= createScanPool(opts);
  return shared;
}

export async function closeSharedScanPool(): Promise<void> {
  const p = shared;
  shared = undefined;
  await p?.close();
}
