import type { Warehouse } from '../lake/index.js';
import {
  createOptimizerPool, DEFAULT_OPTIMIZER_MEMORY_BYTES, DEFAULT_OPTIMIZER_NICENESS, Housekeeping, InlineOptimizingService, OptimizingScheduler,
  type OptimizingService, type ServiceLogger,
} from '../service/index.js';
import { parseMemorySetting } from '../session/index.js';

/** The `--optimizer-threads` / `--optimizer-memory` / `--optimizer-nice` flags of `floe serve` and `floe optimizer`. */
export const OPTIMIZER_FLAGS = {
  'optimizer-threads': { type: 'string', default: '1' },
  'optimizer-memory': { type: 'string', default: '1GB' },
  'optimizer-nice': { type: 'string', default: String(DEFAULT_OPTIMIZER_NICENESS) },
} as const;

export interface OptimizerFlags {
  readonly threads: number;
  readonly memoryBytes: number;
  /** The optimizer threads' nice value, 0–19 (Linux's range for lowering a thread's priority). */
  readonly niceness: number;
}

export interface OptimizingRuntime {
  /** What sessions use for CALL optimize, optimizer groups and the views. */
  readonly service: OptimizingService;
  /** Starts background work: the scheduler (unless threads = 0) and housekeeping. */
  start(): void;
  /** Aborts running processes, releases their claims, closes the worker pools. */
  stop(): Promise<void>;
}

export function parseOptimizerFlags(values: { 'optimizer-threads'?: string; 'optimizer-memory'?: string; 'optimizer-nice'?: string }): OptimizerFlags {
  const text = values['optimizer-threads'] ?? '1';
  if (!/^\d+$/.test(text.trim())) throw new Error(`--optimizer-threads must be a whole number (0 turns background optimizing off), not "${text}"`);
  const memoryText = values['optimizer-memory'];
  const niceText = values['optimizer-nice'] ?? String(DEFAULT_OPTIMIZER_NICENESS);
  // A thread may only lower its own priority without privileges, so negative values are refused too.
  if (!/^\d+$/.test(niceText.trim()) || Number(niceText) > 19) throw new Error(`--optimizer-nice must be a whole number from 0 to 19, not "${niceText}"`);
  return {
    threads: Number(text),
    memoryBytes: memoryText === undefined ? DEFAULT_OPTIMIZER_MEMORY_BYTES : parseMemorySetting('--optimizer-memory', memoryText),
    niceness: Number(niceText),
  };
}

/**
 * The self-optimizing service of one process: a scheduler whose groups run node rewrites
 * on their own worker pools (threads = the group's threads, each worker's heap capped at
 * --optimizer-memory and run at nice --optimizer-nice), and housekeeping. With 0 threads
 * nothing optimizes in the background and CALL optimize runs inline; housekeeping still runs.
 */
export function createOptimizingRuntime(
  warehouse: Warehouse, opts: OptimizerFlags & { logger: ServiceLogger; groups?: readonly string[] },
): OptimizingRuntime {
  const scheduler = opts.threads === 0 && opts.groups === undefined ? undefined : new OptimizingScheduler({
    warehouse,
    logger: opts.logger,
    defaultThreads: opts.threads,
    ...(opts.groups === undefined ? {} : { groups: opts.groups }),
    createPool: (group) => createOptimizerPool({ threads: group.threads, memoryBytes: opts.memoryBytes, niceness: opts.niceness }),
  });
  const housekeeping = new Housekeeping({ warehouse, logger: opts.logger });
  return {
    service: scheduler ?? new InlineOptimizingService(warehouse, { logger: opts.logger }),
    start() {
      scheduler?.start();
      housekeeping.start();
    },
    async stop() {
      await Promise.all([scheduler?.stop(), housekeeping.stop()]);
    },
  };
}
