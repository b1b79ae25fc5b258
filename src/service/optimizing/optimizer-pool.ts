import { Piscina } from 'piscina';
import { workerModule } from '../../common/worker-module.js';
import type { NodeRewriteResult, NodeRewriteTask } from '../../lake/index.js';

/** Heap a worker thread may grow to before V8 stops it (default): the optimizer's memory bound. */
export const DEFAULT_OPTIMIZER_MEMORY_BYTES = 1024 * 1024 * 1024;

/**
 * The nice value optimizer threads lower themselves to. Optimizing is background work:
 * when a query's threads and an optimizer thread are both ready to run on a 2-core box,
 * the query's go first, and the optimizer has the time they leave.
 */
export const DEFAULT_OPTIMIZER_NICENESS = 19;

/** What an optimizer worker thread is started with (piscina's workerData). */
export interface OptimizerWorkerData {
  readonly niceness: number;
}

/** Worker threads that run node rewrites, so optimizing never runs on a thread that serves queries. */
export interface OptimizerPool {
  readonly threads: number;
  runNodeRewrite(task: NodeRewriteTask): Promise<NodeRewriteResult>;
  close(): Promise<void>;
}

export interface OptimizerPoolOptions {
  /** maxThreads: the group's threads. */
  readonly threads: number;
  /** Per thread; its old generation is capped at this (a worker past it dies, and its task fails). */
  readonly memoryBytes?: number;
  /** The threads' nice value (default DEFAULT_OPTIMIZER_NICENESS; 0 leaves them as the process). */
  readonly niceness?: number;
}

/**
 * A piscina pool of optimizer workers for one group. The scheduler makes it at the group's
 * first process; its threads then stay (as the scan pool's do), since a worker's first
 * node rewrite pays seconds for loading the lake and parquet-wasm. Workers load the
 * worker module as the main thread loads its own (workerModule).
 */
export function createOptimizerPool(opts: OptimizerPoolOptions): OptimizerPool {
  const threads = Math.max(1, opts.threads);
  const memoryMb = Math.max(64, Math.floor((opts.memoryBytes ?? DEFAULT_OPTIMIZER_MEMORY_BYTES) / (1024 * 1024)));
  const { filename, execArgv } = workerModule(import.meta.url, 'optimizer-worker');
  const pool = new Piscina({
    filename,
    name: 'rewriteNode',
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 2 ** 31 - 1,
    resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    execArgv,
    workerData: { niceness: opts.niceness ?? DEFAULT_OPTIMIZER_NICENESS } satisfies OptimizerWorkerData,
  });
  // A worker that died (e.g. past its memory bound) fails its task; the pool itself stays usable.
  pool.on('error', () => undefined);
  return {
    threads,
    runNodeRewrite: (task) => pool.run(task) as Promise<NodeRewriteResult>,
    close: () => pool.destroy(),
  };
}
