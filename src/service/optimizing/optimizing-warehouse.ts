import type { Warehouse } from '../../lake/index.js';

/** The part of the lake's Warehouse the self-optimizing service uses (tests pass a fake of just this). */
export type OptimizingWarehouse = Pick<Warehouse,
  | 'listTables' | 'getTableById' | 'resolveSnapshot' | 'branchHeads' | 'fileEpochs' | 'lowWatermark' | 'optimize' | 'optimizingMetrics'
  | 'listOptimizerGroups' | 'createOptimizerGroup' | 'alterOptimizerGroup' | 'dropOptimizerGroup'
  | 'recordOptimizingRun' | 'listOptimizingRuns' | 'saveOptimizingState' | 'tryClaimOptimizing' | 'listOptimizingStates'
  | 'expireSnapshots' | 'removeOrphanFiles' | 'releaseLogSegments'
  | 'registerOptimizer' | 'heartbeatOptimizer' | 'listOptimizers' | 'dropOptimizer'>;

/** Where the service logs (pino's child loggers fit). */
export interface ServiceLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export const silentLogger: ServiceLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined };
